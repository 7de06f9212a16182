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
        months = {stem(name) for n in _numeric_months(self.text) for name in _MONTH_NAMES[n]}
        return frozenset(stem(w) for w in self.tokens) | self.numbers | fiscal | months

    @cached_property
    def offered_numbers(self) -> frozenset[str]:
        """The numbers a source offers: its own, and the number of each month it names ("5
        January 2022" offers 1, as "01/05/2022" would state it)."""
        named = {str(_MONTH_NUMBER[w]) for w in self.tokens if w in _MONTH_NUMBER}
        return self.numbers | named

    @cached_property
    def numbers(self) -> frozenset[str]:
        text = strip_list_mark(self.text)
        dates = _NUMERIC_DATE.sub(" ", text)
        found = {normal_number(m.group(0)) for m in _NUMBER.finditer(dates)} | _date_parts(text)
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
        missing = sorted(self.numbers - source.offered_numbers)
        if missing:
            return f"number {missing[0]} is not in the source"
        absent = sorted(self.names - source.vocabulary - source.subject_names)
        if absent:
            return f"name {absent[0]!r} is not in the source"
        if self.negated != source.negated:
            return "negated in one and not the other"
        return None


_YEAR = re.compile(r"(?:19|20)[0-9]{2}")
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december"]  # fmt: skip
_MONTH_NAMES = {i + 1: (m, m[:3]) for i, m in enumerate(_MONTHS)}
_MONTH_NUMBER = {name: n for n, names in _MONTH_NAMES.items() for name in names} | {"sept": 9}
_MONTH_NUMBER.pop("may")  # also a verb; "May" as a month is matched through the source's dates
_NUMERIC_DATE = re.compile(r"\b(\d{1,2})[/.-](\d{1,2})[/.-](\d{4}|\d{2})\b|"
                           r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")  # fmt: skip


def _numeric_months(text: str) -> set[int]:
    """The months a date written in numbers may name: "01/05/2022" is 1 or 5 (month first or
    day first), "2022-05-01" is 5. A date in other words is still the same date."""
    found: set[int] = set()
    for match in _NUMERIC_DATE.finditer(text):
        day_or_month = match.groups()[:2] if match.group(1) else match.groups()[4:5]
        found |= {int(g) for g in day_or_month if 1 <= int(g) <= 12}
    return found


def _date_parts(text: str) -> set[str]:
    """The day, month and year of each date written in numbers ("01.05.2022" is no decimal)."""
    return {normal_number(g) for m in _NUMERIC_DATE.finditer(text) for g in m.groups() if g}


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
