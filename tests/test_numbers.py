"""Numbers as reports print them: parsing, table units, search tokens, formatting, agreement."""

from __future__ import annotations

import dataclasses
import math
import random

import pytest

from desktop_rag.text.numbers import (
    Quantity,
    agrees,
    format_number,
    format_percent,
    number_tokens,
    parse_number,
    unit_scale,
)
from desktop_rag.text.words import words

PARSED = [
    # plain and grouped
    ("4,180,339", 4180339.0, None, 1.0),
    ("4180339", 4180339.0, None, 1.0),
    ("  4,180,339 ", 4180339.0, None, 1.0),
    ("4,180,339\u00a0", 4180339.0, None, 1.0),
    ("0.5", 0.5, None, 1.0),
    (".5", 0.5, None, 1.0),
    ("0", 0.0, None, 1.0),
    ("2015", 2015.0, None, 1.0),
    ("1,234.56", 1234.56, None, 1.0),
    # currencies
    ("$ 4,180,339", 4180339.0, "USD", 1.0),
    ("$4,180,339", 4180339.0, "USD", 1.0),
    ("US$1.2", 1.2, "USD", 1.0),
    ("USD 4.2", 4.2, "USD", 1.0),
    ("4.2 USD", 4.2, "USD", 1.0),
    ("5 dollars", 5.0, "USD", 1.0),
    ("€12", 12.0, "EUR", 1.0),
    ("£3", 3.0, "GBP", 1.0),
    ("¥500", 500.0, "JPY", 1.0),
    ("eur 7", 7.0, "EUR", 1.0),
    # scale words
    ("$4.18 bn", 4.18e9, "USD", 1e9),
    ("1.2 bn", 1.2e9, None, 1e9),
    ("1.2 billion", 1.2e9, None, 1e9),
    ("1.2B", 1.2e9, None, 1e9),
    ("3m", 3e6, None, 1e6),
    ("3M", 3e6, None, 1e6),
    ("3 million", 3e6, None, 1e6),
    ("2 mm", 2e6, None, 1e6),
    ("2.5mn", 2.5e6, None, 1e6),
    ("12k", 12e3, None, 1e3),
    ("12K", 12e3, None, 1e3),
    ("12 thousand", 12e3, None, 1e3),
    ("1.5 trillion", 1.5e12, None, 1e12),
    ("USD 4.2m", 4.2e6, "USD", 1e6),
    ("€12.5m", 12.5e6, "EUR", 1e6),
    ("£3bn", 3e9, "GBP", 1e9),
    # negatives
    ("(1,577)", -1577.0, None, 1.0),
    ("$(1,577)", -1577.0, "USD", 1.0),
    ("($1,577)", -1577.0, "USD", 1.0),
    ("( 1,577 )", -1577.0, None, 1.0),
    ("−1,577", -1577.0, None, 1.0),
    ("-1,577", -1577.0, None, 1.0),
    ("–1,577", -1577.0, None, 1.0),
    ("-$1,577", -1577.0, "USD", 1.0),
    ("$-1,577", -1577.0, "USD", 1.0),
    ("+5", 5.0, None, 1.0),
    ("(2.5)%", -2.5, "%", 1.0),
    ("$(1.2) bn", -1.2e9, "USD", 1e9),
    # percentages and multiples
    ("22 %", 22.0, "%", 1.0),
    ("22%", 22.0, "%", 1.0),
    ("-3.5%", -3.5, "%", 1.0),
    ("22 percent", 22.0, "%", 1.0),
    ("22 per cent", 22.0, "%", 1.0),
    ("22 pct", 22.0, "%", 1.0),
    ("12.5x", 12.5, "x", 1.0),
    ("12.5×", 12.5, "x", 1.0),
    ("3 X", 3.0, "x", 1.0),
    # the Indian grouping, rupees, lakhs and crores
    ("3,02,16,492", 30216492.0, None, 1.0),
    ("3,02,16,492.00", 30216492.0, None, 1.0),
    ("12,34,567", 1234567.0, None, 1.0),
    ("1,23,456", 123456.0, None, 1.0),
    ("₹ 3,02,16,492", 30216492.0, "INR", 1.0),
    ("Rs. 45,000", 45000.0, "INR", 1.0),
    ("Rs 1,23,456", 123456.0, "INR", 1.0),
    ("(1,23,456)", -123456.0, None, 1.0),
    ("12.5 lakh", 1250000.0, None, 1e5),
    ("45 crore", 450000000.0, None, 1e7),
    ("₹ 2,500 crores", 25000000000.0, "INR", 1e7),
    ("Rs. 155.98 lacs", 15598000.0, "INR", 1e5),
]


@pytest.mark.parametrize(("text", "value", "unit", "scale"), PARSED)
def test_parse_number_reads_report_forms(
    text: str, value: float, unit: str | None, scale: float
) -> None:
    assert parse_number(text) == Quantity(value, unit, scale, text)


NOT_NUMBERS = [
    "", "   ", "—", "-", "–", "−", "--", "n/a", "N/A", "na", "NM", "n.m.", "nil", "*", "…",
    "1.234,5",  # European formatting is out of scope: no silent 1000-fold error
    "4 180 339", "1,23", "1,2345", "12,34,56", "1,23,45,6", "123,45,678", ",5", "1,000,", "3.",
    "1.2.3", "Rs", "Rs.", "Rsx5", "₹",
    "1e6", "3e5", "0x1F", "abc", "12 apples", "Revenues", "$", "%", "()", "x",
    "(1,577", "1,577)", "((1))", "-(1,577)", "--5", "+-5", "$$5", "$5 USD", "12%%",
    "5 bn bn", "22% bn", "12x m", "5 bn%", "٣", "²", "9" * 100, "1" * 65,
]  # fmt: skip


@pytest.mark.parametrize("text", NOT_NUMBERS)
def test_parse_number_refuses_what_is_not_one_number(text: str) -> None:
    assert parse_number(text) is None


SCALED = [
    # (text, table scale, table unit) -> (value, unit, scale applied)
    ("4,180,339", 1e3, None, 4180339000.0, None, 1e3),
    ("$ 4,180,339", 1e3, None, 4180339000.0, "USD", 1e3),
    ("(1,577)", 1e3, None, -1577000.0, None, 1e3),
    ("0.1", 1e3, None, 100.0, None, 1e3),
    ("4,180,339", 1e6, "USD", 4180339e6, "USD", 1e6),
    ("€5", 1.0, "USD", 5.0, "EUR", 1.0),  # the cell's own currency wins
    ("$4.18 bn", 1e3, None, 4.18e9, "USD", 1e9),  # the cell's own scale wins
    ("22%", 1e3, "USD", 22.0, "%", 1.0),  # percentages are never scaled
    ("12.5x", 1e6, None, 12.5, "x", 1.0),
    ("2015", 1.0, None, 2015.0, None, 1.0),
]


@pytest.mark.parametrize(("text", "scale", "unit", "value", "out_unit", "applied"), SCALED)
def test_parse_number_applies_the_table_unit(
    text: str, scale: float, unit: str | None, value: float, out_unit: str | None, applied: float
) -> None:
    found = parse_number(text, scale=scale, unit=unit)
    assert found == Quantity(value, out_unit, applied, text)


def test_quantity_is_frozen_and_zero_in_brackets_is_not_negative_zero() -> None:
    zero = parse_number("(0)")
    assert zero is not None and math.copysign(1.0, zero.value) == 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        zero.value = 1.0  # type: ignore[misc]


def test_scaled_values_are_exact_not_float_products() -> None:
    assert parse_number("4.18 bn") == Quantity(4180000000.0, None, 1e9, "4.18 bn")
    assert parse_number("0.07", scale=1e3) == Quantity(70.0, None, 1e3, "0.07")


CAPTIONS = [
    ("(in thousands, except per share data)", 1e3),
    ("(In thousands)", 1e3),
    ("in millions", 1e6),
    ("in billions", 1e9),
    ("(Dollars in millions, except per share amounts)", 1e6),
    ("$ in millions", 1e6),
    ("in US$ millions", 1e6),
    ("in USD millions", 1e6),
    ("(€ thousands)", 1e3),
    ("$ millions", 1e6),
    ("(Millions)", 1e6),
    ("Thousands of dollars", 1e3),
    ("amounts in millions of euros", 1e6),
    ("in trillions", 1e12),
    ("$ in 000s", 1e3),
    ("(€'000)", 1e3),
    ("£000", 1e3),
    ("(000s)", 1e3),
    ("in 000's", 1e3),
    ("($m)", 1e6),
    ("(€bn)", 1e9),
    ("USD mn", 1e6),
    ("in $bn", 1e9),
    ("Domestic Streaming Segment (in thousands)", 1e3),
    ("in thousands; shares in millions", 1e3),  # the first unit named wins
    ("", 1.0),
    ("none", 1.0),
    ("Revenues", 1.0),
    ("Year ended December 31, 2015", 1.0),
    ("in the millions", 1.0),
    ("in 3 million homes", 1.0),
    ("Streaming revenue grew in 2015", 1.0),
    ("within millions", 1.0),
    ("$ 4,000", 1.0),
    ("(Rs. in lakhs)", 1e5),
    ("Rupees in lacs", 1e5),
    ("(₹ in crores)", 1e7),
    ("(In Rs. Crores)", 1e7),
    ("₹ crore", 1e7),
]


@pytest.mark.parametrize(("caption", "scale"), CAPTIONS)
def test_unit_scale_reads_the_table_unit_line(caption: str, scale: float) -> None:
    assert unit_scale(caption) == scale


def test_unit_scale_feeds_parse_number() -> None:
    scale = unit_scale("(in thousands, except per share data)")
    found = parse_number("$ 4,180,339", scale=scale)
    assert found is not None and found.value == 4_180_339_000.0


TOKENS = [
    ("$4,180,339", ["4180339"]),
    ("4,180,339", ["4180339"]),
    ("4180339", ["4180339"]),
    ("2015", ["2015"]),
    ("(1,577)", ["1577"]),
    ("−1,577", ["1577"]),
    ("22 %", ["22"]),
    ("22%", ["22"]),
    ("4.18", ["4", "18"]),
    ("1,234.5", ["1234", "5"]),
    ("FY2015", ["2015"]),
    ("fy2016 results", ["2016"]),
    ("FY 2015", ["2015"]),
    ("Q4", []),
    ("H200", []),
    ("3e5", []),
    ("iPhone15", []),
    ("12k", ["12"]),
    ("3m", ["3"]),
    ("$4.18 bn", ["4", "18"]),
    ("12.5x", ["12", "5"]),
    ("1990s", ["1990"]),
    ("4th", ["4"]),
    ("2015-2014", ["2015", "2014"]),
    ("12/31/2015", ["12", "31", "2015"]),
    ("1,2345", ["1", "2345"]),
    ("Revenues $ 4,180,339 $ 3,431,434 $ 2,751,375", ["4180339", "3431434", "2751375"]),
    ("Rs. 3,02,16,492.00", ["30216492", "00"]),
    ("12,34,567 and 1,234,567", ["1234567", "1234567"]),
    ("no numbers here", []),
    ("", []),
]


@pytest.mark.parametrize(("text", "tokens"), TOKENS)
def test_number_tokens(text: str, tokens: list[str]) -> None:
    assert number_tokens(text) == tokens


@pytest.mark.parametrize(("text", "tokens"), TOKENS)
def test_number_tokens_survive_the_bm25_tokenizer(text: str, tokens: list[str]) -> None:
    found = number_tokens(text)
    assert words(" ".join(found)) == found


def test_every_writing_of_a_number_gives_the_same_token() -> None:
    rng = random.Random(16)
    for _ in range(500):
        n = rng.randrange(10 ** rng.randint(1, 12))
        forms = [f"{n:,}", str(n), f"${n:,}", f"$ {n:,}", f"({n:,})", f"−{n:,}", f"{n:,}%"]
        assert {tuple(number_tokens(form)) for form in forms} == {(str(n),)}


FORMATTED = [
    (4180339, None, "4,180,339"),
    (4180339.0, None, "4,180,339"),
    (-1577, None, "-1,577"),
    (4.18, None, "4.18"),
    (4.1, None, "4.1"),
    (4.0, None, "4"),
    (123.456, None, "123.46"),
    (0.5, None, "0.5"),
    (0.0012, None, "0.0012"),
    (0.000123, None, "0.00012"),
    (-0.0, None, "0"),
    (1e15, None, "1,000,000,000,000,000"),
    (4180339, 2, "4,180,339.00"),
    (2.675, 2, "2.68"),  # half up on the decimal digits, not binary rounding's 2.67
    (2.665, 2, "2.67"),
    (0.125, 2, "0.13"),
    (1234.5, 0, "1,235"),
    (-1234.5, 0, "-1,235"),
    (1234.5678, 1, "1,234.6"),
    (21.824840576855042, 1, "21.8"),
    (-0.001, 2, "0.00"),
    (5, -1, "5"),
]


@pytest.mark.parametrize(("value", "decimals", "text"), FORMATTED)
def test_format_number(value: float, decimals: int | None, text: str) -> None:
    assert format_number(value, decimals) == text


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_format_number_refuses_non_finite(value: float) -> None:
    with pytest.raises(ValueError, match="cannot format"):
        format_number(value)


@pytest.mark.parametrize(
    ("value", "decimals", "signed", "text"),
    [
        (21.824840576855042, 1, False, "21.8%"),
        (21.824840576855042, 1, True, "+21.8%"),
        (-3, 1, True, "-3.0%"),
        (0.0, 1, True, "0.0%"),
        (0.01, 1, True, "0.0%"),
        (12.5, 0, False, "13%"),
        (-0.04, 1, False, "0.0%"),
    ],
)
def test_format_percent(value: float, decimals: int, signed: bool, text: str) -> None:
    assert format_percent(value, decimals, signed) == text


def test_formatted_numbers_parse_back() -> None:
    rng = random.Random(3)
    for _ in range(1000):
        value = rng.randrange(-(10**12), 10**12) / 100
        parsed = parse_number(format_number(value, 2))
        assert parsed is not None and parsed.value == value


AGREEMENT = [
    (6133774, "6,133,774", True),
    (6133774, "6,133,774 thousand", True),
    (6133774, "$6,133,774 (in thousands)", True),
    (6133774, "$6.13 million", True),
    (6133774, "6,033,774", False),
    (21.824840576855042, "21.8%", True),
    (21.824840576855042, "≈ 21.8%", True),
    (21.824840576855042, "about 22%", True),
    (21.86, "21.8%", True),  # truncated, not rounded: still the same result
    (21.95, "21.8%", False),
    (-1577, "(1,577)", True),
    (-1577, "−1,577", True),
    (-1577, "1,577", False),
    (2.5, "2.5x", True),
    (1, "no number", False),
    (5, "", False),
]


@pytest.mark.parametrize(("result", "stated", "agreed"), AGREEMENT)
def test_agrees(result: float, stated: str, agreed: bool) -> None:
    assert agrees(result, stated) is agreed


def test_parse_number_never_raises_on_random_text() -> None:
    rng = random.Random(7)
    alphabet = "0123456789,.()$€%-−+ xkmbn/aé\u00a0"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        found = parse_number(text)
        assert found is None or math.isfinite(found.value)
        assert isinstance(number_tokens(text), list)
