"""Is the value a question asks for stated in the sources? Then it is quoted, not recomputed.

The calculation request (prompts.CALCULATION_REQUEST) is triggered by the question's words
("grow", "total", "change"), and a small model that is asked for a formula writes one: a
report says "Revenue in 2023 grew to 4.2 million euros", the question "How much did revenue
grow to in 2023?" got "4.2 - 3.8 = 0.4" over an invented 3.8; annual reports print "Total
current liabilities" and got sums of their lines. The evidence decides instead: when one line
of a given passage (a table row, or a sentence) holds every word of the question that names
the value, a number, and the year asked, the sources state it and no calculation is asked for.

A table row states the value only when its label says no more than the question ("Domestic
streaming revenues" is a part of "total streaming revenue"). Every word counts except the
question's proper names (capitalised in the question and used by
no passage: "Netflix's" is the document's subject, not a word its rows repeat), words that
name no quantity (calc_labels.content_stems) and the formatting instructions after the
question mark. A change asked of a table ("How much did revenue grow in 2015?") is not
stated by the revenue row: the row lacks "grow". Verbs are compared by their stems, with the
irregular past forms mapped to their present ("grew" is "grow"). A number the line's verb binds
with "to" states the level reached, with "by" the change, and counts only for a question that
binds the verb the same way (`_bound_as_asked`: "How much did revenue grow to?" is stated by
"grew to 4.2", "By how much did revenue grow?" is not).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from desktop_rag.answering.calc_labels import content_stems, years
from desktop_rag.domain import Passage
from desktop_rag.text.numbers import NUMBER_PATTERN
from desktop_rag.text.words import present_form, words

_ASKING = frozenset({"much", "mani"})  # "how much", "how many": the asking, not the value
_ROW = " — "  # a table row as the table pass renders it: label — column: value | …
_SENTENCES = re.compile(r"(?<=[.;!?])\s+(?=[A-Z0-9(])|\n")
_NUMBER = re.compile(NUMBER_PATTERN)
_YEARISH = re.compile(r"^(?:19|20)[0-9]{2}$")


@dataclass(frozen=True, slots=True)
class Stated:
    """Where the sources state the value: passage number and the line."""

    passage: int
    line: str


def _stems(text: str) -> frozenset[str]:
    regular = " ".join(present_form(w) for w in words(text))
    return content_stems(regular)


def _names(question: str) -> frozenset[str]:
    """Stems of the question's capitalised words after its first (proper names, acronyms)."""
    found = re.findall(r"(?<!^)(?<![.?!]\s)\b[A-Z][\w&'-]*", question.strip())
    return _stems(" ".join(found))


def value_words(question: str, passages: Sequence[Passage]) -> frozenset[str]:
    """The question's words that name the value, as stems (see the module docstring)."""
    asked = question.split("?", 1)[0]
    used = _stems("\n".join(p.text for p in passages))
    names = _names(asked)
    return frozenset(s for s in _stems(asked) if (s in used or s not in names) and s not in _ASKING)


def stated_value(question: str, passages: Sequence[Passage]) -> Stated | None:
    """The first line of the passages with a number (not a year) labelled by every value word
    of the question (`_value_labels`) and by the year the question names (all of them, when
    it names several: a change between years is not stated by one year's figure); None when
    no line has one, or the question has no word to look for."""
    wanted = value_words(question, passages)
    named = years(question.split("?", 1)[0])
    if not wanted:
        return None
    for passage in passages:
        for line in _SENTENCES.split(passage.text):
            if not wanted <= _stems(line) or _a_part(line, wanted):
                continue
            if any(wanted <= _stems(label) and (not named or _years_ok(named, years(label)))
                   and _bound_as_asked(question, label)
                   for label in _value_labels(line)):  # fmt: skip
                return Stated(passage.n, " ".join(line.split()))
    return None


def _value_labels(line: str) -> list[str]:
    """What labels each number of the line that is not a year: in a table row its row label
    and column ("Total current liabilities — 2015:"), in a sentence the words since the
    previous such number ("Revenue in 2023 grew to" of 4.2), so that a sentence giving two
    parts ("domestic revenues $ 4.18 and international revenues $ 1.95") states neither
    part as their total."""
    if _ROW in line:
        label, _, cells = line.partition(_ROW)
        return [f"{label} {cell.split(':', 1)[0]}" for cell in cells.split("|")
                if _has_value(cell.split(":", 1)[-1])]  # fmt: skip
    out, start = [], 0
    for m in _NUMBER.finditer(line):
        if not _YEARISH.match(m.group(0)):
            out.append(line[start : m.start()])
            start = m.end()
    return out


def _bound_as_asked(question: str, label: str) -> bool:
    """A number a verb binds with "to" is the level reached ("grew to 4.2"), with "by" the
    change ("grew by 0.3"). When the question uses the line's verb, it asks for the level only
    when it binds the verb with "to" ("How much did revenue grow to?"); else it asks for the
    change ("By how much did revenue grow?", "How much did revenue grow?"), which a level
    does not state; a question without the verb asks for no change ("What were sales?" is not
    stated by "rose by 1.6"). Lines whose number no verb binds so are not concerned."""
    said = [present_form(w) for w in words(label)]
    if len(said) < 2 or said[-1] not in ("to", "by"):
        return True
    verb = content_stems(said[-2])
    asked = [present_form(w) for w in words(question.split("?", 1)[0])]
    uses = [i for i, w in enumerate(asked) if verb and content_stems(w) == verb]
    if not uses:  # a change ("rose by 1.6") is no level the question asks without the change
        return said[-1] == "to"
    level = any(i + 1 < len(asked) and asked[i + 1] == "to" for i in uses)
    return (said[-1] == "to") == level


def _years_ok(named: frozenset[int], printed: frozenset[int]) -> bool:
    """One year asked: the line names it. Several (a change between them): it names all."""
    return named <= printed if len(named) > 1 else bool(named & printed)


def _a_part(line: str, wanted: frozenset[str]) -> bool:
    """A table row whose label says more than the question: "Domestic streaming revenues"
    is a part of the "streaming revenue" asked, not its value."""
    return _ROW in line and not _stems(line.partition(_ROW)[0]) <= wanted


def _has_value(line: str) -> bool:
    return any(not _YEARISH.match(m.group(0)) for m in _NUMBER.finditer(line))
