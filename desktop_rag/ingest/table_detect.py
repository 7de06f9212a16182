"""Table cues in a page's text dict: whether the page may hold a table, and a table's caption.

Table extraction runs a layout model (about a second a page); plain text takes under a
millisecond. So only pages that look tabular go to the table pass. A table shows in the text as
rows of numbers whose right edges line up in columns (statements, data tables), or as many lines
cut by wide gaps into short cells that start at the same x (text tables, spec sheets). Prose,
even in two columns, has neither: its lines are long, and its numbers do not stack. Code (all
monospaced) and two-column lists of terms and descriptions (man page options, exhibit lists)
are left out: they read well as plain text, and manuals are full of them.

Cells are approximated from the dict's lines (MuPDF starts a new line at a wide gap, so a table
cell is a line of its own; a line is cut at runs of spaces, x interpolated by character
position): no second text extraction is needed, and it costs well under a millisecond a page.
Right edges are exact where a line ends, which is where a number in a table cell ends.

A table's caption is read from the same dict: the heading-like lines just above it ("Domestic
Streaming Segment", "(in thousands, except per share data)"), which tell what its numbers are.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from desktop_rag.ingest.table_model import Box, find_unit

_NUMBER = re.compile(r"\(?[-−–]?\$?\(?\d[\d,]*(\.\d+)?\)?%?\)?|[—–-]|\$?\(?\.\d+\)?%?")
# A cell of a value and its spread, as papers print them: "66.4% (0.8%)", "0.73±0.02".
_VALUE_CELL = re.compile(rf"(?:{_NUMBER.pattern})(?:±?(?:{_NUMBER.pattern}))?")
_PIECE = re.compile(r"\S+(?: \S+)*")
_MONO = re.compile(r"mono|courier|cmtt|sftt|consol", re.IGNORECASE)  # fonts of code
MONOSPACED = 8  # PyMuPDF's span flag
GAP = 6.0  # words closer than this (pt) are one cell
LINE_TOL = 2.5  # words whose vertical centres differ less are on one line
COL_TOL = 4.0  # right (or left) edges in the same 4 pt bin are one column
WIDE_GAP = 20.0  # a gap this wide between cells makes a line a row of a text grid
SHORT_CELL = 25  # a text-grid row has a cell this short
MIN_ROWS = 2  # numeric rows needed
MIN_COLUMNS = 2  # aligned numeric columns needed
MIN_GRID_LINES = 4
GRID_SHARE = 0.15  # of the page's lines: not the odd wide-gap line of prose
MIN_GRID_HITS = 4  # text-grid cells starting (or rows ending) in one bin
CAPTION_GAP = 40.0  # caption lines end at most this far above the table (pt)
HEADING_GAP = 120.0  # else the nearest bold line this far above is its heading
CAPTION_LINES = 4
PROSE = 80  # a longer line (not bold, no ":") is body text: the caption ends below it
_SKIP = re.compile(r"table of contents", re.IGNORECASE)  # a page header's link
_NUMBERS_ONLY = re.compile(r"[\d\s.,$%()—–-]*")  # column headers printed above the grid

Word = tuple[float, float, float, str, bool]  # y centre, x0, x1, text, monospaced
Cell = tuple[float, float, str, int]  # x0, x1, text (words joined), length as printed


class TextLine(NamedTuple):
    box: Box
    text: str
    bold: bool


def looks_tabular(page_dict: dict[str, Any]) -> bool:
    """Whether the page may hold a table worth the table pass (PyMuPDF's "dict" text)."""
    lines = _text_lines(_words(page_dict))
    return _numeric_columns(lines) or _text_grid(lines)


def _words(page_dict: dict[str, Any]) -> list[Word]:
    words: list[Word] = []
    for block in page_dict.get("blocks", ()):
        for line in block.get("lines", ()):
            _add_words(words, line)
    return words


def _add_words(words: list[Word], line: dict[str, Any]) -> None:
    """The line's pieces (text between runs of spaces: words a space apart are one cell
    anyway) with x interpolated by character position; a lone "$" is dropped (it sits apart
    from its number and would break the number's cell)."""
    spans = line.get("spans", ())
    text = "".join(span.get("text", "") for span in spans)
    x0, y0, x1, y1 = line["bbox"]
    scale = (x1 - x0) / max(1, len(text))
    middle = (y0 + y1) / 2
    mono = all(span.get("flags", 0) & MONOSPACED or _monospaced(span["font"]) for span in spans)
    for match in _PIECE.finditer(text):
        piece = match.group()
        if piece != "$":
            start, end = match.span()
            words.append((middle, x0 + scale * start, x0 + scale * end, piece, mono))


@lru_cache(maxsize=512)
def _monospaced(font: str) -> bool:
    return _MONO.search(font) is not None


def _text_lines(words: Iterable[Word]) -> list[list[Word]]:
    """Words grouped into visual lines by vertical centre (across blocks: a table's cells are
    often separate blocks), each line left to right."""
    lines: list[list[Word]] = []
    top = 0.0
    for word in sorted(words):
        if lines and word[0] - top <= LINE_TOL:
            lines[-1].append(word)
        else:
            lines.append([word])
            top = word[0]
    return [sorted(line, key=lambda word: word[1]) for line in lines]


def _cells(line: list[Word], gap: float = GAP) -> list[Cell]:
    """The line's words grouped where they are less than `gap` apart."""
    cells: list[Cell] = []
    for _, x0, x1, text, _ in line:
        if cells and x0 - cells[-1][1] < gap:
            left, _, joined, length = cells[-1]
            cells[-1] = (left, x1, joined + text, length + len(text) + 1)
        else:
            cells.append((x0, x1, text, len(text) + 1))
    return cells


def _numeric_columns(lines: list[list[Word]]) -> bool:
    """Rows with several numbers apart from each other, whose right edges stack in columns."""
    rows = 0
    rights: Counter[int] = Counter()
    for line in lines:
        cells = _cells(line)
        numbers = [cell for cell in cells if _VALUE_CELL.fullmatch(cell[2].replace(" ", ""))]
        if len(numbers) >= 3 or (len(numbers) >= 2 and len(cells) >= 3):
            rows += 1
            rights.update(round(cell[1] / COL_TOL) for cell in numbers)
    return rows >= MIN_ROWS and _aligned_bins(rights, 2) >= MIN_COLUMNS


def _aligned_bins(counts: Counter[int], hits: int) -> int:
    """Bins that are a local peak and hit at least `hits` times with their left neighbour (an
    edge near a bin boundary splits across two)."""
    return sum(
        1
        for b, n in counts.items()
        if n + counts[b - 1] >= hits and counts[b - 1] <= n and counts[b + 1] <= n
    )


def _text_grid(lines: list[list[Word]]) -> bool:
    """Many lines split by wide gaps into cells that line up; code (all monospaced) aside."""
    grid_lines = 0
    lefts: Counter[int] = Counter()
    rights: Counter[int] = Counter()
    for line in lines:
        if all(word[4] for word in line):
            continue  # code: a comment after a statement is no table cell
        wide = _cells(line, WIDE_GAP)
        if _grid_row(wide):
            grid_lines += 1
            lefts.update(round(cell[0] / COL_TOL) for cell in wide[1:])
            rights[round(wide[-1][1] / COL_TOL)] += 1
    if grid_lines < MIN_GRID_LINES or grid_lines < GRID_SHARE * len(lines):
        return False
    return max(lefts.values()) >= MIN_GRID_HITS or max(rights.values()) >= MIN_GRID_HITS


def _grid_row(wide: list[Cell]) -> bool:
    """A line of a text grid: a short cell (two-column prose has none) and three columns, or
    two ending in a number (a page, an amount). A two-column list of terms and descriptions
    (options of a man page, exhibits) reads well as plain text: it is not worth the pass."""
    if len(wide) < 2 or min(cell[3] for cell in wide) > SHORT_CELL:
        return False
    return len(wide) >= 3 or _NUMBER.fullmatch(wide[-1][2].replace(" ", "")) is not None


def text_lines(page_dict: dict[str, Any], tables: Sequence[Box]) -> list[TextLine]:
    """The page's text lines outside its tables (where captions are looked for)."""
    lines = []
    for block in page_dict.get("blocks", ()):
        for line in block.get("lines", ()):
            spans = line.get("spans", ())
            text = " ".join("".join(span["text"] for span in spans).split())
            x0, y0, x1, y1 = map(float, line["bbox"])
            box = (x0, y0, x1, y1)
            if text and not any(_centre_inside(box, table) for table in tables):
                lines.append(TextLine(box, text, any(_bold(span) for span in spans)))
    return lines


def _bold(span: dict[str, Any]) -> bool:
    return bool(span.get("flags", 0) & 16) or "Bold" in span.get("font", "")


def _centre_inside(box: Box, outer: Box) -> bool:
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return outer[0] <= x <= outer[2] and outer[1] <= y <= outer[3]


def caption_above(table: Box, lines: list[TextLine]) -> tuple[str, str]:
    """(caption, unit) from the heading-like lines just above the table; with no bold line
    among them, the nearest bold line further up heads them."""
    near = _merged(line for line in lines if _above(line.box, table, CAPTION_GAP, True))
    picked = _caption_lines(near)
    if not any(line.bold for line in picked):
        picked += _heading(table, lines, picked)
    parts = [find_unit(line.text) for line in reversed(picked)]
    caption = " ".join(text for text, _ in parts if text)
    return caption, next((unit for _, unit in parts if unit), "")


def _caption_lines(near: list[TextLine]) -> list[TextLine]:
    """Nearest first, up to the first line of prose: bold lines, short lines that end no
    sentence, unit lines, and an intro sentence ending with ":" from where it starts."""
    picked: list[TextLine] = []
    intro = False  # the line picked last continues a sentence from the line above
    for line in near:
        text = line.text
        if _NUMBERS_ONLY.fullmatch(text) or _SKIP.fullmatch(text):
            continue
        short = len(text) <= PROSE and not text.rstrip("”’\"')").endswith(".")
        if intro and ". " in text:  # the sentence starts in this line
            picked.append(line._replace(text=text.rsplit(". ", 1)[1]))
            break
        if not (intro or line.bold or short or text.endswith(":") or find_unit(text)[1]):
            break
        picked.append(line)
        intro = text[:1].islower() and (intro or text.endswith(":"))
    return picked[:CAPTION_LINES]


def _above(box: Box, table: Box, gap: float, overlapping: bool) -> bool:
    over = box[2] > table[0] and box[0] < table[2]
    return box[3] <= table[1] + 2 and table[1] - box[3] <= gap and (over or not overlapping)


def _merged(lines: Iterable[TextLine]) -> list[TextLine]:
    """Lines on one baseline joined left to right; nearest to the table first."""
    merged: list[TextLine] = []
    for line in sorted(lines, key=lambda line: (-round(line.box[1]), line.box[0])):
        last = merged[-1] if merged else None
        if last is not None and abs(last.box[1] - line.box[1]) < 2:
            box = (last.box[0], last.box[1], max(last.box[2], line.box[2]), last.box[3])
            merged[-1] = TextLine(box, f"{last.text} {line.text}", last.bold or line.bold)
        else:
            merged.append(line)
    return merged


def _heading(table: Box, lines: list[TextLine], picked: list[TextLine]) -> list[TextLine]:
    """The nearest bold line above (a section heading over an intro sentence)."""
    heads = [
        line
        for line in lines
        if line.bold
        and line not in picked
        and not _SKIP.fullmatch(line.text)
        and _above(line.box, table, HEADING_GAP, False)
    ]
    return [max(heads, key=lambda line: line.box[3])] if heads else []
