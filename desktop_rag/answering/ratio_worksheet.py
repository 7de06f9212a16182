"""A named financial ratio worked out by the app from the statement lines in the sources.

Asked "What is Nike's FY2021 inventory turnover ratio?", the default model was given the income
statement and the balance sheet (retrieval.ratio_terms) and still divided the wrong lines. The
definition of a standard ratio is textbook knowledge, and reading its lines is exact
(llm.statement_lines), so the app does both: it finds each line's value for the year asked,
with the passage it comes from, computes the ratio with the whitelist calculator, and gives the
model the worked calculation to copy and state ("Calculation: 24,576 [3] ÷ ((6,854 [5] + 7,367
[5]) ÷ 2) = 3.46"). The answer's calculation is then checked like any other (llm.calculations):
every input must be in the passage it cites.

A formula is written over line names ("cost of sales ÷ avg(inventories)": avg is the mean of
the year's and the year before's balance, as turnover ratios are defined). Where textbooks
differ, the simplest common definition is used (return on assets over the year's total assets;
"average" in the question asks for the mean). A ratio whose lines are not all in the sources,
a question naming several periods, or one naming no known ratio gets no worksheet: the model
then writes the formula itself, as before.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from desktop_rag.answering.calc_questions import asks_percent, requested_decimals
from desktop_rag.answering.calculator import CalculationError, evaluate
from desktop_rag.answering.periods import Period, asked_periods, column_period
from desktop_rag.answering.statement_lines import LINES, LineValue, find_line
from desktop_rag.domain import Passage
from desktop_rag.text.numbers import format_number, format_percent


class Kind(StrEnum):
    RATIO = "ratio"  # 3.46
    PERCENT = "percent"  # a margin: 7.3%
    DAYS = "days"  # 52.1 days
    AMOUNT = "amount"  # working capital: 1,902,216 thousand


_DIO = "365 × avg(inventories) ÷ cost of sales"
_DSO = "365 × avg(receivables) ÷ revenue"
_DPO = "365 × avg(payables) ÷ cost of sales"
_EBITDA = "operating income + depreciation and amortization"
# (the question's words for the ratio, its formula over statement lines, its kind); first wins
_NAMED: tuple[tuple[str, str, str, Kind], ...] = (
    ("cash conversion cycle", r"cash conversion cycle", f"{_DIO} + {_DSO} - {_DPO}", Kind.DAYS),
    ("days inventory outstanding", r"days (?:of )?inventory|\bdio\b", _DIO, Kind.DAYS),
    ("days sales outstanding", r"days sales outstanding|\bdso\b", _DSO, Kind.DAYS),
    ("days payables outstanding", r"days payables? outstanding|\bdpo\b", _DPO, Kind.DAYS),
    ("inventory turnover", r"inventory turnover", "cost of sales ÷ avg(inventories)", Kind.RATIO),
    ("receivables turnover", r"receiv\w* turnover", "revenue ÷ avg(receivables)", Kind.RATIO),
    ("payables turnover", r"payables? turnover", "cost of sales ÷ avg(payables)", Kind.RATIO),
    ("fixed asset turnover", r"fixed[- ]assets? turnover",
     "revenue ÷ avg(property and equipment)", Kind.RATIO),
    ("asset turnover", r"(?<!fixed )assets? turnover", "revenue ÷ avg(total assets)", Kind.RATIO),
    ("current ratio", r"current ratio", "current assets ÷ current liabilities", Kind.RATIO),
    ("working capital", r"(?<!to )working capital(?! (?:to|ratio))",
     "current assets - current liabilities", Kind.AMOUNT),
    ("quick ratio", r"quick ratio|acid[- ]test",
     "(cash + short-term investments + receivables) ÷ current liabilities", Kind.RATIO),
    ("cash ratio", r"cash ratio", "cash ÷ current liabilities", Kind.RATIO),
    ("return on capital employed", r"return on capital employed|\broce\b",
     "operating income ÷ (total assets - current liabilities)", Kind.RATIO),
    ("return on assets", r"return on (?:(?P<avg>average) )?(?:total )?assets?|\broa\b",
     "net income ÷ total assets", Kind.RATIO),
    ("return on equity", r"return on (?:(?P<avg>average) )?(?:(?:share|stock)holders?[’']? )?"
     r"equity|\broe\b", "net income ÷ equity", Kind.RATIO),
    ("capitalization ratio", r"capitali[sz]ation ratio",
     "long-term debt ÷ (long-term debt + equity)", Kind.PERCENT),
    ("interest coverage ratio", r"interest coverage|times interest earned",
     "operating income ÷ interest expense", Kind.RATIO),
    ("EBITDA margin", r"ebitda (?:%\s*)?margin|margin before depreciation",
     f"({_EBITDA}) ÷ revenue", Kind.PERCENT),
    ("EBITDA", r"(?<!to )\bebitda\b(?!\s*(?:to|ratio)\b)", _EBITDA, Kind.AMOUNT),
    ("gross margin", r"gross (?:profit )?margin", "gross profit ÷ revenue", Kind.PERCENT),
    ("operating margin", r"operating (?:profit )?margin", "operating income ÷ revenue",
     Kind.PERCENT),
    ("net profit margin", r"net (?:profit )?margin|\bprofit margin",
     "net income ÷ revenue", Kind.PERCENT),
    ("effective tax rate", r"effective tax (?:rate|ratio)", "income taxes ÷ pretax income",
     Kind.PERCENT),
    ("free cash flow", r"free cash flow", "operating cash flow - capital expenditures",
     Kind.AMOUNT),
    ("operating cash flow ratio", r"operating cash flow ratio",
     "operating cash flow ÷ current liabilities", Kind.RATIO),
)  # fmt: skip
# The lines an "A to B ratio" may name on either side (the question's words, the formula's)
_SIDES: tuple[tuple[str, str], ...] = (
    (r"working capital", "(current assets - current liabilities)"),
    (r"gross profit", "gross profit"),
    (r"operating cash flows?|cash flows? from operations", "operating cash flow"),
    (r"operating income", "operating income"),
    (r"net income", "net income"),
    (r"interest expenses?", "interest expense"),
    (r"(?:total )?long[- ]term debt", "long-term debt"),
    (r"ebitda", f"({_EBITDA})"),
    (r"r&d(?: expenses?)?|research and development(?: expenses?)?", "research and development"),
    (r"capex|capital expenditures?", "capital expenditures"),
    (r"current liabilit(?:y|ies)", "current liabilities"),
    (r"current assets?", "current assets"),
    (r"total liabilit(?:y|ies)|liabilit(?:y|ies)", "total liabilities"),
    (r"(?:total )?(?:share|stock)holders?[’']? equity|(?:total )?equity", "equity"),
    (r"cash(?: balance| and cash equivalents)?", "cash"),
    (r"(?:total )?assets?", "total assets"),
    (r"(?:net |total )?(?:sales|revenues?)", "revenue"),
    (r"inventor(?:y|ies)", "inventories"),
)
_SIDE = "|".join(f"(?:{words})" for words, _ in _SIDES)
_A_TO_B = re.compile(
    rf"\b(?P<a>{_SIDE})\s+to\s+(?P<avg>average\s+)?(?P<b>{_SIDE})(?:\s+ratio\b|"
    r"(?=\s*(?:for|of|in)\b))",  # "… to Current Liabilitiesfor COSTCO": glued, still a side
    re.IGNORECASE,
)
_RATIO_OF = re.compile(rf"\bratio of (?P<a>{_SIDE})\s+to\s+(?P<avg>average\s+)?(?P<b>{_SIDE})\b",
                       re.IGNORECASE)  # fmt: skip
# a change, growth or comparison needs two periods' worth (the model writes that formula); a
# definition needs no number
_NOT_A_VALUE = re.compile(
    r"\b(?:chang|increas|decreas|grow|grew|declin|differ|compar|mean(?:s|ing)?\b|defin|explain|"
    r"stand for)", re.IGNORECASE)  # fmt: skip
_LINE_NAMES = sorted(LINES, key=len, reverse=True)
_TERM = re.compile(r"avg\((?P<avg>[a-z&' -]+)\)|(?P<line>" + "|".join(map(re.escape, _LINE_NAMES))
                   + ")")  # fmt: skip


@dataclass(frozen=True, slots=True)
class Worksheet:
    """A ratio worked out over the sources: `expression` with each input's citation, as the
    answer's "Calculation:" line writes it; `inputs` the statement lines read."""

    name: str
    definition: str  # the formula in words: "cost of sales ÷ average inventories"
    expression: str  # "24,576 [3] ÷ ((6,854 [5] + 7,367 [5]) ÷ 2)"
    result: float
    result_text: str  # rounded as asked: "3.46", "7.3%", "1,902,216 thousand"
    inputs: tuple[LineValue, ...]


@dataclass(frozen=True, slots=True)
class _Ratio:
    name: str
    formula: str
    kind: Kind


def worksheet(question: str, passages: Sequence[Passage]) -> Worksheet | None:
    """The ratio the question names, worked out from `passages`; None when it names none, names
    several periods, or a line it needs is in no passage's table."""
    asked = asked_worksheet(question)
    return None if asked is None else _worked(asked[0], question, passages, asked[1])


def asked_worksheet(question: str) -> tuple[_Ratio, Period | None] | None:
    """The ratio a worksheet can answer and its fiscal year (None: the latest in the tables);
    None for a change, a definition, several periods or a quarter."""
    ratio, periods = asked_ratio(question), asked_periods(question)
    if ratio is None or _NOT_A_VALUE.search(question) or len(periods) > 1:
        return None
    if any(p.quarter for p in periods):
        return None  # the ratios here are a fiscal year's
    return ratio, (periods[0] if periods else None)


def needed_lines(ratio: _Ratio) -> list[tuple[str, bool]]:
    """The statement lines of the ratio's formula, each with whether it is averaged."""
    terms = [(t.group("avg"), True) if t.group("avg") else (t.group(0), False)
             for t in _TERM.finditer(ratio.formula)]  # fmt: skip
    return list(dict.fromkeys(terms))


def asked_ratio(question: str) -> _Ratio | None:
    """The named ratio (first match), else an "A to B ratio" of two known lines."""
    text = re.sub(r"[\s_]+", " ", question)
    for name, words, formula, kind in _NAMED:
        if (match := re.search(words, text, re.IGNORECASE)) is not None:
            averaged = "avg" in match.groupdict() and match.group("avg")
            return _Ratio(name, _averaged(formula) if averaged else formula, kind)
    if (match := _A_TO_B.search(text) or _RATIO_OF.search(text)) is None:
        return None
    a, b = _side(match.group("a")), _side(match.group("b"))
    if a == b:
        return None
    b = f"avg({b})" if match.group("avg") and "(" not in b else b
    return _Ratio(f"{match.group('a')} to {match.group('b')} ratio".lower(), f"{a} ÷ {b}",
                  Kind.RATIO)  # fmt: skip


def _averaged(formula: str) -> str:
    """ "net income ÷ total assets" → "net income ÷ avg(total assets)": the balance averaged."""
    left, sep, right = formula.partition(" ÷ ")
    return f"{left}{sep}avg({right})" if sep and "(" not in right else formula


def _side(words: str) -> str:
    for pattern, formula in _SIDES:
        if re.fullmatch(pattern, words.strip(), re.IGNORECASE):
            return formula
    return words  # unreachable: the side matched one of the patterns


def _worked(
    ratio: _Ratio, question: str, passages: Sequence[Passage], period: Period | None
) -> Worksheet | None:
    values: dict[tuple[str, int], LineValue] = {}
    for line, averaged in needed_lines(ratio):
        found = find_line(passages, line, period)
        if found is None:
            return None
        period = period or column_period(found.column)  # no year asked: the first line's
        values[(line, 0)] = found
        if averaged:
            before = _year_before(passages, line, period)
            if before is None:
                return None
            values[(line, 1)] = before
    return _computed(ratio, question, values)


def _year_before(passages: Sequence[Passage], line: str, period: Period | None) -> LineValue | None:
    """The line's balance a year before `period` (for an average)."""
    return None if period is None else find_line(passages, line, Period(period.year - 1))


def _computed(
    ratio: _Ratio, question: str, values: dict[tuple[str, int], LineValue]
) -> Worksheet | None:
    inputs = tuple(values.values())
    full = len({v.scale for v in inputs}) > 1  # mixed units: every amount written in full
    cited = _substituted(ratio.formula, values, full, cite=True)
    try:
        result = evaluate(_substituted(ratio.formula, values, full, cite=False))
    except CalculationError:
        return None  # a zero denominator
    scale = 1.0 if full else inputs[0].scale
    text = _result_text(result, ratio.kind, question, scale)
    return Worksheet(ratio.name, _in_words(ratio.formula), cited, result, text, inputs)


def _substituted(
    formula: str, values: dict[tuple[str, int], LineValue], full: bool, cite: bool
) -> str:
    def number(value: LineValue) -> str:
        digits = format_number(value.amount) if full else value.text
        digits = f"-{digits}" if value.value < 0 else digits
        written = f"{digits} [{value.passage}]" if cite else digits
        return f"({written})" if value.value < 0 else written

    def term(match: re.Match[str]) -> str:
        if (line := match.group("avg")) is not None:
            return f"(({number(values[(line, 0)])} + {number(values[(line, 1)])}) ÷ 2)"
        return number(values[(match.group(0), 0)])

    return _TERM.sub(term, formula)


def _result_text(result: float, kind: Kind, question: str, scale: float) -> str:
    decimals = requested_decimals(question)
    if kind is Kind.PERCENT or (asks_percent(question) and kind is Kind.RATIO):
        return format_percent(result * 100, 1 if decimals is None else decimals)
    if kind is Kind.DAYS:
        return f"{format_number(result, 1 if decimals is None else decimals)} days"
    if kind is Kind.AMOUNT:
        unit = {1e3: " thousand", 1e6: " million", 1e9: " billion"}.get(scale, "")
        return f"{format_number(result, decimals)}{unit}"
    return format_number(result, _ratio_places(result) if decimals is None else decimals)


def _ratio_places(result: float) -> int:
    """3.46; a ratio under 1 to three significant digits: 0.0537, 0.304."""
    if abs(result) >= 1 or result == 0:
        return 2
    return max(2, 2 - math.floor(math.log10(abs(result))))


def _in_words(formula: str) -> str:
    return re.sub(r"avg\(([^)]*)\)", r"average \1", formula)
