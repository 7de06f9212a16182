"""A page's text dict (PyMuPDF's "dict" layout, plain data) as segments with line boxes.

The tables found on the page replace the lines inside them: each table comes, where it starts
on the page, as one segment per row whose text says what each number is, every part of it
keeping the box of its cell.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from desktop_rag.domain import LineBox
from desktop_rag.ingest.segments import SOFT_HYPHEN, Line, Segment, TablePart
from desktop_rag.ingest.table_model import Box, TableBlock, render_row, render_title, unit_short


def has_text(page_dict: dict[str, Any]) -> bool:
    return any(
        span.get("text", "").strip()
        for block in page_dict.get("blocks", ())
        for line in block.get("lines", ())
        for span in line.get("spans", ())
    )


def page_segments(
    page_dict: dict[str, Any], page_no: int, tables: Sequence[TableBlock] = ()
) -> Iterator[Segment]:
    """One segment per text block, and one per table row; offsets index the page text (blocks
    joined by blank lines, lines and rows by newlines); segment text is that slice with
    newlines as spaces."""
    offset = 0
    waiting = sorted(tables, key=lambda t: (t.bbox[1], t.bbox[0]))
    inside = [t.bbox for t in tables]
    for block in page_dict.get("blocks", ()):
        if block.get("type", 0) != 0:
            continue
        while waiting and waiting[0].bbox[1] <= block["bbox"][1]:
            rows, offset = _table_segments(waiting.pop(0), page_no, offset)
            yield from rows
        texts, lines = _block_lines(block, page_no, offset, inside)
        if not texts:
            continue
        body = "\n".join(texts)
        yield Segment(body.replace("\n", " "), page_no, offset, offset + len(body), tuple(lines))
        offset += len(body) + 2
    for table in waiting:
        rows, offset = _table_segments(table, page_no, offset)
        yield from rows


def _table_segments(
    table: TableBlock, page_no: int, offset: int
) -> tuple[list[Segment], int]:
    part, unit = TablePart(render_title(table)), unit_short(table.unit)
    rows: list[Segment] = []
    for row in table.rows:
        rendered = render_row(row, unit)
        if not rendered.text.strip():
            continue
        lines = tuple(Line(offset + a, offset + b, LineBox(page_no, *box))
                      for a, b, box in rendered.spans)
        end = offset + len(rendered.text)
        rows.append(Segment(rendered.text, page_no, offset, end, lines, table=part))
        offset = end + 1
    return rows, offset + 1


def _within(box: Sequence[float], tables: Sequence[Box]) -> bool:
    """Whether a line's centre lies in one of the tables (its text comes with the table)."""
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return any(t[0] - 1 <= x <= t[2] + 1 and t[1] - 1 <= y <= t[3] + 1 for t in tables)


def _hyphenated(line: str, following: str) -> bool:
    """A word broken across lines: "exam-" then "ple" (the chunker joins them again)."""
    return len(line) > 1 and line[-1] == "-" and line[-2].isalpha() and following[0].islower()


def _block_lines(
    block: dict[str, Any], page_no: int, offset: int, tables: Sequence[Box] = ()
) -> tuple[list[str], list[Line]]:
    texts: list[str] = []
    lines: list[Line] = []
    pos = offset
    for line in block.get("lines", ()):
        text = "".join(span.get("text", "") for span in line.get("spans", ())).strip()
        if not text or (tables and _within(line["bbox"], tables)):
            continue
        x0, y0, x1, y1 = line["bbox"]
        lines.append(Line(pos, pos + len(text), LineBox(page_no, x0, y0, x1, y1)))
        if texts and _hyphenated(texts[-1], text):
            texts[-1] = texts[-1][:-1] + SOFT_HYPHEN  # same length: offsets stay exact
        texts.append(text)
        pos += len(text) + 1
    return texts, lines
