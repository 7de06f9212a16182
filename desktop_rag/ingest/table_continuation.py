"""Tables that go on over a page break: the part on the next page carries the caption, unit and
column labels of the part that began it.

A statement or a price list that runs onto the next page is found there as a table of its own,
with no caption and often without its header row: its rows were indexed as "Marketing — 317,646
| 293,453", no year, no unit. A table at the top of a page that follows a table on the page
before, with as many columns and no caption or header of its own (or the same header again), is
taken as its continuation. Header-less rows get the column labels by position: each value cell
goes to the column of the earlier part whose cells' right edges (numbers are right-aligned)
are nearest to its own.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Mapping, Sequence

from desktop_rag.ingest.table_model import TableBlock, TableCell, TableRow, markdown_table

TOP_OF_PAGE = 200.0  # points: a continuation starts above this on its page
CONTINUED = " (continued)"


def continued(found: Mapping[int, list[TableBlock]]) -> dict[int, list[TableBlock]]:
    """The tables of each page, those that continue the last table of the page before given
    its caption, unit and column labels (a table over three pages carries them on twice)."""
    out = {page: list(tables) for page, tables in found.items()}
    for page in sorted(out):
        following = out.get(page + 1)
        if out[page] and following and continues(out[page][-1], following[0]):
            following[0] = carried(out[page][-1], following[0])
    return out


def continues(head: TableBlock, tail: TableBlock) -> bool:
    """Whether `tail` (the first table of its page) goes on with `head` (the last of the page
    before)."""
    labelled = any(head.columns[1:])
    same_width = len(head.columns) == len(tail.columns)
    header = not any(tail.columns) or tail.columns == head.columns
    caption = not tail.caption or tail.caption == _base(head.caption)
    return labelled and same_width and header and caption and tail.bbox[1] < TOP_OF_PAGE


def carried(head: TableBlock, tail: TableBlock) -> TableBlock:
    """`tail` with the caption, unit and (when it has none) the column labels of `head`."""
    caption = f"{_base(head.caption)}{CONTINUED}" if head.caption else ""
    unit = tail.unit or head.unit
    if any(tail.columns):
        return dataclasses.replace(tail, caption=caption, unit=unit)
    edges = column_edges(head)
    rows = tuple(_relabelled(row, edges) for row in tail.rows)
    markdown = markdown_table(head.columns, [_cells_by_column(row, head.columns) for row in rows])
    return dataclasses.replace(tail, caption=caption, unit=unit, columns=head.columns,
                               rows=rows, markdown=markdown)  # fmt: skip


def column_edges(block: TableBlock) -> dict[str, float]:
    """Each labelled column's typical right edge, from the cells of its values."""
    edges: dict[str, list[float]] = {}
    for row in block.rows:
        for label, cell in row.values:
            if label:
                edges.setdefault(label, []).append(cell.box[2])
    return {label: statistics.median(xs) for label, xs in edges.items()}


def _relabelled(row: TableRow, edges: Mapping[str, float]) -> TableRow:
    if not edges:
        return row
    values = tuple((_nearest(cell, edges), cell) for _, cell in row.values)
    return dataclasses.replace(row, values=values)


def _nearest(cell: TableCell, edges: Mapping[str, float]) -> str:
    return min(edges, key=lambda label: abs(edges[label] - cell.box[2]))


def _cells_by_column(row: TableRow, columns: Sequence[str]) -> list[str]:
    by_label = {label: cell.text for label, cell in row.values}
    first = row.label.text if row.label is not None else ""
    return [first, *(by_label.get(label, "") for label in columns[1:])]


def _base(caption: str) -> str:
    return caption.removesuffix(CONTINUED)
