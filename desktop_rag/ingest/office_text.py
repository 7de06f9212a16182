"""Segments for documents without page geometry (Word, slides, sheets, e-mail): shared helpers.

These formats have no line boxes, so a segment is its text, its "page" (a slide, a sheet, a
message; None for a Word file, whose sections name the place instead), its heading path and,
for a table's rows, the table it belongs to. Offsets run through one page's text (segments
joined by newlines), which is what a chunk's char span indexes. Table rows are written as the
PDF tables' rows are ("Revenue — 2024: 1,200 | 2023: 1,050", ingest/table_model.py), so BM25,
the embedder, the model and the exhaustive route read them alike.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence

from desktop_rag.ingest.segments import Segment, TablePart
from desktop_rag.ingest.table_model import LABEL_SEP, PIECE_SEP

MAX_CELL_CHARS = 400  # a cell holding a whole essay is cut in its row's line


class PageText:
    """Collects one page's segments, keeping the running offset of each in the page text."""

    def __init__(self, page: int | None, heading_path: tuple[str, ...] = ()) -> None:
        self.page = page
        self.heading_path = heading_path
        self.offset = 0
        self.segments: list[Segment] = []

    def add(
        self, text: str, *, heading: bool = False, table: TablePart | None = None,
        path: tuple[str, ...] | None = None, keep: bool = True,
    ) -> Segment | None:
        """Adds a segment (unless `keep` is False: then it is only returned, for a caller that
        streams them)."""
        text = " ".join(text.split())
        if not text:
            return None
        end = self.offset + len(text)
        segment = Segment(
            text, self.page, self.offset, end, (),
            self.heading_path if path is None else path, heading, table,
        )
        if keep:
            self.segments.append(segment)
        self.offset = end + 1
        return segment

    def add_table(self, title: str, rows: Sequence[Sequence[str]]) -> None:
        """A grid whose first row is its header: each later row one labelled line."""
        part = TablePart(title)
        for line in table_lines(rows):
            self.add(line, table=part)

    def __iter__(self) -> Iterator[Segment]:
        return iter(self.segments)


def cell_text(value: object) -> str:
    """A cell as a person reads it: whole numbers without ".0", dates as ISO dates."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.10g}"
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat(" ")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    text = " ".join(str(value).split())
    return text if len(text) <= MAX_CELL_CHARS else text[:MAX_CELL_CHARS] + "\u2026"


def labelled_row(header: Sequence[str], cells: Sequence[str], label: str | None = None) -> str:
    """One row as "label — column: value | column: value"; the label is the first cell unless
    given (a spreadsheet gives its cell range), empty cells left out."""
    pieces = []
    first = 0 if label is not None else 1
    for index in range(first, len(cells)):
        value = cells[index]
        if not value:
            continue
        column = header[index] if index < len(header) else ""
        pieces.append(f"{column}: {value}" if column and column != value else value)
    head = label if label is not None else (cells[0] if cells else "")
    body = PIECE_SEP.join(pieces)
    if head and body:
        return f"{head}{LABEL_SEP}{body}"
    return head or body


def table_lines(rows: Sequence[Sequence[str]]) -> list[str]:
    """A Word or slide table: its first row is the header, named in every later row's line (a
    one-row table is just its cells)."""
    rows = [list(r) for r in rows if any(c.strip() for c in r)]
    if len(rows) < 2:
        return [PIECE_SEP.join(c for c in r if c) for r in rows]
    return [labelled_row(rows[0], r) for r in rows[1:]]
