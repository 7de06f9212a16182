"""Lists and counts of values with a shape of their own: web addresses, e-mail addresses,
phone numbers and countries. "Which websites does the manual give?", "list every e-mail address
in these notes", "how many countries are mentioned?", "on which pages does a web address
appear?".

The line that holds such a value rarely says the question's word ("www.huawei.com" never says
"website", a line naming France rarely says "country"), so the exhaustive route's matching of
the noun finds the wrong lines; the value's own shape (or, for countries, the names in
routes/countries.py) finds them all. Each value is counted once (case, a scheme, a trailing
dot or slash aside; a country under all its names), listed at its first mention and cited on
its page; per page where the question counts pages. Values the question excepts ("except the
U.S. and Germany") are left out.

Rules only; None when the question asks for no such value, asks for a condition the shape
cannot check ("countries where sales fell"), or the text holds none, and the line-by-line
count of the exhaustive route takes the question instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from desktop_rag.routes.countries import COUNTRY, COUNTRY_OF
from desktop_rag.routes.matching import Found
from desktop_rag.routes.units import ItemUnit
from desktop_rag.text.words import stems

_DOMAIN_END = r"(?:com|org|net|edu|gov|int|mil|info|biz|io|co|uk|de|fr|eu|ca|au|cn|jp|in|nl|ch)"
_PATTERNS = {
    "web address": re.compile(
        rf"(?<![@\w.-])(?:https?://[^\s<>()\[\]\"']+|www\.[^\s<>()\[\]\"']+|"
        rf"[a-z0-9-]+(?:\.[a-z0-9-]+)*\.{_DOMAIN_END}\b(?![@-])(?:/[^\s<>()\"']*)?)",
        re.IGNORECASE,
    ),
    "e-mail address": re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b", re.I),
    "phone number": re.compile(
        r"(?<![\w.+/-])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,5}\)[\s.-]?)?\d{2,5}(?:[\s.-]\d{2,5}){1,4}"
        r"(?![\w/]|[.-]\d)"
    ),
    "country": COUNTRY,
}
_NOUNS = {
    "web address": r"web ?sites?(?: address(?:es)?)?|web ?(?:addresses|address|pages?)|urls?|"
    r"links?|home ?pages?",
    "e-mail address": r"e-?mails?(?: address(?:es)?)?|mail address(?:es)?",
    "phone number": r"(?:tele)?phone(?: numbers?)?|fax(?: numbers?)?|hotlines?",
    "country": r"countries|country|nations",
}
_NOUN_OF = [(kind, re.compile(rf"(?i:\b(?:{nouns})\b)")) for kind, nouns in _NOUNS.items()]
_PHONE_CUE = re.compile(r"\b(?:tel|phone|telephone|fax|call|hotline|mobile|cell)\b", re.I)
MIN_PHONE_DIGITS = 7
CUE_CHARS = 40  # how far before a phone number its cue may be
_EXCEPT = re.compile(
    r"\b(?:except(?: for)?|excluding|other than|besides|apart from|aside from|but not|not "
    r"counting)\s+(?P<names>[^,;?]+?)(?=,|;|\?|\.(?=(?-i:\s+[A-Z][a-z])|$)|"
    r"\b(?:that|which|who|are|is|were|was|have|has|in|on)\b|$)",
    re.I,
)
_SENTENCE_END = re.compile(r"[?!]|\.(?=\s+[A-Z])")
# Words of a question that say where or how to look, not which values.
_WHERE = set(stems(
    "list all every each which what how many are is were was there any the a an of in on from "
    "by to for and or this these those that mentioned mention appear appears appeared given "
    "listed named cited shown presented provided included contain contains contained include "
    "includes document report paper article manual guide guidebook book slides deck file notes "
    "brochure page pages survey surveys illustrated chart charts figure figures table tables "
    "graph graphs text whole entire different distinct unique official contact write answer "
    "format integer number total name give find show me please does do did have has can could "
    "you here count"
))  # fmt: skip


@dataclass(frozen=True, slots=True)
class ValuesQuestion:
    kind: str  # "web address", "e-mail address", "phone number", "country"
    per_page: bool = False
    excepted: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ValuesCount:
    question: ValuesQuestion
    found: list[Found]

    @property
    def count(self) -> int:
        return len(self.found)


def plural(kind: str) -> str:
    return "countries" if kind == "country" else f"{kind}es" if kind.endswith("s") else f"{kind}s"


def parse_values(question: str, head_noun: str) -> ValuesQuestion | None:
    """The values a list or count asks for, or None where it asks for other things or for a
    condition the values' shape cannot decide."""
    first = _first_sentence(question)
    per_page = head_noun.lower().startswith("page")
    kind = _kind_in(first if per_page else head_noun)
    if kind is None:
        return None
    excepted = tuple(n for m in _EXCEPT.finditer(first) for n in _names(m.group("names")))
    rest = _EXCEPT.sub(" ", first)
    for _, pattern in _NOUN_OF:
        rest = pattern.sub(" ", rest)
    if any(word not in _WHERE for word in stems(rest)):
        return None
    return ValuesQuestion(kind, per_page, excepted)


def _first_sentence(question: str) -> str:
    end = _SENTENCE_END.search(question)
    return question[: end.end()] if end is not None else question


def _kind_in(text: str) -> str | None:
    return next((kind for kind, pattern in _NOUN_OF if pattern.search(text)), None)


def _names(text: str) -> list[str]:
    parts = re.split(r"\s*(?:,|\band\b|\bor\b|&)\s*", text)
    return [p.strip().removeprefix("the ").strip() for p in parts if p.strip(" .")]


def count_values(question: ValuesQuestion, units: Sequence[ItemUnit]) -> ValuesCount | None:
    """The distinct values of `units` the question asks for (or the first of each page), or
    None when the text holds none."""
    chosen: dict[tuple[str, str], Found] = {}
    for unit in units:
        for name, span in _values_in(question.kind, unit):
            if _excepted(question, name):
                continue
            key = (unit.chunk.doc_id, str(unit.page or 0)) if question.per_page else \
                ("", name.lower())  # once in the whole scope  # fmt: skip
            shown = f"page {unit.page}, {name}" if question.per_page and unit.page else name
            chosen.setdefault(key, Found(_line_of(unit, span), "value", span, shown))
    return ValuesCount(question, list(chosen.values())) if chosen else None


def _line_of(unit: ItemUnit, span: tuple[int, int]) -> ItemUnit:
    """The value's whole line ("Tel. 0800 555 0199", which the sentence splitter cut after
    "Tel."), or its sentence where that is longer."""
    raw = unit.chunk.text
    start = raw.rfind("\n", 0, span[0]) + 1
    end = raw.find("\n", span[1])
    end = len(raw) if end < 0 else end
    if end - start <= unit.end - unit.start:
        return unit
    return ItemUnit(unit.chunk, start, end, unit.page)


def _values_in(kind: str, unit: ItemUnit) -> list[tuple[str, tuple[int, int]]]:
    """Each value in the unit: its name as counted and its span in the chunk's text."""
    raw = unit.chunk.text
    out = []
    for match in _PATTERNS[kind].finditer(raw, unit.start, unit.end):
        text = match.group() if kind == "country" else match.group().rstrip(".,;:!")
        before = raw[max(0, match.start() - CUE_CHARS) : match.start()]  # "Tel." may end a unit
        if _accepted(kind, text, unit, before):
            out.append((_name(kind, text), (match.start(), match.start() + len(text))))
    return out


def _accepted(kind: str, text: str, unit: ItemUnit, before: str) -> bool:
    """A phone number has its digits and a cue just before it on its line ("Tel.", "call",
    "hotline") or an international "+": a year row or a date has the digits too."""
    if kind == "phone number":
        digits = sum(ch.isdigit() for ch in text)
        cue = _PHONE_CUE.search(before.rsplit("\n", 1)[-1])
        return digits >= MIN_PHONE_DIGITS and bool(cue or text.startswith("+"))
    if kind == "country" and text == "US":
        return not unit.text.isupper()  # "CONTACT US"
    return True


def _name(kind: str, text: str) -> str:
    """The value as counted: a country under its usual name, an address without its scheme."""
    if kind == "country":
        return COUNTRY_OF[text]
    if kind == "web address":
        return re.sub(r"^https?://", "", text, flags=re.I).rstrip("/")
    return text


def _excepted(question: ValuesQuestion, name: str) -> bool:
    """Whether the question leaves the value out: by any of its names, or a word that starts
    the same ("German" for Germany)."""
    others = {name} | {alias for alias, canonical in COUNTRY_OF.items() if canonical == name}
    for word in question.excepted:
        for other in others:
            if _undotted(word) == _undotted(other) or _same_stem(word, other):
                return True
    return False


def _undotted(name: str) -> str:
    return name.replace(".", "").lower()  # "U.S" as the question cut it, "U.S." as listed


def _same_stem(a: str, b: str) -> bool:
    """"German" and "Germany", "Japanese" and "Japan": one word begins the other, a few
    letters apart."""
    short, long = sorted((a.lower(), b.lower()), key=len)
    return len(short) >= 4 and " " not in long and long.startswith(short[:-1]) and \
        len(long) - len(short) <= 3  # fmt: skip
