"""Excel (.xlsx, .xlsm) workbooks through openpyxl: the only module that imports it.

Opened read-only (rows stream from the file, memory stays flat), with `data_only` so a formula
reads as the value Excel saved with it (a workbook never calculated by Excel has none), and
without external links (never fetched; openpyxl fetches nothing anyway). Each sheet is a page:
its used range is one table. Lines of a single cell above the first full row are its caption;
the first row of several texts is the header (else columns are named by letter); every later
row is one labelled line, "B5:D5 — Item: Rent | Month: March | Amount: 1200", under the title
"Sheet Budget (A1:D40)", so a citation names the sheet and the cells. A sheet's declared
dimensions are ignored (a hostile file declares a million rows); only cells present are read,
up to MAX_CELLS per workbook.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, islice
from pathlib import Path
from typing import Any

from desktop_rag.domain import DocKind, Reason
from desktop_rag.ingest.office_guard import guarded, parse_failure
from desktop_rag.ingest.office_text import PageText, cell_text, labelled_row
from desktop_rag.ingest.segments import LoadedDocument, LoadError, Segment, TablePart
from desktop_rag.store.titles import clean, shown_title

MAX_CELLS = 2_000_000  # non-empty cells read per workbook; the rest is noted, not read
HEADER_SCAN = 10  # rows looked at for a caption and the header


def load_xlsx(path: Path) -> LoadedDocument:
    book = _open(path)
    sheets = [ws for ws in book.worksheets if hasattr(ws, "iter_rows")]
    stated = clean(book.properties.title) or None
    loaded = LoadedDocument(DocKind.OTHER, shown_title(stated, str(path)), len(sheets),
                            iter(()), stated_title=stated)
    loaded.set_empty(loaded.empty_code, "no values in any sheet")
    loaded.segments = guarded(_segments(book, sheets, loaded))
    return loaded


def _open(path: Path) -> Any:
    import openpyxl

    try:
        return openpyxl.load_workbook(str(path), read_only=True, data_only=True,
                                      keep_links=False, keep_vba=False)
    except LoadError:
        raise
    except Exception as exc:  # openpyxl and zipfile raise many kinds on a broken package
        raise parse_failure(exc) from exc


def column_name(index: int) -> str:
    """1 -> A, 27 -> AA."""
    name = ""
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(65 + rest) + name
    return name


def _segments(book: Any, sheets: list[Any], loaded: LoadedDocument) -> Iterator[Segment]:
    budget = [MAX_CELLS]
    try:
        for number, sheet in enumerate(sheets, start=1):
            sheet.reset_dimensions()  # read the cells present, not the declared range
            yield from sheet_segments(sheet.title, number, _rows(sheet, budget))
            if budget[0] <= 0:
                loaded.add_note(Reason.TOO_LARGE, (
                    f"only the first {MAX_CELLS:,} cells were read (sheet '{sheet.title}' "
                    "and later ones cut short)"))
                return
    finally:
        book.close()


def _rows(sheet: Any, budget: list[int]) -> Iterator[tuple[int, list[str]]]:
    """(row number, its cells as text) for each non-empty row, while the budget lasts."""
    for number, values in enumerate(sheet.iter_rows(values_only=True), start=1):
        cells = [cell_text(v) for v in values]
        while cells and not cells[-1]:
            cells.pop()
        if not cells:
            continue
        budget[0] -= sum(1 for c in cells if c)
        yield number, cells
        if budget[0] <= 0:
            return


def sheet_segments(
    name: str, page_no: int, rows: Iterable[tuple[int, list[str]]]
) -> Iterator[Segment]:
    """One sheet's rows as a captioned, labelled table (see the module's docstring)."""
    rows = iter(rows)
    head = list(islice(rows, HEADER_SCAN))
    start = next((i for i, (_, r) in enumerate(head) if not _single(r)), None)
    if start is None:  # a column of single cells: no caption, no header
        start = 0
    caption = [c for _, r in head[:start] for c in r if c]
    header, first = _header(head, start)
    title = f"Sheet {name}" + (f": {'; '.join(caption)}" if caption else "")
    part = TablePart(title[:160])
    page = PageText(page_no, (f"Sheet {name}",))
    for number, cells in chain(head[first:], rows):
        columns = header or ([column_name(i + 1) for i in range(len(cells))]
                             if len(cells) > 1 else [])
        label = f"A{number}:{column_name(max(len(cells), 1))}{number}"
        segment = page.add(labelled_row(columns, cells, label=label), table=part, keep=False)
        if segment is not None:
            yield segment


def _single(row: Sequence[str]) -> bool:
    return sum(1 for c in row if c) == 1


def _header(
    rows: list[tuple[int, list[str]]], start: int
) -> tuple[list[str] | None, int]:
    """The header row's labels (blank ones named by column letter) and where data starts:
    the first row of several cells is the header when all its cells are text, not numbers,
    and a row follows it."""
    if start >= len(rows) - 1:
        return None, start
    cells = rows[start][1]
    if any(_is_number(c) for c in cells if c):
        return None, start
    return [c or column_name(i + 1) for i, c in enumerate(cells)], start + 1


def _is_number(text: str) -> bool:
    try:
        float(text.replace(",", ""))
    except ValueError:
        return False
    return True
