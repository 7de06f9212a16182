"""Tables as data, and the text each row is indexed as.

A table flattened into lines loses what each number is: the header row (2015 / 2014), the unit
("in thousands") and the row label end up far from the numbers, in other chunks. So a table is
kept as rows of (column label, cell) pairs, and each row is rendered as one self-describing line,
"Revenues — 2015: $ 4,180,339 | 2014: $ 3,431,434 (in thousands)", that BM25, the embedder and
the model all read whole. Pieces are joined by " | ": the sentence splitter splits after ";",
and commas are thousands separators. Each piece keeps its cell's box, so a citation of a row
(or of one value) can be highlighted on the page.

`shape_table` reads a table finder's grid of cells the way an analyst does: which rows are the
header, each column's label, which rows head sections, which cells hold values. Pure Python; the
PyMuPDF side is `table_extract`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in PDF points, top-left origin

LABEL_SEP = " — "
PIECE_SEP = " | "
_UNIT = re.compile(
    r"\b(?:dollars in|amounts in|in)\s+(thousands|millions|billions)\b[^()]*", re.IGNORECASE
)
_EMPTY_VALUE = re.compile(r"[\s$—–-]*%?")  # "—", "-", "—%", a lone "$": nothing stated
_STRAY_DOLLAR = re.compile(r"\s*\$$")  # "1,658,744 $": the next column's "$"
_DOT_LEADER = re.compile(r"\s*\.{3,}$")  # "Revenues ........"
_PERCENT = re.compile(r".*\d\)?\s*%\)?")
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
_DIGIT = re.compile(r"\d")
_SPREAD = re.compile(r"\s*(?:\(±?\s*[\d.,]+\s*%?\)|±\s*[\d.,]+\s*%?)$")
_NUMBER = re.compile(r"[\s$(]*[-−–]?\$?\s*[\d.,]*\d[\d.,]*\s*\)?\s*%?\)?")
_DATE = re.compile(
    r"\b(?:(?:19|20)\d\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)", re.IGNORECASE
)
_RENDERED_ROW = re.compile(rf"(?:{LABEL_SEP}|{re.escape(PIECE_SEP)})[^|:]{{1,80}}: \S")
MAX_HEADER_ROWS = 4
SECTION_PREFIX = 40  # a longer section label is not repeated on its rows


@dataclass(frozen=True, slots=True)
class TableCell:
    text: str
    box: Box


@dataclass(frozen=True, slots=True)
class TableRow:
    label: TableCell | None  # the row label cell ("Revenues"); None when the row has none
    values: tuple[tuple[str, TableCell], ...]  # (column label, cell) for each non-empty value
    section: bool = False  # a label-only row heading the rows below ("Contribution profit:")
    parent: str = ""  # the label of the section row above this row, "" when none


@dataclass(frozen=True, slots=True)
class TableBlock:
    page: int  # 1-based
    bbox: Box
    caption: str  # heading line(s) above the table, "" when none (without the unit)
    unit: str  # e.g. "in thousands, except per share data"; "" when none
    columns: tuple[str, ...]  # one label per grid column (the first is usually "")
    rows: tuple[TableRow, ...]
    markdown: str  # the grid as a Markdown table (header and rows)


@dataclass(frozen=True, slots=True)
class RenderedRow:
    text: str
    spans: tuple[tuple[int, int, Box], ...]  # (start, end) in text -> the cell's box


def find_unit(text: str) -> tuple[str, str]:
    """(text without its unit, unit): "Revenue (in millions, except per share data)" ->
    ("Revenue", "in millions, except per share data"); (text, "") when it states none."""
    match = _UNIT.search(text)
    if match is None:
        return text, ""
    unit = match.group(0).strip().rstrip(",;:")
    rest = f"{text[: match.start()].rstrip(' (')} {text[match.end() :].lstrip(' )')}"
    return rest.strip(), unit


def unit_short(unit: str) -> str:
    """The magnitude alone, for every row: "in thousands, except per share data" -> "in
    thousands"; "" when the unit states no magnitude."""
    match = _UNIT.search(unit)
    return f"in {match.group(1).lower()}" if match else ""


def cell_text(text: str) -> str:
    """A cell's text on one line, without a dot leader."""
    return _DOT_LEADER.sub("", " ".join(text.split()))


def cell_value(text: str) -> str:
    """A value as printed ("(1,577)", "$ 4,180,339", "22 %"), less a stray trailing "$";
    "" for a dash or a lone "$" (nothing to state)."""
    value = _STRAY_DOLLAR.sub("", cell_text(text))
    return "" if _EMPTY_VALUE.fullmatch(value) else value


def render_title(block: TableBlock) -> str:
    """What the table is: its caption and unit, "Table" when neither is known."""
    caption = block.caption or "Table"
    return f"{caption} ({block.unit})" if block.unit else caption


def render_row(row: TableRow, unit_short: str) -> RenderedRow:
    """One row as a line of text; spans map its label and each value piece to their cells."""
    text, spans = _label_part(row)
    for index, (column, cell) in enumerate(row.values):
        if text:
            text += PIECE_SEP if index else LABEL_SEP
        piece = f"{column}: {cell.text}" if column else cell.text
        spans.append((len(text), len(text) + len(piece), cell.box))
        text += piece
    if row.values and unit_short and not _all_percent(row):
        text += f" ({unit_short})"
    return RenderedRow(text, tuple(spans))


def is_table_row(line: str) -> bool:
    """Whether a line of a chunk is a table's row as `render_row` writes it: a separator, then
    a "column: value" piece (so prose with a dash, or a running header "Report | 12", is not)."""
    return _RENDERED_ROW.search(line) is not None


def _label_part(row: TableRow) -> tuple[str, list[tuple[int, int, Box]]]:
    """The label, after its section's ("Memberships: Net additions") unless it repeats it."""
    if row.label is None:
        return "", []
    prefix = _section_prefix(row.parent, row.label.text)
    end = len(prefix) + len(row.label.text)
    return prefix + row.label.text, [(len(prefix), end, row.label.box)]


def _section_prefix(parent: str, label: str) -> str:
    """ "Current assets: " before "Cash", not before "Total current assets"."""
    core = parent.rstrip(" :")
    if not core or core.lower() in label.lower():
        return ""
    return f"{core}: "


def _all_percent(row: TableRow) -> bool:
    """Percentages are not in the table's magnitude unit."""
    return all(_PERCENT.fullmatch(cell.text) for _, cell in row.values)


def markdown_table(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub Markdown table: the column labels, then the rows (padded to the width)."""
    width = len(columns)
    lines = [_markdown_line(columns), "|" + " --- |" * width]
    lines += [_markdown_line([*row, *[""] * (width - len(row))][:width]) for row in rows]
    return "\n".join(lines)


def _markdown_line(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


Slot = tuple[int, TableCell]  # (serial of the placed cell, cell): a spanning cell's slots share it
Grid = list[list[Slot]]


class Shaped(NamedTuple):
    columns: tuple[str, ...]
    rows: tuple[TableRow, ...]
    markdown: str


def shape_table(rows: Grid, header_rows: int) -> Shaped | None:
    """A table finder's grid (its unit rows out) read as a reader would: the header rows
    (those declared that are not data, and any more of column labels) giving each column its
    label, empty columns dropped, then the label and value cells of each row. None when no
    two columns hold anything."""
    header_rows = _header_count(rows, header_rows)
    columns = _column_labels(rows[:header_rows], len(rows[0]))
    body = rows[header_rows:]
    cells = [_row_cells(row) for row in body]
    keep = [0, *(c for c in range(1, len(columns)) if any(row[c] for row in cells))]
    if len(keep) < 2:
        return None
    kept = tuple(columns[c] for c in keep)
    grid_text = [[cell.text if (cell := row[c]) else "" for c in keep] for row in cells if any(row)]
    return Shaped(kept, _table_rows(body, columns, keep), markdown_table(kept, grid_text))


def unique(row: list[Slot]) -> list[Slot]:
    """One slot per cell (a spanning cell fills several)."""
    return list({serial: (serial, cell) for serial, cell in row}.values())


def _header_count(rows: Grid, declared: int) -> int:
    """The declared header rows up to the first that is data ("2016 | 42,545"), then any
    more rows of column labels."""
    count = next((r for r in range(declared) if _data_like(rows[r])), declared)
    while count < min(len(rows) - 1, MAX_HEADER_ROWS) and _header_like(rows[count]):
        count += 1
    if count == 0 and len(rows) > 1 and _named_columns(rows[0]) and _has_amounts(rows[1]):
        count = 1
    return count


def _named_columns(row: list[Slot]) -> bool:
    """A first row that names its columns, the first one too ("Method | MMLU Physics | MMLU
    Chemistry"): words only, no number and no year."""
    values = _values(row)
    texts = [row[0][1].text, *values]
    return bool(values) and all(t and not _DIGIT.search(t) for t in texts)


def _has_amounts(row: list[Slot]) -> bool:
    """Numbers after the label, a value with its spread too ("66.4% (0.8%)", "0.73 ± 0.02")."""
    return any(_amount(_SPREAD.sub("", cell_value(value))) for value in _values(row))


def _data_like(row: list[Slot]) -> bool:
    values = [value for value in map(cell_value, _values(row)) if value]
    return bool(row[0][1].text) and (not values or any(_amount(value) for value in values))


def _amount(text: str) -> bool:
    return bool(_NUMBER.fullmatch(text)) and not _YEAR.search(text)


def _values(row: list[Slot]) -> list[str]:
    """The texts of the row's cells after its label."""
    return [cell.text for serial, cell in unique(row) if serial != row[0][0] and cell.text]


def _header_like(row: list[Slot]) -> bool:
    """A row of column labels: no row label (unless its labels are years: "Fiscal year | 2021
    | 2020"), and words or dates ("MAY | 31,"), not numbers."""
    values = _values(row)
    if not values:
        return False
    if row[0][1].text:
        return all(_YEAR.search(value) for value in values)
    return _DATE.search(" ".join(values)) is not None or not any(map(_amount, values))


def _column_labels(header: Grid, width: int) -> list[str]:
    """Each column's lowest header text ("2015" under "Year Ended December 31,"); where other
    columns' cells say the same, the text above it too ("Domestic Streaming", "International
    Streaming")."""
    rows = [_rejoined(row) for row in header]
    levels = [[slot for slot in (row[c] for row in rows) if slot[1].text] for c in range(width)]
    lowest = [column[-1] for column in levels if column]
    return [_column_label(column, lowest) for column in levels]


def _column_label(levels: list[Slot], lowest: list[Slot]) -> str:
    if not levels:
        return ""
    serial, cell = levels[-1]
    shared = any(other.text == cell.text and number != serial for number, other in lowest)
    return f"{levels[-2][1].text} {cell.text}" if shared and len(levels) > 1 else cell.text


def _rejoined(row: list[Slot]) -> list[Slot]:
    """A label cut in two ("2014 vs." | "2013") made one cell again."""
    out = list(row)
    for c in range(len(out) - 1):
        (serial, left), (other, right) = out[c], out[c + 1]
        if left.text.endswith(("vs.", " vs")) and right.text and other != serial:
            box = (left.box[0], left.box[1], right.box[2], right.box[3])
            out[c] = out[c + 1] = (serial, TableCell(f"{left.text} {right.text}", box))
    return out


def _row_cells(row: list[Slot]) -> list[TableCell | None]:
    """The row's label and values, cleaned; None for an empty slot or the rest of a span. A
    "$" in a column of its own goes with the number after it, a "%" cut off the number before
    it ("19" | "% $ 39,117") back to it."""
    seen: set[int] = set()
    out: list[TableCell | None] = []
    dollar: TableCell | None = None
    for index, (serial, cell) in enumerate(row):
        text = _STRAY_DOLLAR.sub("", cell.text) if index == 0 else cell_value(cell.text)
        first, box = serial not in seen, cell.box
        seen.add(serial)
        if dollar is not None and text and first:
            text, box = f"$ {text}", (dollar.box[0], box[1], box[2], box[3])
        if index > 1 and text.startswith("% ") and (left := out[-1]) and left.text[-1:].isdigit():
            out[-1], text = TableCell(f"{left.text} %", left.box), cell_value(text[2:])
        dollar = cell if index and first and cell.text == "$" else None
        out.append(TableCell(text, box) if text and first else None)
    return out


def _table_rows(rows: Grid, columns: list[str], keep: list[int]) -> tuple[TableRow, ...]:
    out: list[TableRow] = []
    parent = ""
    for row in rows:
        cells = _row_cells(row)
        values = tuple((columns[c], cell) for c in keep[1:] if (cell := cells[c]) is not None)
        if cells[0] is None and not values:
            continue
        section = not any(cell.text for _, cell in unique(row)[1:])  # no dashes either
        out.append(TableRow(cells[0], values, section, "" if section else parent))
        parent = _parent_after(out[-1], parent)
    return tuple(out)


def _parent_after(row: TableRow, parent: str) -> str:
    """A section ("Current assets:") heads the rows under it up to the next one or its total."""
    label = row.label.text if row.label is not None else ""
    if row.section:
        return label if label.endswith(":") and len(label) <= SECTION_PREFIX else ""
    return "" if label.lower().startswith("total") else parent
