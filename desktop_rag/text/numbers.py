"""Numbers as reports print them: "$ 4,180,339", "(1,577)", "22 %", "$4.18 bn", "12.5x".

A table cell is text. To compute over it, show it, or find it in a search, the app needs the value
the writer meant: "(1,577)" is a loss of 1,577, "$ 4,180,339" under "(in thousands)" is about
$4.18 billion, and "—" means "nothing here", not zero.

English formatting: "," groups thousands and "." is the decimal point; the Indian grouping of
lakhs and crores ("3,02,16,492" = 30,216,492; ₹ and "Rs." for rupees; "lakh", "crore" as scale
words) is read too, since its commas fall where no English number has them and the digits mean
the same value. "1.234,5" (European) and "4 180 339" (space-grouped) are not read as numbers: a
wrong guess would give a value a thousand times off, which is worse than no value. "1e6"
(scientific notation) is not read either: reports do not print it, and a token like "3e5" is
more likely a part number.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Context, Decimal

MAX_TEXT = 64  # longer cells are sentences, not numbers (and this bounds the digits converted)

_MINUSES = str.maketrans({"−": "-", "–": "-", "\u00a0": " ", "\u2009": " ", "\u202f": " "})
_NULLS = frozenset(
    {"", "-", "--", "—", "n/a", "na", "n.a.", "nm", "n.m.", "none", "nil", "*", "…", "..."}
)
_SYMBOLS = {"us$": "USD", "$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR",
            "rs": "INR", "rs.": "INR"}  # fmt: skip
_CODES = r"USD|EUR|GBP|JPY|CHF|CAD|AUD|CNY|INR"
SCALE_WORDS = {
    "k": 1e3, "thousand": 1e3, "m": 1e6, "mm": 1e6, "mn": 1e6, "mln": 1e6, "million": 1e6,
    "b": 1e9, "bn": 1e9, "bln": 1e9, "billion": 1e9, "t": 1e12, "tn": 1e12, "trillion": 1e12,
    "lakh": 1e5, "lakhs": 1e5, "lac": 1e5, "lacs": 1e5, "crore": 1e7, "crores": 1e7,
}  # fmt: skip
_SCALE_ALTERNATIVES = "|".join(sorted(SCALE_WORDS, key=len, reverse=True))
_PREFIX = re.compile(
    rf"(?P<cur>US\$|[$€£¥₹]|Rs\.?(?=\s*[0-9])|(?:{_CODES})(?![A-Za-z]))|(?P<sign>[-+])|(?P<paren>\()",
    re.IGNORECASE,
)
_SUFFIX = re.compile(
    r"(?:(?P<paren>\))|(?P<pct>%)|(?<![^\W\d_])(?:(?P<word_pct>percent|per cent|pct)"
    rf"|(?P<times>[x×])|(?P<scale>{_SCALE_ALTERNATIVES})|(?P<cur>{_CODES}|dollars)))$",
    re.IGNORECASE,
)
# Indian grouping (groups of two digits, then the last three), tried first: "3,02,16,492"
_INDIAN = r"[0-9]{1,2}(?:,[0-9]{2})+,[0-9]{3}(?![0-9])"
# English number: commas only between groups of three digits, "." for decimals
NUMBER_PATTERN = (
    rf"{_INDIAN}(?:\.[0-9]+)?|[0-9]{{1,3}}(?:,[0-9]{{3}})+(?![0-9])(?:\.[0-9]+)?"
    r"|[0-9]+(?:\.[0-9]+)?|\.[0-9]+"
)
_CORE = re.compile(NUMBER_PATTERN)


@dataclass(frozen=True)
class Quantity:
    """A number read from text. `value` is what the writer meant, with `scale` already applied
    (so "$ 4,180,339" in a table "in thousands" has value 4,180,339,000 and scale 1000); `unit`
    is "USD", "EUR", "GBP", "JPY", "%", "x" (a multiple) or None; `text` is the text as given."""

    value: float
    unit: str | None
    scale: float
    text: str


@dataclass
class _Parts:
    """What peeling the signs, brackets, currency and suffixes off a number found."""

    negative: int = 0
    opened: int = 0
    closed: int = 0
    unit: str | None = None
    scale: float | None = None
    seen: set[str] = field(default_factory=set)

    def take(self, kind: str, token: str) -> bool:
        """Record one prefix or suffix; False when it repeats or contradicts an earlier one."""
        group = "unit" if kind in ("cur", "pct", "word_pct", "times") else kind
        if group in self.seen and group != "paren":
            return False
        self.seen.add(group)
        if kind == "paren":
            self.opened += token == "("
            self.closed += token == ")"
            self.negative += token == "("
        elif kind == "sign":
            self.negative += token == "-"
        elif kind == "scale":
            self.scale = SCALE_WORDS[token.lower()]
        else:
            self.unit = _unit_of(kind, token)
        return self.opened <= 1 and self.closed <= self.opened

    def valid(self) -> bool:
        """Brackets pair up, there is one sign at most, and a % or x carries no scale word."""
        ratio = self.unit in ("%", "x")
        return self.opened == self.closed and self.negative <= 1 and not (ratio and self.scale)


def _unit_of(kind: str, token: str) -> str:
    """The unit a currency sign, code or ratio suffix stands for."""
    if kind in ("pct", "word_pct"):
        return "%"
    if kind == "times":
        return "x"
    if token.lower() == "dollars":
        return "USD"
    return _SYMBOLS.get(token.lower(), token.upper())


def parse_number(text: str, scale: float = 1.0, unit: str | None = None) -> Quantity | None:
    """The number `text` writes, or None when it is not one ("—", "n/a", "1.234,5", words).

    `scale` is the table's unit (see `unit_scale`) and `unit` its currency, both used only when
    the text names none of its own: a cell's own "bn" or "$" says more than the caption. A
    percentage or a multiple ("22 %", "12.5x") is never scaled: "in thousands" is about amounts.
    A year is a number too ("2015" → 2015.0); telling years from amounts is the caller's context.
    """
    cleaned = text.translate(_MINUSES).strip()
    if len(text) > MAX_TEXT or cleaned.lower() in _NULLS or (peeled := _peel(cleaned)) is None:
        return None
    core, parts = peeled
    applied = parts.scale or (1.0 if parts.unit in ("%", "x") else scale)
    value = float(Decimal(core.replace(",", "")) * Decimal(applied))
    if not math.isfinite(value):
        return None
    signed = (-value if parts.negative else value) + 0.0  # + 0.0 turns "(0)" into 0.0, not -0.0
    return Quantity(signed, parts.unit or unit, applied, text)


def _peel(text: str) -> tuple[str, _Parts] | None:
    """Split `text` into its bare digits and what surrounds them; None when anything is off."""
    parts = _Parts()
    while (match := _PREFIX.match(text)) is not None:
        if not _take(parts, match):
            return None
        text = text[match.end() :].lstrip()
    while (match := _SUFFIX.search(text)) is not None:
        if not _take(parts, match):
            return None
        text = text[: match.start()].rstrip()
    if not parts.valid() or _CORE.fullmatch(text) is None:
        return None
    return text, parts


def _take(parts: _Parts, match: re.Match[str]) -> bool:
    """Hand the one group that matched to `parts`."""
    kind = next(name for name, token in match.groupdict().items() if token is not None)
    return parts.take(kind, match.group(kind))


_SCALE_NAME = r"(?i:(?P<word>thousand|million|billion|trillion|lakh|lac|crore)s?)"
_CAPTION_SCALES = [
    # "(in thousands, except per share data)", "in millions", "in US$ millions", "$ in millions",
    # "(In Rs. Crores)"
    re.compile(rf"\b(?i:in)\s+(?:[A-Z]{{1,3}}\$|[A-Z]{{3}}|[$€£¥₹]|Rs\.?)?\s*{_SCALE_NAME}\b"),
    re.compile(rf"\b{_SCALE_NAME}\s+(?i:of)\b"),  # "thousands of dollars", "millions of euros"
    re.compile(rf"[$€£¥₹]\s*{_SCALE_NAME}\b"),  # "$ millions", "(€ thousands)", "₹ crore"
    re.compile(rf"\(\s*{_SCALE_NAME}\s*\)"),  # "(Millions)"
    # "$ in 000s", "(€'000)", "£000", "(000s)"
    re.compile(r"(?:\b(?i:in)\s+|[$€£¥]\s*|\(\s*)(?P<code>'?000'?s?)(?![0-9])"),
    # "($m)", "(€bn)", "USD mn", "in $bn"
    re.compile(rf"(?:[$€£¥]|\b(?:{_CODES}))\s*(?P<abbr>(?i:mm|mn|bn|k|m|b))\b"),
]


def unit_scale(caption: str) -> float:
    """The multiplier a table's unit line sets for its amounts: "(in thousands, except per share
    data)" → 1000, "in millions" → 1e6, "$ in 000s" → 1000, no unit named → 1.0.

    Reports print amounts "in thousands" to keep columns narrow; a question is about the real
    amount, so a cell's value must be multiplied before it is compared, summed or shown. The
    first unit named in the caption wins ("except per share data" names none).
    """
    found = [m for pattern in _CAPTION_SCALES if (m := pattern.search(caption)) is not None]
    if not found:
        return 1.0
    first = min(found, key=lambda m: m.start())
    groups = first.groupdict()
    if groups.get("code"):
        return 1e3
    return SCALE_WORDS[(groups.get("word") or groups["abbr"]).lower()]


# A number with group separators, English or Indian, as one search token reads it
GROUPED_PATTERN = rf"{_INDIAN}|[0-9]{{1,3}}(?:,[0-9]{{3}})+(?![0-9])"
_TOKEN = re.compile(
    r"(?<![^\W_])(?i:fy)(?P<fy>[0-9]{4})(?![0-9])"
    rf"|(?<![^\W_])(?P<int>{GROUPED_PATTERN}|[0-9]+)"
    r"(?:\.(?P<frac>[0-9]+))?(?P<tail>[^\W\d_]*)"
)
_TAILS = frozenset(SCALE_WORDS) | {"x", "s", "st", "nd", "rd", "th"}


def number_tokens(text: str) -> list[str]:
    """Search tokens for the numbers in `text`, in order: "$4,180,339" → ["4180339"].

    The BM25 index (FTS5's unicode61 tokenizer, `store.sparse.words`) splits "4,180,339" into
    "4", "180" and "339", so a question asking for "4180339", or one that writes "4,180,339" next
    to a passage with "4180339", finds nothing. Giving the index and the query these tokens as
    well makes every writing of a number one word. Each token is a run of digits, so the
    tokenizer keeps it whole: thousands separators go, a decimal stays two tokens ("4.18" → "4",
    "18") as the tokenizer would split it anyway; signs, brackets, "$" and "%" go ("(1,577)" →
    "1577": the tokenizer drops "-", and a question seldom writes the minus of a loss); years
    stay as they are ("2015"), and "FY2015" gives "2015" so "fiscal 2015" finds it. Digits glued
    to letters ("Q4", "H200", "3e5") are identifiers, left to the tokenizer, except a scale or
    ordinal suffix ("12k", "3m", "12.5x", "1990s", "4th").
    """
    tokens: list[str] = []
    for match in _TOKEN.finditer(text):
        if match.group("fy"):
            tokens.append(match.group("fy"))
        elif match.group("tail").lower() in _TAILS or not match.group("tail"):
            tokens.append(match.group("int").replace(",", ""))
            tokens.extend([match.group("frac")] if match.group("frac") else [])
    return tokens


def format_number(value: float, decimals: int | None = None) -> str:
    """`value` as a report would print it: "4,180,339", "-1,577", "4.18", "0.0012".

    With `decimals` the value is rounded to that many places, half away from zero on its decimal
    digits (2.675 → "2.68", as an analyst expects, where Python's binary rounding gives 2.67).
    Without, a whole number shows none, other values two places (trailing zeros dropped), and a
    value under 1 enough places for two significant digits, so a small ratio does not show as 0.
    """
    if not math.isfinite(value):
        raise ValueError(f"cannot format {value!r}")
    exact = Decimal(repr(value))
    places = _auto_places(exact) if decimals is None else max(decimals, 0)
    context = Context(prec=max(exact.adjusted(), 0) + places + 2)
    rounded = exact.quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP, context)
    text = f"{rounded:,.{places}f}"
    if decimals is None and "." in text:
        text = text.rstrip("0").rstrip(".")
    return text[1:] if text.startswith("-") and rounded.is_zero() else text


def _auto_places(value: Decimal) -> int:
    """Decimal places to show when the caller chose none (see `format_number`)."""
    if value == value.to_integral_value():
        return 0
    if abs(value) >= 1:
        return 2
    return max(2, 1 - value.adjusted())


def format_percent(value: float, decimals: int = 1, signed: bool = False) -> str:
    """A percentage given in percent (12.5 → "12.5%"); `signed` shows "+" on a rise, as a change
    is read ("+21.8%", "-3.0%"), so the direction is not left to the reader."""
    text = format_number(value, decimals) + "%"
    rises = signed and not text.startswith("-") and text.strip("0.,%") != ""
    return "+" + text if rises else text


_STATED = re.compile(
    r"(?P<quantity>[-−+]?\s*\(?\s*[$€£₹]?\s*[-−]?\s*"
    rf"(?P<number>{NUMBER_PATTERN})"
    r"\s*\)?)(?P<tail>\s*(?:%|[A-Za-z]+))?"
)


def agrees(result: float, stated: str) -> bool:
    """Whether the model's stated result matches the computed one, to the stated precision.

    The first number in `stated` counts, read as written ("6,133,774", "21.8%") or with its own
    scale word ("$6.13 million" → 6,130,000); it agrees when it is within one unit of its last
    printed digit, so a truncated "21.8" agrees with 21.86 as a rounded one does. A result in a
    different unit (thousands computed, billions stated) must be scaled by the caller first.
    """
    match = _STATED.search(stated)
    if match is None:
        return False
    quantity = parse_number(match.group(0)) or parse_number(match.group("quantity"))
    if quantity is None:
        return False
    decimals = len(match.group("number").partition(".")[2])
    step = 10.0**-decimals
    written = quantity.value / quantity.scale
    slack = 1e-9 * abs(result)
    return abs(result - written) <= step + slack or abs(result - quantity.value) <= (
        step * quantity.scale + slack
    )
