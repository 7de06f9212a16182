"""Financial statement lines read from the table rows of the passages given to the model.

A ratio such as inventory turnover needs three numbers from two statements: cost of sales for
the year, and inventories at the year's end and the year before. A 1.5B model given the right
pages still picks the wrong lines and the wrong columns. Which line is "cost of sales" and which
column is fiscal 2021 is something code can read exactly from the rows the table pass rendered
("Cost of sales — 2021: 24,576 | 2020: 21,162 (in millions)"), with the row's passage to cite.

The names a line goes by are the usual captions of US annual reports (GAAP statements), not any
one document's. A label matches when, lower-cased and without its section prefix ("Current
assets: ") and its footnote marks, it is one of them; the first passage (the most relevant) with
a matching row and a column for the period wins.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from desktop_rag.answering.periods import LABEL_SEP, PIECE_SEP, Period, column_period
from desktop_rag.domain import Passage
from desktop_rag.text.numbers import parse_number

_A = r"(?:total )?"
_NET = r"(?:,? net)?"
_EQUITY = r"(?:share|stock)holders[’']? equity"
# canonical name -> the captions it goes by (regular expressions, matched whole)
LINES: dict[str, str] = {
    "revenue": rf"{_A}(?:net )?(?:revenues?|sales|net sales|revenues?, net)",
    "cost of sales": rf"{_A}cost of (?:sales|revenues?|goods sold|products sold)",
    "gross profit": r"gross (?:profit|margin)",
    "operating income": rf"{_A}operating income(?: \(loss\))?|income from operations"
                        r"|income \(loss\) from operations",
    "net income": r"net (?:income|earnings)(?: \(loss\))?(?: attributable to [\w.,&' ]+)?",
    "interest expense": r"interest expense(?:, net)?",
    "pretax income": r"(?:income|earnings)(?: \(loss\))?(?: from continuing operations)? "
                     r"before (?:provision for )?income tax(?:es| expense)?(?: provision)?"
                     r"(?: and [\w ]+)?",
    "income taxes": r"(?:provision for|\(?benefit\)? ?provision for) income taxes"
                    r"|income tax (?:expense|provision)|provision \(benefit\) for income taxes"
                    r"|income taxes",
    "depreciation and amortization": r"depreciation(?:,)? (?:and|&) amortization(?: expense)?"
                                     r"(?: of [\w ,]+)?|depreciation of [\w ,-]+amortization\b.*",
    "research and development": r"research(?:,)? (?:and|&) development(?: expenses?)?",
    "inventories": r"(?:merchandise )?inventor(?:y|ies)(?:, net)?",
    "receivables": rf"{_A}(?:accounts )?receivables?{_NET}(?: and other)?"
                   rf"|accounts receivable{_NET}(?: and other)?",
    "payables": r"accounts payable",
    "cash": r"cash and (?:cash )?equivalents",
    "short-term investments": r"short-term investments|marketable securities",
    "current assets": r"total current assets",
    "current liabilities": r"total current liabilities",
    "total assets": r"total assets",
    "total liabilities": r"total liabilities",
    "long-term debt": r"long-term debt(?:, net)?(?:,? (?:less|excluding|net of) current "
                      r"(?:portion|maturities))?",
    "equity": rf"total (?:[\w.&' ]+ )?{_EQUITY}|total equity|{_EQUITY}, total",
    "property and equipment": r"property(?:,)? (?:plant )?(?:and|&) equipment"
                              rf"(?: and finance leases)?{_NET}",
    "operating cash flow": r"net cash (?:provided by|from|provided by \(used in\)) "
                           r"operating activities|cash provided by operations",
    "capital expenditures": r"(?:purchases of|additions to|acquisitions? of) property"
                            r"(?:,)? (?:plant )?(?:and|&) equipment|capital expenditures",
}  # fmt: skip
# The primary statements, by the title line of their table chunks
_STATEMENT = re.compile(
    r"balance sheets?|statements? of (?:consolidated )?(?:financial (?:position|condition)|"
    r"income|operations|earnings|comprehensive income|cash flows?)|income statements?",
    re.IGNORECASE,
)
_COMPILED = {name: re.compile(rf"(?:{pattern})", re.IGNORECASE) for name, pattern in LINES.items()}
# The statement each line is read from first (a cash flow statement's "Accounts payable" is the
# year's change, not the balance; its "Net income" is the income statement's, but comes second)
BALANCE, INCOME, CASH_FLOWS = "balance", "income", "cash flows"
_STATEMENT_OF = {
    "depreciation and amortization": CASH_FLOWS, "operating cash flow": CASH_FLOWS,
    "capital expenditures": CASH_FLOWS, "revenue": INCOME, "cost of sales": INCOME,
    "gross profit": INCOME, "operating income": INCOME, "net income": INCOME,
    "interest expense": INCOME, "pretax income": INCOME, "income taxes": INCOME,
    "research and development": INCOME,
}  # fmt: skip
# Expenses and outflows are printed either way round ("(769)" or "769"); a ratio uses the amount
EXPENSES = frozenset({"cost of sales", "interest expense", "income taxes", "capital expenditures",
                      "research and development", "depreciation and amortization"})  # fmt: skip
_KINDS = (
    (BALANCE, re.compile(r"balance sheets?|financial (?:position|condition)", re.IGNORECASE)),
    (CASH_FLOWS, re.compile(r"cash flows?", re.IGNORECASE)),
    (INCOME, re.compile(r"income|operations|earnings", re.IGNORECASE)),
)
_CHANGES = re.compile(r"^(?:increase|decrease|\(increase\)|changes?)\b.*:", re.IGNORECASE)
_FOOTNOTE = re.compile(r"\s*(?:\(\d\)|\*+|\[\d\])\s*$")
_UNIT_TAIL = re.compile(r"\s*\(in (thousands|millions|billions)\)$")
_SCALES = {"thousands": 1e3, "millions": 1e6, "billions": 1e9}


@dataclass(frozen=True, slots=True)
class TableRow:
    """One rendered row: its label, its (column, value as printed) cells and its unit."""

    label: str
    cells: tuple[tuple[str, str], ...]
    scale: float  # 1e3 for a row "(in thousands)"; 1 when none is stated


@dataclass(frozen=True, slots=True)
class LineValue:
    """A statement line's value for one period, as printed, with the passage to cite."""

    line: str  # canonical name ("cost of sales")
    label: str  # as printed ("Cost of sales")
    column: str  # the column label ("2021")
    text: str  # the number as printed ("24,576", "(1,577)")
    value: float  # signed, in the row's unit
    scale: float  # the row's unit
    passage: int  # the passage's number n

    @property
    def amount(self) -> float:
        """The value in full (units cancel in a ratio only once all are in full)."""
        return self.value * self.scale


def is_statement(text: str) -> bool:
    """Whether a table chunk's title line names a primary statement ("CONSOLIDATED BALANCE
    SHEETS (In millions)"), where a ratio's lines are read first."""
    return statement_kind(text) is not None


def statement_kind(text: str) -> str | None:
    """BALANCE, INCOME or CASH_FLOWS for a primary statement's table chunk; None otherwise."""
    title = text.lstrip().split("\n", 1)[0]
    if LABEL_SEP in title or _STATEMENT.search(title) is None:
        return None
    return next(kind for kind, words in _KINDS if words.search(title))


def table_rows(text: str) -> Iterator[TableRow]:
    """The rendered table rows of a passage's text; other lines are skipped."""
    for line in text.split("\n"):
        label, sep, body = line.rpartition(LABEL_SEP)
        if not sep or not label.strip():
            continue
        unit = _UNIT_TAIL.search(body)
        cells = body[: unit.start()] if unit else body
        pieces = [piece.partition(": ") for piece in cells.split(PIECE_SEP)]
        if not all(colon for _, colon, _ in pieces):
            continue
        scale = _SCALES[unit.group(1)] if unit else 1.0
        yield TableRow(label.strip(), tuple((c.strip(), v.strip()) for c, _, v in pieces), scale)


def matches(line: str, label: str) -> bool:
    """Whether a row label is one of the captions of the statement line `line` (not a change
    in it: "Changes in operating assets and liabilities: Accounts payable")."""
    if _CHANGES.match(label):
        return False
    name = _FOOTNOTE.sub("", label.rsplit(": ", 1)[-1]).strip(" :")
    return _COMPILED[line].fullmatch(" ".join(name.split())) is not None


def find_line(
    passages: Sequence[Passage], line: str, period: Period | None, own_only: bool = False
) -> LineValue | None:
    """The value of `line` for `period` (the first column when None) in the first passage with
    a row of that line and a column of that period: first among the passages of the line's own
    statement (the balance sheet for a balance), then (unless `own_only`) among the others."""
    own = _STATEMENT_OF.get(line, BALANCE)
    ordered = sorted(passages, key=lambda p: statement_kind(p.text) != own)  # stable
    if own_only:
        ordered = [p for p in ordered if statement_kind(p.text) == own]
    for passage in ordered:
        for row in table_rows(passage.text):
            if matches(line, row.label) and (found := _cell(row, period)) is not None:
                column, text, value = found
                value = abs(value) if line in EXPENSES else value
                return LineValue(line, row.label, column, text, value, row.scale, passage.n)
    return None


def _cell(row: TableRow, period: Period | None) -> tuple[str, str, float] | None:
    """(column, value as printed, signed value) of the row's cell for `period`."""
    for column, text in row.cells:
        if period is not None and column_period(column) != period:
            continue
        quantity = parse_number(text)
        if quantity is not None:
            return column, _number_part(text), quantity.value
        if period is None:
            return None
    return None


def _number_part(text: str) -> str:
    """The digits of a printed value ("$ 4,180,339" → "4,180,339", "(1,577)" → "1,577")."""
    match = re.search(r"[0-9][0-9,]*(?:\.[0-9]+)?", text)
    return match.group(0) if match else text
