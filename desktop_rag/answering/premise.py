"""The question's premise: the names and years it takes for granted, each looked up in the
documents searched before anything is read.

"Which agency does Lebron Brennan belong to?" over documents that never mention Lebron Brennan
has no answer there; a small model given the nearest passages answers it anyway (with another
person's agency). A name no document in scope holds, in any form the keyword index knows
(stemmed, or one typo away), is a fact: the answer says which name is missing, and the model is
not asked.

Which words are names is read from how the question is written, not from a list of names:
- a word with capital and small letters that does not begin its sentence ("Germanwings", "iOS",
  "GPT-4o"); adjacent ones are one name ("Lebron Brennan"), found when each of its words is;
- a year, also inside a period ("FY2021" asks about 2021; a report's "FY21" mentions it);
- a word before a full stop may be cut short, so it is looked up as a prefix ("Oct."); a title or
  initials before a name may be left out ("Mr Smith" is looked up as "Smith").
Left out: words in capitals only (an acronym may be spelt out in the documents: "EBITDA"), the
words of a question in Title Case (its capitals say nothing), a numbered part of a document
("Page 3", "Figure 7"; "Building 4" is a name), what follows the first question mark (how to
answer: "Please write the date as YYYY-MM-DD"), and a clause that excludes what it names
("except Germany", "not included in LinkedIn Metrics: Post Reach, …").
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from desktop_rag.answering.timings import since
from desktop_rag.domain import Answer
from desktop_rag.domain.routed import RouteInfo
from desktop_rag.text.words import STOPWORDS, words

# A token as written: letters and digits with the joiners a name keeps ("G.W.Bush", "Contact.Meet",
# "filter-then-rerank", "Lufthansa's").
_TOKEN = re.compile(r"[^\W_](?:[\w.&'’-]*[^\W_])?", re.UNICODE)
_SENTENCE_END = re.compile(r"[.?!:;]\s*$|[\n\"“(\[]\s*$")
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_POSSESSIVE = re.compile(r"['’]s?$")
_SENTENCE_GAP = re.compile(r"[;?!.]")  # an exclusion ("except A, B and C") lasts to here
_NUMBERED = re.compile(r"\s*\(?(?:\d|[A-Z]\b)")  # "Page 13", "Appendix C", "Table (2)"
# The parts of a document, numbered: "Page 3" names a place in the document, not a thing the
# documents must mention ("Building 4" does).
_PARTS = frozenset({"page", "pages", "figure", "fig", "table", "section", "chapter", "appendix",
                    "slide", "exhibit", "note", "item", "part", "step", "line", "row", "column",
                    "paragraph", "annex", "schedule", "equation", "eq", "footnote", "volume",
                    "vol", "article", "clause", "box", "panel", "chart", "image", "photo",
                    "diagram", "tab", "sheet", "example", "question", "q"})  # fmt: skip
_LETTERS = re.compile(r"[^\W\d_]+")  # "2015s" is no year
# Words that exclude what their clause names: English grammar, not a list of questions.
_EXCLUDING = frozenset({"except", "excluding", "besides", "not", "without", "nor",
                        "neither", "unlike"})  # fmt: skip
_EXCLUDING_PAIRS = frozenset({("other", "than"), ("apart", "from"), ("rather", "than"),
                              ("aside", "from")})  # fmt: skip


@dataclass(frozen=True, slots=True)
class Term:
    """A name or year of the question, as written, and the words the index looks it up by."""

    text: str
    words: tuple[str, ...]


def premise_terms(question: str) -> list[Term]:
    """The names and years of `question`, each once, in order (see the module text)."""
    found: dict[tuple[str, ...], Term] = {}
    for run in _runs(question):
        text = " ".join(run)
        key = _without_title(tuple(w for token in run for w in _looked_up(token)))
        if key and key not in found:
            found[key] = Term(text, key)
    return list(found.values())


def _without_title(key: tuple[str, ...]) -> tuple[str, ...]:
    """A name without the short words before its first long one: a title or initials ("Mr
    Smith", "Dr Jones", "G.W.Bush") that the documents may leave out; nothing of a name that
    has no long word ("Mr.", "Xi": too short to tell a name from a part of one)."""
    first = next((i for i, word in enumerate(key) if len(word.rstrip("*")) > 2), len(key))
    return key[first:]


def _looked_up(token: str) -> list[str]:
    """A token's words as the index looks them up; a word before a full stop may be cut short
    ("Oct." for "October", "Dept." for "Department"), so it is looked up as a prefix ("oct*")."""
    found = [w for w in words(token) if w not in STOPWORDS] or words(token)
    if token.endswith(".") and found:
        found[-1] += "*"
    return found


def _runs(question: str) -> Iterator[list[str]]:
    """Runs of adjacent name tokens, and years, in the question proper (see `_asked`)."""
    run: list[str] = []
    end, previous, excluded, abbreviated = 0, "", False, False
    asked = _asked(question)
    titled = _title_case(asked)
    for match in _TOKEN.finditer(asked):
        token = _POSSESSIVE.sub("", match.group(0))
        gap = asked[end : match.start()]
        if _SENTENCE_GAP.search(gap):
            excluded = False
        lower = token.lower()
        excluded = excluded or lower in _EXCLUDING or (previous, lower) in _EXCLUDING_PAIRS
        opens = not end or (not (abbreviated and not gap.strip())
                            and _SENTENCE_END.search(asked[: match.start()]) is not None)
        name = (not excluded and not opens and not titled and _is_name(token)
                and not _part(asked, match.end(), lower))  # fmt: skip
        if run and (gap.strip() or not name):
            yield from _flush(run)
        year = _YEAR.search(token)
        if not excluded and year and not _LETTERS.fullmatch(token[year.end() :]):
            yield [year.group(0)]  # a year, or a period of one ("FY2021": 2021)
        elif name:
            run.append(token + "." if asked[match.end() : match.end() + 1] == "." else token)
        end, previous = match.end(), lower
        abbreviated = asked[end : end + 1] == "." and (name or "." in token)
        if abbreviated:
            end += 1  # an abbreviation's own full stop ("Mr.", "U.S."), not a sentence's end
    yield from _flush(run)


def _part(asked: str, end: int, lower: str) -> bool:
    """A numbered part of a document ("Page 3", "Figure 7"): a place in it, not a name."""
    return lower in _PARTS and _NUMBERED.match(asked, end) is not None


def _title_case(asked: str) -> bool:
    """A question in Title Case ("What Is The Churn Rate Of Netflix?"): its capitals say nothing
    of names, as in one written in capitals only. Told by its small words capitalised (two or
    more after the first word), which a name rarely has ("The Hague", "Bank of America")."""
    tokens: list[str] = _TOKEN.findall(asked)[1:]
    small = [t for t in tokens if t.lower() in STOPWORDS and len(t) > 1]
    return sum(t[0].isupper() for t in small) >= 2


def _asked(question: str) -> str:
    """The question up to its first question mark: what follows tells how to answer ("Please
    write the answer as YYYY-MM-DD"), it names nothing the documents must hold."""
    mark = question.find("?")
    return question if mark < 0 else question[: mark + 1]


def _flush(run: list[str]) -> Iterator[list[str]]:
    if run:
        yield list(run)
        run.clear()


def _is_name(token: str) -> bool:
    """A capital anywhere, beside a small letter: "Boeing", "iOS", "GPT-4o". A word in capitals
    only ("EBITDA", "FY", "CAGR") is left out: an acronym is often spelt out in the documents
    ("earnings before interest, …"), and a question written in capitals says nothing by them.
    So are a lone letter and a pronoun ("A", "I")."""
    return (any(c.isupper() for c in token) and any(c.islower() for c in token)
            and token.lower() not in STOPWORDS)  # fmt: skip


Mentions = Callable[[tuple[str, ...]], bool]  # do the documents searched hold these words?


def missing_terms(question: str, mentions: Mentions) -> list[Term]:
    """The question's names and years that the documents searched do not hold."""
    return [t for t in premise_terms(question) if not any(mentions(f) for f in _forms(t))]


def _forms(term: Term) -> list[tuple[str, ...]]:
    """A name's words; a year also as a report's fiscal year writes it ("2024": "FY24")."""
    if len(term.words) == 1 and _YEAR.fullmatch(term.words[0]):
        return [term.words, ("fy" + term.words[0][2:],)]
    return [term.words]


def premise_refusal(question: str, chat_id: str, missing: list[Term], info: RouteInfo,
                    gpu_offload: bool, started: float) -> Answer:  # fmt: skip
    """The answer when the documents searched never mention a name the question takes for
    granted: which names, and what the user can do; the model is not asked."""
    names = " or ".join(f"\u201c{t.text}\u201d" for t in missing)
    text = (f"None of the documents searched mentions {names}, so they cannot answer this "
            "question. Check the spelling, or add the document that does.")  # fmt: skip
    reason = f"{info.reason}; the documents searched never mention {names}"
    timings = {"ttft_ms": 0.0, "total_ms": since(started), "prompt_tokens": 0,
               "cached_tokens": 0, "generated_tokens": 0}
    route = dataclasses.replace(info, details={**info.details, "missing_names": len(missing)},
                                reason=reason)
    return Answer(
        question=question,
        answer=text,
        chat_id=chat_id,
        citations=(),
        passages=(),
        unsupported_sentences=(),
        refused=True,
        reranker="none",
        gpu_offload=gpu_offload,
        timings=timings,
        route=route,
    )
