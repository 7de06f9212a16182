"""The tables of one PDF page as TableBlocks: grid, header, unit, caption and rows.

`page.find_tables(union=True, refine=True)` fuses the layout model's table grids (PyMuPDF 2.0
with pymupdf-layout; about a second a page) with the ruling-line finder and resolves spans and
header rows: on four 10-Ks it gives clean cell text and boxes, where the default finder and
`Table.extract()` garble text. Where it breaks a layout table into narrower pieces (a balance
sheet read as label+value pairs), the layout model's own grid is used, filled with the words.

Around the grid, what a reader takes from the page: the heading above the table is its caption,
"(in thousands, except per share data)" (above it, or a header row of its own) its unit, the
lowest header cell of each column (the year under "Year Ended December 31,") its column label.

Runs in a worker process of the table pass (PyMuPDF imported lazily), after the page's text is
searchable. A page that cannot be read gives no tables (through `read_tables`, an error the pass
logs with the file and page): its text stays as it is.
"""

from __future__ import annotations

import logging
from bisect import bisect_right
from dataclasses import replace
from typing import Any, NamedTuple

from desktop_rag.ingest.pdf_pages import open_pdf, with_layout
from desktop_rag.ingest.table_boxes import as_box, iou, share_inside, transformed
from desktop_rag.ingest.table_detect import TextLine, caption_above, text_lines
from desktop_rag.ingest.table_model import (
    Box,
    Grid,
    Slot,
    TableBlock,
    TableCell,
    TableRow,
    cell_text,
    find_unit,
    shape_table,
    unique,
)
from desktop_rag.ingest.table_speedups import install as install_speedups
from desktop_rag.ingest.table_speedups import shared_textpages

log = logging.getLogger(__name__)

MIN_ROWS = 2
MIN_COLUMNS = 2
INSIDE = 0.5  # a found table with this share of its area in a layout table belongs to it
SAME_BOX = 0.7  # intersection over union of a found table that is the layout table
UNIT_ROWS = 2  # body rows under the header that may still be a unit row
Placed = Slot | None  # a slot of a found grid; None where no cell was placed


class _Grid(NamedTuple):
    bbox: Box
    header_rows: int
    slots: list[list[Placed]]


def extract_tables(path: str, index: int) -> list[TableBlock]:
    """The tables of page `index` (0-based) of the PDF at `path`; [] when none can be read."""
    try:
        return read_tables(path, index)
    except RuntimeError as exc:
        log.debug("no tables read from page %d of %s: %s", index + 1, path, exc)
        return []


def read_tables(path: str, index: int) -> list[TableBlock]:
    """As extract_tables, but a page that cannot be read raises RuntimeError (its message
    crosses a process boundary intact), so that the caller can say which page failed."""
    try:
        with open_pdf(path) as doc:
            return page_tables(doc.load_page(index), index + 1, strict=True)
    except Exception as exc:
        raise RuntimeError(f"{type(exc).__name__}: {exc}") from None


def page_tables(page: Any, page_no: int, strict: bool = False) -> list[TableBlock]:
    """The tables of an open page, top to bottom; [] when none can be read (unless `strict`).
    Boxes are in the page's unrotated coordinates, as its text lines' (the page is unchanged)."""
    try:
        upright, back = _upright(page)
        with shared_textpages(upright):
            grids = _page_grids(upright)
            lines = text_lines(upright.get_text("dict"), [grid.bbox for grid in grids])
        blocks = [block for grid in grids if (block := _block(grid, lines, page_no))]
        return [_mapped(block, back) for block in blocks] if back is not None else blocks
    except Exception as exc:
        if strict:
            raise
        log.debug("no tables read from page %d: %s", page_no, exc)
        return []


def _upright(page: Any) -> tuple[Any, Any]:
    """A rotated page turned upright (a landscape table is read as it is seen), in a copy in
    memory, and the matrix back to the page's coordinates; the page itself when not rotated."""
    if not page.rotation:
        return page, None
    copy = open_pdf()
    number = page.number
    copy.insert_pdf(page.parent, from_page=number, to_page=number)
    upright = copy[0]
    upright.remove_rotation()
    return upright, page.derotation_matrix


def _mapped(block: TableBlock, matrix: Any) -> TableBlock:
    """The block with every box mapped by `matrix` (upright page -> page coordinates)."""

    def cell(c: TableCell) -> TableCell:
        return TableCell(c.text, transformed(c.box, matrix))

    rows = tuple(
        replace(
            row,
            label=cell(row.label) if row.label else None,
            values=tuple((column, cell(value)) for column, value in row.values),
        )
        for row in block.rows
    )
    return replace(block, bbox=transformed(block.bbox, matrix), rows=rows)


def _page_grids(page: Any) -> list[_Grid]:
    """find_tables' grids, or the layout model's where find_tables cut a table into narrower
    pieces. A plain get_layout() leaves a layout find_tables(union=True) finds nothing in."""
    if not all(isinstance(box, dict) for box in page.layout_information or ()):
        page.layout_information = None
    with_layout()  # find_tables(union=True) fuses the layout model's tables
    install_speedups()  # the same tables, sooner (ingest/table_speedups.py)
    found = page.find_tables(union=True, refine=True)
    tables = [table for table in (found.tables if found else ()) if _big_enough(table)]
    grids: list[_Grid] = []
    claimed: set[int] = set()
    for layout in _layout_tables(page):
        box = layout["group_bbox"]
        inside = [table for table in tables if share_inside(table.bbox, box, INSIDE)]
        claimed.update(id(table) for table in inside)
        if _pieces_fit(inside, layout):
            grids += [_placement_grid(table) for table in inside]
        else:
            grids.append(_layout_grid(layout, page.get_text("words")))
    grids += [_placement_grid(table) for table in tables if id(table) not in claimed]
    return sorted(grids, key=lambda grid: (grid.bbox[1], grid.bbox[0]))


def _big_enough(table: Any) -> bool:
    rows = table.placements or []
    return len(rows) >= MIN_ROWS and max(sum(c.colspan for c in r) for r in rows) >= MIN_COLUMNS


def _layout_tables(page: Any) -> list[dict[str, Any]]:
    """The layout model's table boxes with a grid (find_tables(union=True) has run it)."""
    boxes = [box for box in page.layout_information or () if isinstance(box, dict)]
    return [box for box in boxes if box.get("class_name") == "table" and box.get("table_grid")]


def _pieces_fit(inside: list[Any], layout: dict[str, Any]) -> bool:
    """Whether find_tables' tables inside a layout table cover it: one table as wide and about
    as large, or several tables (printed under one another) with its rows between them."""
    grid = layout["table_grid"]
    if len(inside) == 1:
        width = max(sum(cell.colspan for cell in row) for row in inside[0].placements)
        return width > len(grid.v_lines) and iou(inside[0].bbox, layout["group_bbox"]) > SAME_BOX
    rows = sum(len(table.placements) for table in inside)
    return len(inside) > 1 and rows >= len(grid.h_lines)


def _placement_grid(table: Any) -> _Grid:
    """find_tables' span placements (rows of SpanCells, covered slots left out, as in HTML)
    expanded to a full grid whose spanned slots share their cell."""
    rows = table.placements
    width = max(sum(cell.colspan for cell in row) for row in rows)
    slots: list[list[Placed]] = [[None] * width for _ in rows]
    serial = 0
    for r, row in enumerate(rows):
        column = 0
        for cell in row:
            while column < width and slots[r][column] is not None:
                column += 1
            serial += 1
            _place(slots, r, column, cell, (serial, _cell(cell, table.bbox)))
            column += cell.colspan
    return _Grid(as_box(table.bbox), table.header_rows or 0, slots)


def _place(slots: list[list[Placed]], row: int, column: int, cell: Any, slot: Placed) -> None:
    for r in range(row, min(len(slots), row + cell.rowspan)):
        for c in range(column, min(len(slots[r]), column + cell.colspan)):
            slots[r][c] = slot


def _cell(cell: Any, table_box: Any) -> TableCell:
    return TableCell(cell_text(cell.text or ""), as_box(cell.bbox or table_box))


def _layout_grid(layout: dict[str, Any], words: list[Any]) -> _Grid:
    """The layout model's grid of a table (row and column lines in the box), each cell
    holding the words whose centre is in it."""
    x0, y0, x1, y1 = as_box(layout["group_bbox"])
    grid = layout["table_grid"]
    xs = [x0, *(x0 + float(x) for x in grid.v_lines), x1]
    ys = [y0, *(y0 + float(y) for y in grid.h_lines), y1]
    texts: list[list[list[str]]] = [[[] for _ in xs[1:]] for _ in ys[1:]]
    inside = [w for w in words if x0 <= (w[0] + w[2]) / 2 <= x1 and y0 <= (w[1] + w[3]) / 2 <= y1]
    places = [
        (_slot_index(ys, (w[1] + w[3]) / 2), _slot_index(xs, (w[0] + w[2]) / 2)) for w in inside
    ]
    for index, word in enumerate(inside):
        r, c = places[_sign_owner(inside, index)]
        texts[r][c].append(word[4])
    slots: list[list[Placed]] = [
        [(1 + r * len(row) + c, _grid_cell(row[c], xs, ys, r, c)) for c in range(len(row))]
        for r, row in enumerate(texts)
    ]
    return _Grid((x0, y0, x1, y1), 0, slots)


def _sign_owner(words: list[Any], index: int) -> int:
    """The word whose cell a sign goes in: "%" that of the number before it, "$" that of the
    one after it (a column line of the grid may pass between them)."""
    other = index + {"%": -1, "$": 1}.get(words[index][4], 0)
    same_line = 0 <= other < len(words) and words[other][5:7] == words[index][5:7]
    return other if same_line else index


def _slot_index(edges: list[float], at: float) -> int:
    return min(len(edges) - 2, max(0, bisect_right(edges, at) - 1))


def _grid_cell(words: list[str], xs: list[float], ys: list[float], r: int, c: int) -> TableCell:
    return TableCell(cell_text(" ".join(words)), (xs[c], ys[r], xs[c + 1], ys[r + 1]))


def _block(grid: _Grid, lines: list[TextLine], page_no: int) -> TableBlock | None:
    caption, unit = caption_above(grid.bbox, lines)
    slots = [[slot or (0, TableCell("", grid.bbox)) for slot in row] for row in grid.slots]
    rows, header_rows, unit = _strip_units(slots, grid.header_rows, unit)
    shaped = shape_table(rows, header_rows)
    if shaped is None:
        return None
    columns, table_rows, markdown = shaped
    bbox = _union([grid.bbox, *(cell.box for row in table_rows for cell in _cells(row))])
    return TableBlock(page_no, bbox, caption, unit, columns, table_rows, markdown)


def _cells(row: TableRow) -> list[TableCell]:
    return [*([row.label] if row.label else []), *(cell for _, cell in row.values)]


def _union(boxes: list[Box]) -> Box:
    """The table's box holding all its cells (ruled cells reach past the text)."""
    x0s, y0s, x1s, y1s = zip(*boxes, strict=True)
    return min(x0s), min(y0s), max(x1s), max(y1s)


def _strip_units(grid: Grid, header_rows: int, unit: str) -> tuple[Grid, int, str]:
    """Unit rows and cells of the header and the rows just under it taken out, the first
    unit found kept (after `unit`, the caption's)."""
    kept: Grid = []
    count = header_rows
    for index, row in enumerate(grid):
        if index < header_rows + UNIT_ROWS:
            row, found = _unit_out(row)
            unit = unit or found
            if not any(cell.text for _, cell in row):
                count -= index < header_rows
                continue
        kept.append(row)
    return kept, count, unit


def _unit_out(row: list[Slot]) -> tuple[list[Slot], str]:
    """The row without its unit: all of it when the row is only a unit (which may be split
    across cells: "(in thousands," | "except per share data)"), else the unit's cells."""
    joined = " ".join(cell.text for _, cell in unique(row) if cell.text)
    rest, unit = find_unit(joined)
    if unit and not rest.strip("() "):
        return [(serial, TableCell("", cell.box)) for serial, cell in row], unit
    out: list[Slot] = []
    for serial, cell in row:
        rest, found = find_unit(cell.text)
        unit = unit or found
        out.append((serial, TableCell(rest, cell.box) if found else cell))
    return out, unit
