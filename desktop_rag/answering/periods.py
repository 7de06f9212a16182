"""The fiscal year or quarter a question asks about, and that period's cells first in the table
rows the model reads.

A table row reaches the model as "Revenues — 2015: $ 4,180,339 | 2014: $ 3,431,434 | 2013:
$ 2,751,375 (in thousands)". Asked for 2013, a small model still copies the first value of the
row: the right row, the wrong column, a confident and cited wrong number. So, in the passages
of the prompt only, the cells whose column is the period asked are moved to the front of their
row ("Revenues — 2013: $ 2,751,375 | 2015: … | 2014: …"), in the order the question names the
periods ("from 2014 to 2015" puts 2014, then 2015). Nothing is added or dropped: every value
keeps its column label, so the calculation and citation checks (which read the passages'
numbers and the chunks' text, not this order) judge the answer as before; the passages the
person sees are not reordered.

A column matches when its label names that period and no other: "2015", "Fiscal 2015", "FY2015",
"Year ended December 31, 2015" for 2015; "Q3 2019" or "Third quarter 2019" for Q3 2019. A
quarter's column ("Three months ended September 30, 2019") is not its year's, a change column
("2015 vs. 2014") is neither year's, and a row that is not a rendered table row is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

# As ingest.table_model renders a row (that layer is not imported here; a test keeps them equal)
LABEL_SEP = " — "
PIECE_SEP = " | "
_UNIT_TAIL = re.compile(r" \(in (?:thousands|millions|billions)\)$")

_YEAR = r"(?:19|20)[0-9]{2}"
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4,
             "4th": 4}  # fmt: skip
_FISCAL = r"(?:(?:fiscal|fy)\s*(?:year\s*)?'?\s*)?"
_QUARTER = re.compile(
    rf"\bq(?P<q>[1-4])\s*{_FISCAL}(?P<y>{_YEAR})\b"  # "Q3 2019", "Q3 FY2019"
    rf"|\b(?P<q2>[1-4])q\s*{_FISCAL}(?P<y2>{_YEAR})\b"  # "3Q 2019"
    rf"|\b(?P<o>{'|'.join(_ORDINALS)})\s+(?:fiscal\s+)?quarter\s+(?:of\s+)?{_FISCAL}"
    rf"(?P<y3>{_YEAR})\b",  # "third quarter of fiscal 2019"
    re.IGNORECASE,
)
# A year, not an amount ("2,015", "$2015", "2015.5") nor the report's name ("the 2015 10-K")
_WHOLE_YEAR = re.compile(
    rf"(?<![\w.$])(?<!\d,)(?:fy\s*'?)?(?P<y>{_YEAR})(?![\w/%]|[.,]\d)"
    r"(?!\s+(?:form\s+)?10-?[kq]\b|\s+(?:annual\s+)?report)",
    re.IGNORECASE,
)
_SHORT_FY = re.compile(r"\bfy\s*'?(?P<yy>[0-9]{2})\b", re.IGNORECASE)  # "FY15"
_PART_OF_YEAR = re.compile(  # "52 Weeks Ended August 29, 2021" is a retailer's fiscal year
    r"\b(?:months|(?<!52 )(?<!53 )weeks|quarters?|half|semester|h[12]|ytd|year[- ]to[- ]date)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Period:
    """A fiscal year, or a quarter of one (`quarter` 1 to 4); quarter 0: some other part of
    the year (a column "Six months ended June 30, 2019"), which no question's period matches."""

    year: int
    quarter: int | None = None


def asked_periods(question: str) -> tuple[Period, ...]:
    """The periods `question` names, in its order, once each: "Q3 2019" is the quarter, not
    also the year; "FY15" is 2015. None for a question naming no year."""
    found: list[tuple[int, Period]] = []
    taken: list[tuple[int, int]] = []
    for m in _QUARTER.finditer(question):
        quarter = m.group("q") or m.group("q2") or str(_ORDINALS[m.group("o").lower()])
        year = m.group("y") or m.group("y2") or m.group("y3")
        found.append((m.start(), Period(int(year), int(quarter))))
        taken.append(m.span())
    for m in (*_WHOLE_YEAR.finditer(question), *_SHORT_FY.finditer(question)):
        if not any(a <= m.start() < b for a, b in taken):
            year = int(m.group("y")) if "y" in m.groupdict() else 2000 + int(m.group("yy"))
            found.append((m.start(), Period(year)))
    return tuple(dict.fromkeys(period for _, period in sorted(found, key=lambda f: f[0])))


def column_period(label: str) -> Period | None:
    """The one period a column label names; None for none or several ("2015 vs. 2014")."""
    periods = asked_periods(label)
    if len({p.year for p in periods}) != 1:
        return None
    quarters = {p.quarter for p in periods} - {None}
    if len(quarters) > 1:
        return None
    if quarters:
        return Period(periods[0].year, quarters.pop())
    return Period(periods[0].year, 0 if _PART_OF_YEAR.search(label) else None)


def periods_first(text: str, periods: Sequence[Period]) -> str:
    """`text` with the cells of the `periods` first in each table row (see the module text)."""
    if not periods or PIECE_SEP not in text:
        return text
    return "\n".join(_row_first(line, periods) for line in text.split("\n"))


def _row_first(line: str, periods: Sequence[Period]) -> str:
    """One line, its asked cells moved to the front when it is a row with a column per cell."""
    label, sep, body = line.rpartition(LABEL_SEP)
    unit = _UNIT_TAIL.search(body)
    cells = body[: unit.start()] if unit else body
    pieces = cells.split(PIECE_SEP)
    if len(pieces) < 2 or not all(": " in piece for piece in pieces):
        return line
    ranks = [_rank(piece.partition(": ")[0], periods) for piece in pieces]
    order = sorted(range(len(pieces)), key=lambda i: (ranks[i] is None, ranks[i] or 0, i))
    if all(rank is None for rank in ranks) or order == list(range(len(pieces))):
        return line
    moved = PIECE_SEP.join(pieces[i] for i in order)
    return f"{label}{sep}{moved}{unit.group(0) if unit else ''}"


def _rank(column: str, periods: Sequence[Period]) -> int | None:
    """The position of the column's period among those asked; None when it is not asked."""
    period = column_period(column)
    return periods.index(period) if period in periods else None
