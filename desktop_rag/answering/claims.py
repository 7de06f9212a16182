"""What a sentence claims, in comparable pieces: its content words (lightly stemmed), its numbers,
its names and whether it is negated. The support check compares an answer sentence with a source
sentence piece by piece, because similarity alone does not see a changed number, name or "not".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")
_LIST_MARK = re.compile(r"^\s*(?:\(?\d{1,2}[.)]|[-*•·▪–]|step\s+\d+\s*[:.)-])\s+", re.IGNORECASE)
_CAPITALISED = re.compile(r"\b[A-Z][\w'’&-]*")
_STOP_WORDS = (
    "a an and are as at be been but by for from has have he her his i in is it its of on or "
    "she that the their them there these they this to was were which who will with you your "
    "do does did can could would should may might also than then so such into about "
    "what when where how why whom whose while if each every any some all both more most "
    "our we us my me one per via after before over under up out"
)
STOP = frozenset(_STOP_WORDS.split(" "))
_NEGATION_WORDS = "not no never none nothing neither nor cannot without nobody nowhere"
NEGATIONS = frozenset(_NEGATION_WORDS.split(" "))
_SMALL_NUMBERS = "zero one two three four five six seven eight nine ten eleven twelve"
_NUMBER_WORDS = {w: str(i) for i, w in enumerate(_SMALL_NUMBERS.split(" "))}
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "ed", "es", "ly", "s")
_OPENER_WORDS = (
    "The A An This That These Those It Its In On At For To From By With As If When While "
    "After Before During Yes No According Also However Then First Second Finally Next "
    "Step Steps Note Please You Your We Our They Their There Here Each Every All Both"
)
_OPENERS = frozenset(_OPENER_WORDS.split(" "))


def stem(word: str) -> str:
    """A light suffix strip ("descaling" and "descaled" -> "descal"), enough for paraphrases."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def words(text: str) -> list[str]:
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


def strip_list_mark(text: str) -> str:
    """ "1. Fill the tank" -> "Fill the tank": a list number is layout, not a claim."""
    return _LIST_MARK.sub("", text, count=1)


def normal_number(raw: str) -> str:
    """'1,234.50' -> '1234.5'; comparable however the sentence wrote it."""
    digits = raw.replace(",", "")
    if "." in digits:
        digits = digits.rstrip("0").rstrip(".")
    return digits.lstrip("0") or "0"


@dataclass(frozen=True)
class Claim:
    """The comparable pieces of one sentence; `subject`: for a source sentence, the title of
    its document, whose names count as the sentence's own (a table in Netflix's 10-K never
    says "Netflix", and "Netflix's revenue was …" is still what it states)."""

    text: str
    subject: str = ""

    @cached_property
    def tokens(self) -> list[str]:
        return words(strip_list_mark(self.text))

    @cached_property
    def content(self) -> frozenset[str]:
        return frozenset(stem(w) for w in self.tokens if w not in STOP and not w.isdigit())

    @cached_property
    def vocabulary(self) -> frozenset[str]:
        """Every word, stemmed, and every number: what a source offers to match against. A year
        also offers its fiscal year's names ("2021": "FY2021", "FY21"), which tables never
        print but answers write."""
        years = [n for n in self.numbers if _YEAR.fullmatch(n)]
        fiscal = {f"fy{y}" for y in years} | {f"fy{y[2:]}" for y in years}
        return frozenset(stem(w) for w in self.tokens) | self.numbers | fiscal

    @cached_property
    def numbers(self) -> frozenset[str]:
        found = {normal_number(m.group(0)) for m in _NUMBER.finditer(strip_list_mark(self.text))}
        return frozenset(found | {_NUMBER_WORDS[w] for w in self.tokens if w in _NUMBER_WORDS})

    @cached_property
    def names(self) -> frozenset[str]:
        """Capitalised words that are not the sentence's first word, nor common openers."""
        return frozenset(stem(w.lower()) for w in _names(strip_list_mark(self.text)))

    @cached_property
    def subject_names(self) -> frozenset[str]:
        """The words of the subject (title), stemmed: the names a source may leave unsaid."""
        return frozenset(stem(w) for w in words(self.subject))

    @cached_property
    def negated(self) -> bool:
        return any(w in NEGATIONS or w.endswith("n't") for w in self.tokens)

    def recall_in(self, source: Claim) -> float:
        """The share of this sentence's content words the source has."""
        if not self.content:
            return 1.0 if self.tokens else 0.0
        return len(self.content & source.vocabulary) / len(self.content)

    def conflicts(self, source: Claim) -> str | None:
        """Why `source` cannot support this sentence, or None: a number or a name it lacks, or
        a negation one of them has and the other does not."""
        missing = sorted(self.numbers - source.numbers)
        if missing:
            return f"number {missing[0]} is not in the source"
        absent = sorted(self.names - source.vocabulary - source.subject_names)
        if absent:
            return f"name {absent[0]!r} is not in the source"
        if self.negated != source.negated:
            return "negated in one and not the other"
        return None


_YEAR = re.compile(r"(?:19|20)[0-9]{2}")


def _names(text: str) -> Iterator[str]:
    for match in _CAPITALISED.finditer(text):
        word = match.group(0).rstrip("'’-&")
        before = text[: match.start()].rstrip()
        opener = not before or before[-1] in ".!?:;\"'“(—"
        if word in _OPENERS or word.lower() in STOP or (opener and not _is_acronym(word)):
            continue
        yield from (w for w in words(word) if w not in STOP)


def _is_acronym(word: str) -> bool:
    return len(word) >= 2 and word.isupper()
