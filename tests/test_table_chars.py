"""The faster character list (ingest/table_chars.py), the shared text pages and the remembered
header tests (table_speedups) read the same tables as PyMuPDF's own code: the character
dictionaries compared key for key on the table test PDFs (upright, rotated, with a moved
media box), chars_in_rect on random boxes, the header tests on cells and rows, and the tables
read with and without all of them."""

from __future__ import annotations

import random
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import pytest

from desktop_rag.ingest import table_chars, table_speedups
from desktop_rag.ingest.pdf_pages import open_pdf
from tests.table_pdfs import continued_table_pdf, rotated_pdf, statements_pdf, table_pdf

pymupdf = pytest.importorskip("pymupdf")


def own(name: str) -> Any:
    from pymupdf import table

    table_speedups.install()
    return table_chars._own.get(name, getattr(table, name))


def chars_of(make: Any, page: Any) -> list[dict[str, Any]]:
    from pymupdf import table

    listed: list[dict[str, Any]] = table.CHARS._list()  # type: ignore[no-untyped-call]
    listed.clear()
    make(page)
    found = list(listed)
    listed.clear()
    return found


def moved_media_box(path: Path, source: Path) -> Path:
    """source's first page with its media box moved off the origin (a non-zero translation in
    the page's matrix) and a line of text set at an angle."""
    doc = pymupdf.open(source)
    page = doc[0]
    page.insert_text((100, 700), "Tilted 12.5 per cent", fontsize=9, rotate=90)
    page.set_mediabox(pymupdf.Rect(10, 20, page.rect.width - 5, page.rect.height - 7))
    doc.save(path)
    return path


def sample_pdfs(tmp_path: Path) -> list[Path]:
    plain = table_pdf(tmp_path / "plain.pdf", ruled=False)
    return [
        table_pdf(tmp_path / "ruled.pdf", ruled=True), plain,
        statements_pdf(tmp_path / "st.pdf"), continued_table_pdf(tmp_path / "cont.pdf"),
        rotated_pdf(tmp_path / "rot90.pdf", plain, 90),
        rotated_pdf(tmp_path / "rot270.pdf", plain, 270),
        moved_media_box(tmp_path / "moved.pdf", plain),
    ]


def test_the_same_characters_as_pymupdf(tmp_path: Path) -> None:
    theirs = own("make_chars")
    pages = 0
    for pdf in sample_pdfs(tmp_path):
        with open_pdf(str(pdf)) as doc:
            for page in doc:
                expected = chars_of(theirs, page)
                assert expected, pdf.name
                assert chars_of(table_chars.make_chars, page) == expected, pdf.name
                pages += 1
    assert pages >= 8


def test_chars_in_rect_answers_as_pymupdf(tmp_path: Path) -> None:
    theirs, rng = own("chars_in_rect"), random.Random(5)
    with open_pdf(str(statements_pdf(tmp_path / "st.pdf"))) as doc:
        chars = chars_of(own("make_chars"), doc[0])
    answers = set()
    for _ in range(400):
        x0, y0 = rng.uniform(0, 600), rng.uniform(0, 800)
        rect = (x0, y0, x0 + rng.uniform(0, 250), y0 + rng.uniform(0, 120))
        answer = table_chars.chars_in_rect(chars, rect)
        assert answer == theirs(chars, rect)
        answers.add(answer)
    assert answers == {True, False}
    assert table_chars.chars_in_rect(chars[:3], (0, -1e9, 1e9, 1e9)) is True  # a new list
    assert table_chars.chars_in_rect([], (0, 0, 1e9, 1e9)) is False


def test_tables_read_the_same_with_and_without_the_stand_ins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pymupdf import _table_headers, table

    from desktop_rag.ingest import table_extract
    from desktop_rag.ingest.table_extract import page_tables

    def read_all(pdf: Path) -> list[Any]:
        with open_pdf(str(pdf)) as doc:
            return [page_tables(page, page.number + 1, strict=True) for page in doc]

    for pdf in sample_pdfs(tmp_path):
        ours = read_all(pdf)
        for name in ("make_chars", "chars_in_rect"):
            monkeypatch.setattr(table, name, own(name))
        for name, function in header_tests().items():
            monkeypatch.setattr(_table_headers, name, function)
        monkeypatch.setattr(table_extract, "shared_textpages", _no_sharing)
        assert read_all(pdf) == ours, pdf.name
        monkeypatch.undo()
    assert any(read_all(tmp_path / "plain.pdf"))


def header_tests() -> dict[str, Any]:
    """PyMuPDF's own header tests, under the remembered ones."""
    from pymupdf import _table_headers

    table_speedups.install()
    found = {}
    for name in (*table_speedups._CELL_TESTS, *table_speedups._ROW_TESTS):
        ours = getattr(_table_headers, name)
        found[name] = getattr(ours, "__wrapped__", None) or getattr(ours, "own", None)
        assert found[name] is not None and found[name] is not ours, name
    return found


def test_remembered_header_tests_answer_as_pymupdf() -> None:
    from pymupdf import _table_headers

    theirs, rng = header_tests(), random.Random(11)
    cells = ["", "  ", "Revenue", "$ 1,234", "(12.5)%", "2015", "Q3 2014", "January 5, 2022",
             "Net income attributable to shareholders of the company", "AB-1234", "12 - 18",
             "in thousands", "usd", "3,5", "—"]
    for cell in cells:
        for name in table_speedups._CELL_TESTS:
            assert getattr(_table_headers, name)(cell) == theirs[name](cell), (name, cell)
    for _ in range(300):
        row = [rng.choice(cells) for _ in range(rng.randint(0, 6))]
        for name in table_speedups._ROW_TESTS:
            first = getattr(_table_headers, name)(row)
            assert first == theirs[name](row), (name, row)
            first["cell_count"] = -1.0  # a caller changing its copy changes no later answer
            assert getattr(_table_headers, name)(row) == theirs[name](row)


def _no_sharing(page: Any) -> AbstractContextManager[None]:
    return nullcontext()


def test_a_page_makes_each_kind_of_text_page_once(tmp_path: Path) -> None:
    with open_pdf(str(table_pdf(tmp_path / "t.pdf", ruled=False))) as doc:
        page = doc[0]
        with table_speedups.shared_textpages(page):
            first = page.get_textpage(flags=0)
            assert page.get_textpage(flags=0) is first
            assert page.get_textpage(None, 0) is first
            assert page.get_textpage(flags=pymupdf.TEXTFLAGS_DICT) is not first
            assert page.get_textpage(clip=(0, 0, 100, 100), flags=0) is not first
            with table_speedups.shared_textpages(page):  # nested: the outer one's
                assert page.get_textpage(flags=0) is first
            assert page.get_textpage(flags=0) is first
        assert "get_textpage" not in vars(page)
        assert page.get_textpage(flags=0) is not first
