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
- a year, also inside a period ("FY2021" asks about 2021);
- a word before a full stop may be cut short, so it is looked up as a prefix ("Oct."); a title or
  initials before a name may be left out ("Mr Smith" is looked up as "Smith");
- a colour, one of English's eleven basic colour terms ("the yellow italic text", "the blue
  icon"): like a name it has no other word a document would say it by, and the app reads text,
  not what pictures or the print look like. Where the text never names the colour, the question
  is about how the pages look, which the app cannot see; a manual that says "the red light"
  names it, and the question passes.
Left out: words in capitals only (an acronym may be spelt out in the documents: "EBITDA"), a
lone capitalised word that labels the number after it ("Page 3", "Figure 7", "Building 4"; not
"iOS 7"), and what follows the first question mark (how to answer: "Please write the date as
YYYY-MM-DD"). No word list decides: lists of excluding words ("except", "not"), of a document's
parts ("Page 3") and a Title Case rule were measured and removed, as no test-split question,
rewording or held-out question changed with them (docs/benchmarks.md).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from desktop_rag.answering.timings import unasked_timings
from desktop_rag.domain import Answer
from desktop_rag.domain.routed import RouteInfo
from desktop_rag.text.words import STOPWORDS, words

# A token as written: letters and digits with the joiners a name keeps ("G.W.Bush", "Contact.Meet",
# "filter-then-rerank", "Lufthansa's").
_TOKEN = re.compile(r"[^\W_](?:[\w.&'’-]*[^\W_])?", re.UNICODE)
_SENTENCE_END = re.compile(r"[.?!:;]\s*$|[\n\"“(\[]\s*$")
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_NUMBERED = re.compile(r"\s+\d")  # a number next ("Page 3")
SHOWN = 3  # documents named where the missing names are found elsewhere
_POSSESSIVE = re.compile(r"['’]s?$")
_LETTERS = re.compile(r"[^\W\d_]+")  # "2015s" is no year


# English's basic colour terms (Berlin and Kay), with the other spelling of grey
_COLOUR = re.compile(r"\b(?:black|white|red|green|yellow|blue|brown|purple|pink|orange|gr[ae]y)\b",
                     re.IGNORECASE)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Term:
    """A name, year or colour of the question, as written, and the words the index looks it up
    by."""

    text: str
    words: tuple[str, ...]
    colour: bool = False

    @property
    def spellings(self) -> tuple[tuple[str, ...], ...]:
        """The ways the documents may write it: grey is also gray."""
        if self.colour and self.words[0] in ("grey", "gray"):
            return (("grey",), ("gray",))
        return (self.words,)


def premise_terms(question: str) -> list[Term]:
    """The names, years and colours of `question`, each once, in order (see the module
    text)."""
    found: dict[tuple[str, ...], Term] = {}
    for run in _runs(question):
        text = " ".join(run)
        key = _without_title(tuple(w for token in run for w in _looked_up(token)))
        if key and key not in found:
            found[key] = Term(text, key)
    named = {word for key in found for word in key}
    for match in _COLOUR.finditer(_asked(question)):
        colour = match.group(0).lower()
        if colour not in named and (colour,) not in found:  # "Red Bull" is a name already
            found[(colour,)] = Term(colour, (colour,), colour=True)
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
    end, abbreviated = 0, False
    asked = _asked(question)
    for match in _TOKEN.finditer(asked):
        token = _POSSESSIVE.sub("", match.group(0))
        gap = asked[end : match.start()]
        opens = not end or (not (abbreviated and not gap.strip())
                            and _SENTENCE_END.search(asked[: match.start()]) is not None)
        name = not opens and _is_name(token) and not _label(token, run, asked, match.end())
        if run and (gap.strip() or not name):
            yield from _flush(run)
        year = _YEAR.search(token)
        if year and not _LETTERS.fullmatch(token[year.end() :]):
            yield [year.group(0)]  # a year, or a period of one ("FY2021": 2021)
        elif name:
            run.append(token + "." if asked[match.end() : match.end() + 1] == "." else token)
        end = match.end()
        abbreviated = asked[end : end + 1] == "." and (name or "." in token)
        if abbreviated:
            end += 1  # an abbreviation's own full stop ("Mr.", "U.S."), not a sentence's end
    yield from _flush(run)


def _asked(question: str) -> str:
    """The question up to its first question mark: what follows tells how to answer ("Please
    write the answer as YYYY-MM-DD"), it names nothing the documents must hold."""
    mark = question.find("?")
    return question if mark < 0 else question[: mark + 1]


def _flush(run: list[str]) -> Iterator[list[str]]:
    if run:
        yield list(run)
        run.clear()


def _label(token: str, run: list[str], asked: str, end: int) -> bool:
    """A word that only labels the number after it ("Page 3", "Figure 7", "Building 4"): one
    word, capitalised as a sentence's first word is, alone before the number. A user writes
    "Page 3" as readily as "page 3", and a map or a photo never prints the word."""
    return not run and token[1:].islower() and _NUMBERED.match(asked, end) is not None


def _is_name(token: str) -> bool:
    """A capital anywhere, beside a small letter: "Boeing", "iOS", "GPT-4o". A word in capitals
    only ("EBITDA", "FY", "CAGR") is left out: an acronym is often spelt out in the documents
    ("earnings before interest, …"), and a question written in capitals says nothing by them.
    So are a lone letter and a pronoun ("A", "I")."""
    return (any(c.isupper() for c in token) and any(c.islower() for c in token)
            and token.lower() not in STOPWORDS)  # fmt: skip


# do the documents searched hold these words? (exact: the words themselves, not a word they
# begin nor one a typo away: "green" is not "greenhouse")
Mentions = Callable[[tuple[str, ...], bool], bool]


def missing_terms(question: str, mentions: Mentions) -> list[Term]:
    """The question's names, years and colours that the documents searched do not hold."""
    return [term for term in premise_terms(question)
            if not any(mentions(spelling, term.colour) for spelling in term.spellings)]  # fmt: skip


Holders = Callable[[tuple[str, ...]], set[str]]  # the documents elsewhere holding these words


def held_elsewhere(missing: list[Term], holders: Holders) -> set[str]:
    """The documents outside the ones searched that hold every missing term (each in one of its
    spellings, as the words themselves): a question asked of the wrong documents, whose answer
    may be in these. Not for a colour: the question is about how the chosen pages look."""
    if any(term.colour for term in missing):
        return set()  # a colour another document names says nothing of these pages' colours
    found: set[str] | None = None
    for term in missing:
        docs = set().union(*(holders(spelling) for spelling in term.spellings))
        found = docs if found is None else found & docs
    return found or set()


def premise_refusal(question: str, chat_id: str, missing: list[Term], info: RouteInfo,
                    gpu_offload: bool, started: float,
                    elsewhere: Sequence[str] = ()) -> Answer:  # fmt: skip
    """The answer when the documents searched never mention a name the question takes for
    granted: which names, and what the user can do; the model is not asked. `elsewhere` are the
    titles of other documents of the library that do mention them."""
    names = " or ".join(f"\u201c{t.text}\u201d" for t in missing)
    text = f"None of the documents searched mentions {names}, so they cannot answer this question."
    if any(t.colour for t in missing):
        text += (" Colours are known only where the text names them: the colours of pictures and "
                 "of the print itself are not read.")  # fmt: skip
    if elsewhere:
        shown = ", ".join(f"\u201c{title}\u201d" for title in elsewhere[:SHOWN])
        more = f" and {len(elsewhere) - SHOWN} more" if len(elsewhere) > SHOWN else ""
        text += (f" Other documents of your library do: {shown}{more}. Ask again over the whole "
                 "library, or choose those documents.")  # fmt: skip
    elif not all(t.colour for t in missing):
        text += " Check the spelling, or add the document that does."
    reason = f"{info.reason}; the documents searched never mention {names}"
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
        timings=unasked_timings(started),
        route=route,
    )
