"""A page whose drawings rule a grid may hold a table: the table pass's second cue, beside the
text cues of table_detect.

The text cues look for numbers stacked in columns or lines cut into short cells by wide gaps.
Measured on the pages MMLongBench's table questions cite as their evidence, they flag 98 of 154
(0.64). Of the 56 missed, 10 have no text layer (pictures of tables); most of the rest are tables
of words drawn in a ruled grid, whose cells are set close together: a government form, a
handbook's table of requirements, a watch manual's table of button functions, a paper's results
table with vertical rules. Their rules are in the page's drawings: horizontal and vertical lines
(or thin rectangles). A grid of a header and two rows in two columns has rules at four heights
and three places across, however they are drawn (one line per row, or one per cell); that
flags 22 of those pages (PyMuPDF's table reader then reads a table on most: 19 of 23 in a first
count), and 7% more of MMLongBench's pages (181 of 2,532; 14 of the Debian manuals' 887) for
the table pass to read in the background. Counting costs about half a millisecond a page
(MuPDF's own drawing list); charts' gridlines (one way), boxed diagrams (rectangles, not rules)
and underlines are no grid.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from desktop_rag.ingest.page_text import has_text
from desktop_rag.ingest.table_detect import looks_tabular

MIN_HEIGHTS = 4  # horizontal rules at this many heights at least (a header and two rows)
MIN_PLACES = 3  # vertical rules at this many places across at least (two columns)
BIN = 2.0  # rules closer than this (pt) are at one height or place
ACROSS = 20.0  # a horizontal rule is at least this long (pt): no underline of a short word
DOWN = 8.0  # a vertical rule is at least a line of text high (pt)
THIN = 2.0  # a rectangle this thin is a rule
STRAIGHT = 1.0  # a line's ends differ by less than this across its direction


def may_hold_table(page: Any, page_dict: dict[str, Any]) -> bool:
    """Whether the page goes to the table pass for its tables: its text looks tabular, or it
    has text and a ruled grid."""
    return looks_tabular(page_dict) or (has_text(page_dict) and ruled_grid(page))


def ruled_grid(page: Any) -> bool:
    """Whether the page's drawings rule a grid: horizontal rules at MIN_HEIGHTS heights and
    vertical ones at MIN_PLACES places across, at least."""
    heights: set[int] = set()
    places: set[int] = set()
    for path in page.get_cdrawings():
        for item in path.get("items", ()):
            across, down = rule(item)
            if across:
                heights.add(round(_start(item)[1] / BIN))
            elif down:
                places.add(round(_start(item)[0] / BIN))
        if len(heights) >= MIN_HEIGHTS and len(places) >= MIN_PLACES:
            return True
    return False


def _start(item: Sequence[Any]) -> tuple[float, float]:
    """Where a line or a rectangle begins (its first point, its top left corner)."""
    return (item[1][0], item[1][1])


def rule(item: Sequence[Any]) -> tuple[int, int]:
    """(1, 0) for a horizontal rule, (0, 1) for a vertical one, else (0, 0): a drawing's item
    as MuPDF lists it, ("l", p1, p2) or ("re", rect, orientation)."""
    if item[0] == "l":
        (x0, y0), (x1, y1) = item[1][:2], item[2][:2]
        width, height, thin = abs(x1 - x0), abs(y1 - y0), STRAIGHT
    elif item[0] == "re":
        x0, y0, x1, y1 = item[1][:4]
        width, height, thin = abs(x1 - x0), abs(y1 - y0), THIN
    else:
        return 0, 0
    if height < thin and width >= ACROSS:
        return 1, 0
    return (0, 1) if width < thin and height >= DOWN else (0, 0)
