"""Makes PDFs with real tables (ruled and unruled) and prose pages for the table tests, and
reads their first page back as the loader and a viewer would.

The table is a 10-K statement in miniature: a bold caption, a unit line, year headers, a "$"
printed at the left of the first and total rows' cells, a negative "(1,577)" and an empty
"—" cell, numbers right-aligned in their columns.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

CAPTION = "Domestic Streaming Segment"
UNIT_LINE = "(in thousands, except per share data)"
YEARS = ("2015", "2014", "2013")
ROWS = (
    ("Revenues", ("$ 4,180,339", "$ 3,431,434", "$ 2,751,375")),
    ("Cost of revenues", ("2,487,193", "2,201,761", "1,863,376")),
    ("Other income (expense)", ("(1,577)", "—", "3,102")),
    ("Marketing", ("317,646", "293,453", "265,232")),
    ("Contribution profit", ("$ 1,373,923", "$ 936,220", "$ 625,869")),
)
LABEL_X = 72.0
COLUMNS = ((300.0, 380.0), (390.0, 470.0), (480.0, 560.0))  # x0, x1 of each value column
TOP = 150.0  # the header row's top
ROW = 18.0  # row height
FONT = 9.0
REGULAR, BOLD = "TabRegular", "TabBold"  # Helvetica, embedded: the base-14 one has no "—"

PROSE = (
    "The observatory on the ridge was founded in 1962 and has been run by volunteers ever "
    "since. Its main telescope, completed in 1987, has a mirror of 1.2 metres; a solar "
    "telescope followed in 2004. About 4,500 visitors come each year, most of them in July "
    "and August, when the weather is dry and the nights are short. The village below has a "
    "bakery, a school with 120 pupils and a small museum of local history. "
)


def table_pdf(path: Path, ruled: bool) -> Path:
    """One page: prose, the captioned table (with ruling lines when `ruled`), prose."""
    import pymupdf

    doc = pymupdf.open()  # type: ignore[no-untyped-call]
    page: Any = doc.new_page(width=612, height=792)
    for name, font in ((REGULAR, "helv"), (BOLD, "hebo")):
        page.insert_font(fontname=name, fontbuffer=_font(font).buffer)
    page.insert_textbox((LABEL_X, 50, 560, 110), PROSE, fontsize=FONT)
    page.insert_text((LABEL_X, 122), CAPTION, fontsize=11, fontname=BOLD)
    page.insert_text((LABEL_X, 136), UNIT_LINE, fontsize=FONT, fontname=REGULAR)
    _table(page, ruled)
    bottom = TOP + ROW * (len(ROWS) + 1)
    page.insert_textbox((LABEL_X, bottom + 20, 560, bottom + 120), PROSE, fontsize=FONT)
    return _save(doc, path)


def table_bottom() -> float:
    return TOP + ROW * (len(ROWS) + 1)


def _table(page: Any, ruled: bool) -> None:
    for (_, x1), year in zip(COLUMNS, YEARS, strict=True):
        _right(page, x1 - 4, TOP + 13, year, BOLD)
    for index, (label, values) in enumerate(ROWS, start=1):
        baseline = TOP + index * ROW + 13
        page.insert_text((LABEL_X + 2, baseline), label, fontsize=FONT, fontname=REGULAR)
        for (x0, x1), value in zip(COLUMNS, values, strict=True):
            if value.startswith("$ "):
                page.insert_text((x0 + 4, baseline), "$", fontsize=FONT, fontname=REGULAR)
                value = value[2:]
            _right(page, x1 - 4, baseline, value, REGULAR)
    if ruled:
        _rules(page)


def _font(name: str) -> Any:
    import pymupdf

    return pymupdf.Font(name)  # type: ignore[no-untyped-call]


def _right(page: Any, right: float, baseline: float, text: str, font: str) -> None:
    width = _font("hebo" if font == BOLD else "helv").text_length(text, fontsize=FONT)
    page.insert_text((right - width, baseline), text, fontsize=FONT, fontname=font)


def _rules(page: Any) -> None:
    bottom = table_bottom()
    for row in range(len(ROWS) + 2):
        y = TOP + row * ROW
        page.draw_line((LABEL_X, y), (COLUMNS[-1][1], y), width=0.5)
    for x in (LABEL_X, *(x0 - 5 for x0, _ in COLUMNS), COLUMNS[-1][1]):
        page.draw_line((x, TOP), (x, bottom), width=0.5)


def prose_pdf(path: Path, columns: int) -> Path:
    """One page of paragraphs, in one column or two."""
    import pymupdf

    doc = pymupdf.open()  # type: ignore[no-untyped-call]
    page: Any = doc.new_page(width=612, height=792)
    width = (612 - 2 * 72 - 24 * (columns - 1)) / columns
    for column in range(columns):
        x0 = 72 + column * (width + 24)
        for block in range(4):
            y0 = 72 + block * 170
            page.insert_textbox((x0, y0, x0 + width, y0 + 160), PROSE * 2, fontsize=10)
    return _save(doc, path)


def continued_table_pdf(path: Path, repeat_header: bool = False, gap: float = 0.0) -> Path:
    """Two pages: the captioned table begins at the foot of the first (header and three rows)
    and goes on at the top of the second (two rows, under the header again when
    `repeat_header`), then prose; `gap` moves the second part down the page."""
    import pymupdf

    doc = pymupdf.open()  # type: ignore[no-untyped-call]
    first = _page_with_fonts(doc)
    first.insert_textbox((LABEL_X, 50, 560, 560), PROSE * 5, fontsize=FONT)
    first.insert_text((LABEL_X, 572), CAPTION, fontsize=11, fontname=BOLD)
    first.insert_text((LABEL_X, 586), UNIT_LINE, fontsize=FONT, fontname=REGULAR)
    _rows(first, 600.0, ROWS[:3], header=True)
    second = _page_with_fonts(doc)  # a page is filled before the next is made (PyMuPDF)
    bottom = _rows(second, 60.0 + gap, ROWS[3:], header=repeat_header)
    second.insert_textbox((LABEL_X, bottom + 20, 560, bottom + 200), PROSE, fontsize=FONT)
    return _save(doc, path)


def _page_with_fonts(doc: Any) -> Any:
    page = doc.new_page(width=612, height=792)
    for name, font in ((REGULAR, "helv"), (BOLD, "hebo")):
        page.insert_font(fontname=name, fontbuffer=_font(font).buffer)
    return page


def _rows(page: Any, top: float, rows: Any, header: bool, years: Any = YEARS) -> float:
    """The header (when asked) and `rows` from `top` down; returns the bottom."""
    y = top
    if header:
        for (_, x1), year in zip(COLUMNS, years, strict=True):
            _right(page, x1 - 4, y + 13, year, BOLD)
        y += ROW
    for label, values in rows:
        page.insert_text((LABEL_X + 2, y + 13), label, fontsize=FONT, fontname=REGULAR)
        for (x0, x1), value in zip(COLUMNS, values, strict=True):
            if value.startswith("$ "):
                page.insert_text((x0 + 4, y + 13), "$", fontsize=FONT, fontname=REGULAR)
                value = value[2:]
            _right(page, x1 - 4, y + 13, value, REGULAR)
        y += ROW
    return y


def rotated_pdf(path: Path, source: Path, rotation: int) -> Path:
    """The source's page drawn sideways on a landscape page that /Rotate turns upright, as
    landscape statements are printed."""
    import pymupdf

    doc = pymupdf.open()  # type: ignore[no-untyped-call]
    page: Any = doc.new_page(width=792, height=612)
    with pymupdf.open(source) as src:  # type: ignore[no-untyped-call]
        page.show_pdf_page(page.rect, src, 0, rotate=rotation)
    page.set_rotation(rotation)
    return _save(doc, path)


def _save(doc: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(str(path))
    doc.close()
    return path


def page_dict(path: Path) -> dict[str, Any]:
    """What the loader hands on: the page's "dict" text with its flags."""
    import pymupdf

    flags = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES
    with pymupdf.open(path) as doc:  # type: ignore[no-untyped-call]
        found: dict[str, Any] = doc[0].get_text("dict", sort=True, flags=flags)
    return found


def words(path: Path) -> list[Any]:
    """The first page's words, as PyMuPDF reads them: (x0, y0, x1, y1, text, ...)."""
    import pymupdf

    with pymupdf.open(path) as doc:  # type: ignore[no-untyped-call]
        found: list[Any] = doc[0].get_text("words")
    return found


def words_in(words: list[Any], box: tuple[float, float, float, float]) -> str:
    """The page's words whose centre lies in the box."""
    centres = [((word[0] + word[2]) / 2, (word[1] + word[3]) / 2, word[4]) for word in words]
    inside = [text for x, y, text in centres if box[0] <= x <= box[2] and box[1] <= y <= box[3]]
    return " ".join(inside)


# A 10-K's statements in miniature, each on its own page, for the ratio worksheet
INCOME_ROWS = (
    ("Revenues", ("$ 44,538", "$ 37,403", "$ 39,117")),
    ("Cost of sales", ("24,576", "21,162", "21,643")),
    ("Gross profit", ("19,962", "16,241", "17,474")),
    ("Demand creation expense", ("3,114", "3,592", "3,753")),
    ("Operating overhead expense", ("9,911", "9,534", "8,949")),
    ("Interest expense (income), net", ("262", "89", "49")),
    ("Income before income taxes", ("6,661", "2,887", "4,801")),
    ("Income tax expense", ("934", "348", "772")),
    ("Net income", ("$ 5,727", "$ 2,539", "$ 4,029")),
)
BALANCE_ROWS = (
    ("Cash and equivalents", ("$ 9,889", "$ 8,348", "$ 4,466")),
    ("Short-term investments", ("3,587", "439", "197")),
    ("Accounts receivable, net", ("4,463", "2,749", "4,272")),
    ("Inventories", ("6,854", "7,367", "5,622")),
    ("Total current assets", ("26,291", "20,556", "16,525")),
    ("Total assets", ("$ 37,740", "$ 31,342", "$ 23,717")),
    ("Accounts payable", ("$ 2,836", "$ 2,248", "$ 2,612")),
    ("Total current liabilities", ("9,674", "8,284", "7,866")),
    ("Total shareholders' equity", ("12,767", "8,055", "9,040")),
)
STATEMENTS = (("CONSOLIDATED STATEMENTS OF INCOME", INCOME_ROWS),
              ("CONSOLIDATED BALANCE SHEETS", BALANCE_ROWS))  # fmt: skip


def statements_pdf(path: Path) -> Path:
    """Three pages: the company's overview in prose, then its income statement and its
    balance sheet (captions, "(In millions)", years 2021 2020 2019), a table a page."""
    import pymupdf

    doc = pymupdf.open()  # type: ignore[no-untyped-call]
    overview = _page_with_fonts(doc)
    overview.insert_textbox((LABEL_X, 72, 560, 400), "Trailrunner Outfitters makes shoes and "
                            "apparel. " + PROSE, fontsize=FONT)  # fmt: skip
    for caption, rows in STATEMENTS:
        page = _page_with_fonts(doc)
        page.insert_text((LABEL_X, 122), caption, fontsize=11, fontname=BOLD)
        page.insert_text((LABEL_X, 136), "(In millions)", fontsize=FONT, fontname=REGULAR)
        _rows(page, TOP, rows, header=True, years=("2021", "2020", "2019"))
    return _save(doc, path)
