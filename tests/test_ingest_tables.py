"""Tables: the cheap page detector, extraction from real PDFs (ruled and unruled), and the
row text that is indexed, with the cell boxes a citation highlights."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import table_pdfs
from table_pdfs import CAPTION, COLUMNS, ROW, TOP, YEARS, page_dict, words, words_in

from desktop_rag.ingest.table_detect import looks_tabular
from desktop_rag.ingest.table_extract import extract_tables, page_tables
from desktop_rag.ingest.table_model import (
    Box,
    TableBlock,
    TableCell,
    TableRow,
    cell_value,
    find_unit,
    render_row,
    render_title,
    shape_table,
    unit_short,
)

MMLONGBENCH = Path(__file__).resolve().parents[2] / "shared" / "data" / "mmlongbench"
NETFLIX = MMLONGBENCH / "documents" / "NETFLIX_2015_10K.pdf"
UNIT = "in thousands, except per share data"


@pytest.fixture(scope="module")
def pdfs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("tables")
    return {
        "ruled": table_pdfs.table_pdf(folder / "ruled.pdf", ruled=True),
        "unruled": table_pdfs.table_pdf(folder / "unruled.pdf", ruled=False),
        "prose": table_pdfs.prose_pdf(folder / "prose.pdf", columns=1),
        "two_columns": table_pdfs.prose_pdf(folder / "two_columns.pdf", columns=2),
    }


@pytest.fixture(scope="module")
def tables(pdfs: dict[str, Path]) -> dict[str, list[TableBlock]]:
    """Each PDF's tables, extracted once (the layout model takes about a second a page)."""
    return {name: extract_tables(str(path), 0) for name, path in pdfs.items()}


# --- the detector -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [("ruled", True), ("unruled", True), ("prose", False), ("two_columns", False)],
)
def test_detector_flags_table_pages_not_prose(
    pdfs: dict[str, Path], name: str, expected: bool
) -> None:
    assert looks_tabular(page_dict(pdfs[name])) is expected


def test_detector_is_cheap_and_takes_pages_without_text(pdfs: dict[str, Path]) -> None:
    assert looks_tabular({}) is looks_tabular({"blocks": [{"type": 1}]}) is False
    page = page_dict(pdfs["ruled"])
    started = time.perf_counter()
    for _ in range(20):
        looks_tabular(page)
    assert (time.perf_counter() - started) / 20 < 0.05  # measured: about a millisecond


# --- extraction ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["ruled", "unruled"])
def test_table_extracted_with_caption_unit_and_columns(
    tables: dict[str, list[TableBlock]], name: str
) -> None:
    [block] = tables[name]
    assert (block.page, block.caption, block.unit) == (1, CAPTION, UNIT)
    assert block.columns == ("", *YEARS)
    assert [row.label.text for row in block.rows if row.label] == [
        label for label, _ in table_pdfs.ROWS
    ]
    assert render_title(block) == f"{CAPTION} ({UNIT})"


@pytest.mark.parametrize("name", ["ruled", "unruled"])
def test_values_kept_as_printed(tables: dict[str, list[TableBlock]], name: str) -> None:
    rows = {row.label.text: row for row in tables[name][0].rows if row.label}
    assert _values(rows["Revenues"]) == [
        ("2015", "$ 4,180,339"),
        ("2014", "$ 3,431,434"),
        ("2013", "$ 2,751,375"),
    ]
    assert _values(rows["Other income (expense)"]) == [("2015", "(1,577)"), ("2013", "3,102")]
    assert _values(rows["Contribution profit"])[0] == ("2015", "$ 1,373,923")


@pytest.mark.parametrize("name", ["ruled", "unruled"])
def test_cell_boxes_lie_in_their_row_and_column(
    tables: dict[str, list[TableBlock]], name: str
) -> None:
    block = tables[name][0]
    for index, row in enumerate(block.rows, start=1):
        cells = [cell for _, cell in row.values] + ([row.label] if row.label else [])
        assert all(_inside(cell.box, block.bbox) for cell in cells)
        middle = TOP + (index + 0.5) * ROW
        assert all(cell.box[1] < middle < cell.box[3] for cell in cells)
    for (x0, x1), (_, cell) in zip(COLUMNS, block.rows[0].values, strict=True):
        assert cell.box[0] < x1 and cell.box[2] > x0  # in its column


@pytest.mark.parametrize("name", ["ruled", "unruled"])
def test_markdown_grid(tables: dict[str, list[TableBlock]], name: str) -> None:
    lines = tables[name][0].markdown.splitlines()
    assert lines[:2] == ["|  | 2015 | 2014 | 2013 |", "| --- | --- | --- | --- |"]
    assert lines[2] == "| Revenues | $ 4,180,339 | $ 3,431,434 | $ 2,751,375 |"
    assert "| Other income (expense) | (1,577) |  | 3,102 |" in lines
    assert len(lines) == 2 + len(table_pdfs.ROWS)


@pytest.mark.parametrize("name", ["ruled", "unruled"])
def test_row_text_and_spans_point_at_the_cells(
    pdfs: dict[str, Path], tables: dict[str, list[TableBlock]], name: str
) -> None:
    block = tables[name][0]
    rendered = render_row(block.rows[0], unit_short(block.unit))
    assert rendered.text == (
        "Revenues — 2015: $ 4,180,339 | 2014: $ 3,431,434 | 2013: $ 2,751,375 (in thousands)"
    )
    pieces = [rendered.text[start:end] for start, end, _ in rendered.spans]
    assert pieces == ["Revenues", "2015: $ 4,180,339", "2014: $ 3,431,434", "2013: $ 2,751,375"]
    printed_words = words(pdfs[name])
    for (start, end, box), piece in zip(rendered.spans, pieces, strict=True):
        assert rendered.text[start:end] == piece
        printed = piece.split(": ")[-1].removeprefix("$ ")
        assert printed in words_in(printed_words, box), (piece, box)


def test_page_tables_on_an_open_page(pdfs: dict[str, Path]) -> None:
    import pymupdf

    with pymupdf.open(pdfs["ruled"]) as doc:  # type: ignore[no-untyped-call]
        page: Any = doc[0]
        page.get_layout()  # its plain form would leave find_tables(union=True) empty-handed
        [block] = page_tables(page, 7)
    assert (block.page, block.columns) == (7, ("", *YEARS))


def test_prose_or_unreadable_input_gives_no_tables(
    tmp_path: Path, pdfs: dict[str, Path], tables: dict[str, list[TableBlock]]
) -> None:
    assert tables["prose"] == tables["two_columns"] == []
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\nnot really")
    assert extract_tables(str(tmp_path / "missing.pdf"), 0) == []
    assert extract_tables(str(broken), 0) == []
    assert extract_tables(str(pdfs["ruled"]), 5) == []
    assert page_tables(object(), 1) == []


@pytest.mark.parametrize("rotation", [90, 270])
def test_rotated_page_read_upright_boxes_in_page_space(
    tmp_path: Path, pdfs: dict[str, Path], rotation: int
) -> None:
    path = table_pdfs.rotated_pdf(tmp_path / "rotated.pdf", pdfs["ruled"], rotation)
    before = path.read_bytes()
    [block] = extract_tables(str(path), 0)
    assert path.read_bytes() == before  # the document is turned in memory only
    assert (block.caption, block.unit, block.columns) == (CAPTION, UNIT, ("", *YEARS))
    revenue = block.rows[0].values[0][1]
    assert revenue.text == "$ 4,180,339"
    assert "4,180,339" in words_in(words(path), revenue.box)  # where the loader's lines are


# --- the model: shaping a grid and rendering rows -----------------------------------------


def _grid(rows: list[list[str]]) -> list[list[tuple[int, TableCell]]]:
    """A finder's grid: each text its own cell in 10 pt boxes, equal neighbours one spanning
    cell (one serial)."""
    grid = [
        [(r * 100 + c, TableCell(text, (c * 10.0, r * 10.0, c * 10.0 + 10, r * 10.0 + 10)))
         for c, text in enumerate(texts)]
        for r, texts in enumerate(rows)
    ]  # fmt: skip
    for row in grid:
        for c in range(1, len(row)):
            if row[c][1].text and row[c][1].text == row[c - 1][1].text:
                row[c] = (row[c - 1][0], row[c][1])
    return grid


def test_shape_repairs_split_headers_and_joins_dollar_cells() -> None:
    grid = _grid(
        [
            ["", "Year Ended", "Year Ended", "Year Ended", "Change", "Change"],
            ["", "2015", "2015", "2014", "2015 vs.", "2014"],  # 2015 spans its "$" column
            ["Revenues", "$", "4,180,339", "3,431,434", "1,658,744 $", "22 %"],
            ["Operating expenses:", "", "", "", "", ""],
            ["Marketing", "", "317,646", "—", "(1,577)", ""],
            ["Total operating expenses", "", "317,646", "-", "(1,577)", ""],
            ["Other", "", "1", "", "", ""],
            ["Growth", "", "19", "% $ 39,117", "", ""],  # a "%" cut off its number
        ]
    )
    shaped = shape_table(grid, 1)
    assert shaped is not None
    assert shaped.columns == ("", "2015", "2014", "2015 vs. 2014", "2015 vs. 2014")
    revenues, section, marketing, total, other, growth = shaped.rows
    assert _values(revenues) == [
        ("2015", "$ 4,180,339"),
        ("2014", "3,431,434"),
        ("2015 vs. 2014", "1,658,744"),
        ("2015 vs. 2014", "22 %"),
    ]
    assert revenues.values[0][1].box == (10.0, 20.0, 30.0, 30.0)  # "$" and number, one cell
    assert section.section and section.values == ()
    assert marketing.parent == "Operating expenses:" and not marketing.section
    assert _values(marketing) == [("2015", "317,646"), ("2015 vs. 2014", "(1,577)")]
    assert total.parent == "Operating expenses:"
    assert other.parent == ""  # the total closed the section
    assert _values(growth) == [("2015", "19 %"), ("2014", "$ 39,117")]
    assert render_row(marketing, "in millions").text == (
        "Operating expenses: Marketing — 2015: 317,646 | 2015 vs. 2014: (1,577) (in millions)"
    )
    assert render_row(total, "").text.startswith("Total operating expenses — ")  # no repeat


def test_shape_finds_header_rows_the_finder_missed() -> None:
    grid = _grid([["", "MAY", "31,"], ["", "2021", "2020"], ["Cash", "9,889", "8,348"]])
    shaped = shape_table(grid, 0)
    assert shaped is not None
    assert shaped.columns == ("", "2021", "2020")
    grid = _grid([["2016", "42,545"], ["2017", "54,811"], ["Total", "97,356"]])
    shaped = shape_table(grid, 1)  # the finder took the first row of data for a header
    assert shaped is not None
    assert [row.label.text for row in shaped.rows if row.label] == ["2016", "2017", "Total"]


def test_shape_gives_up_without_two_columns() -> None:
    assert shape_table(_grid([["", "2015"], ["Revenues", "—"], ["Costs", ""]]), 1) is None


def test_units() -> None:
    assert find_unit("(in thousands, except per share data)") == ("", UNIT)
    assert find_unit("Revenue (Dollars in millions)") == ("Revenue", "Dollars in millions")
    assert find_unit("Revenues") == ("Revenues", "")
    assert unit_short(UNIT) == "in thousands"
    assert unit_short("Dollars in Millions") == "in millions"
    assert unit_short("except per share data") == ""


def test_cell_values() -> None:
    assert cell_value("1,658,744 $") == "1,658,744"
    assert cell_value("(1,577)") == "(1,577)"
    assert cell_value(" $ 4,180,339\n") == "$ 4,180,339"
    assert [cell_value(dash) for dash in ("—", "-", "–", "$", "—%", "")] == [""] * 6


def test_render_rows_and_titles_without_label_unit_or_caption() -> None:
    box: Box = (0, 0, 1, 1)
    row = TableRow(None, (("2015", TableCell("33%", box)), ("2014", TableCell("27 %", box))))
    assert render_row(row, "in thousands").text == "2015: 33% | 2014: 27 %"  # percentages
    assert render_row(row, "in thousands").spans == ((0, 9, box), (12, 22, box))
    section = TableRow(TableCell("Memberships:", box), (), section=True)
    assert render_row(section, "in thousands").text == "Memberships:"
    bare = TableRow(TableCell("Revenues", box), (("", TableCell("5", box)),))
    assert render_row(bare, "").text == "Revenues — 5"

    assert render_title(TableBlock(1, box, "", "", ("", "2015"), (), "")) == "Table"
    assert render_title(TableBlock(1, box, "", UNIT, (), (), "")) == f"Table ({UNIT})"


@pytest.mark.slow
@pytest.mark.skipif(not NETFLIX.exists(), reason="MMLongBench documents not present")
def test_netflix_domestic_streaming_segment() -> None:
    started = time.perf_counter()
    blocks = extract_tables(str(NETFLIX), 20)
    seconds = time.perf_counter() - started
    [block] = [block for block in blocks if "Domestic Streaming" in block.caption]
    assert "thousands" in block.unit
    assert block.columns[1:4] == ("2015", "2014", "2013")
    rows = [render_row(row, unit_short(block.unit)) for row in block.rows]
    [revenues] = [row for row in rows if "Revenues —" in row.text]
    assert "Revenues — 2015: $ 4,180,339 | 2014: $ 3,431,434 | 2013: $ 2,751,375" in revenues.text
    assert revenues.text.endswith("(in thousands)")
    assert all("\n" not in row.text for row in rows)
    assert seconds < 60


def _values(row: TableRow) -> list[tuple[str, str]]:
    return [(column, cell.text) for column, cell in row.values]


def _inside(box: Box, outer: Box) -> bool:
    return outer[0] <= box[0] < box[2] <= outer[2] and outer[1] <= box[1] < box[3] <= outer[3]


def test_a_first_row_that_names_every_column_is_the_header() -> None:
    """A paper's results table: "Method | MMLU Physics | MMLU Chemistry" over values with their
    spread; without the header each row read "GPT-4 — 70.3% (2.3%) | 79.9% (1.0%)"."""
    grid = _grid([["Method", "MMLU Physics", "MMLU Chemistry"],
                  ["PaLM-2L", "66.4% (0.8%)", "70.9% (0.9%)"],
                  ["GPT-4", "70.3% (2.3%)", "79.9% (1.0%)"]])  # fmt: skip
    shaped = shape_table(grid, 0)
    assert shaped is not None and shaped.columns == ("Method", "MMLU Physics", "MMLU Chemistry")
    assert render_row(shaped.rows[-1], "").text == (
        "GPT-4 — MMLU Physics: 70.3% (2.3%) | MMLU Chemistry: 79.9% (1.0%)")  # fmt: skip
    words = shape_table(_grid([["Name", "Role"], ["Anna", "Lead"], ["Lars", "Chair"]]), 0)
    assert words is not None and next(r.label.text for r in words.rows if r.label) == "Name"


def _cell_line(x: float, y: float, text: str) -> dict[str, object]:
    span = {"text": text, "flags": 0, "font": "Helvetica"}
    return {"bbox": (x, y, x + 5.0 * len(text), y + 10.0), "spans": [span]}


def test_detector_takes_rows_of_values_with_their_spread() -> None:
    rows = [("PaLM-2L", "66.4% (0.8%)", "70.9% (0.9%)"),
            ("PaLM-2L + CoT", "65% (2%)", "75.3% (1.5%)"),
            ("GPT-4", "70.3% (2.3%)", "79.9% (1.0%)")]  # fmt: skip
    lines = [_cell_line(x, 100.0 + 14 * r, text) for r, row in enumerate(rows)
             for x, text in zip((60.0, 300.0 - 5.0 * len(row[1]), 420.0 - 5.0 * len(row[2])), row,
                                strict=True)]  # fmt: skip
    assert looks_tabular({"blocks": [{"lines": lines}]})
