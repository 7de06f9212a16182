"""The faster PyMuPDF table helpers (ingest/table_speedups.py) read the same tables: compared with
PyMuPDF's own code on random rectangles, on the table test PDFs and on a report-like page with
shaded rows and a shaded table background (the case the helper is for)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from desktop_rag.ingest import table_speedups
from desktop_rag.ingest.pdf_pages import open_pdf
from desktop_rag.ingest.table_extract import page_tables
from tests.table_pdfs import (
    COLUMNS,
    LABEL_X,
    ROW,
    ROWS,
    TOP,
    continued_table_pdf,
    statements_pdf,
    table_pdf,
)

pymupdf = pytest.importorskip("pymupdf")
NAME = "_refine_cell_background_rects"


def own_helper() -> Any:
    from pymupdf import _table_refine

    table_speedups.install()
    return table_speedups._replaced.get(NAME, getattr(_table_refine, NAME))


def random_rects(rng: random.Random) -> list[Any]:
    rects = []
    for _ in range(rng.randint(0, 60)):
        x0 = rng.choice([rng.uniform(0, 600), float(rng.randint(0, 60) * 10)])
        y0 = rng.choice([rng.uniform(0, 800), float(rng.randint(0, 80) * 10)])
        w = rng.choice([0.0, rng.uniform(0, 200), float(rng.randint(0, 20) * 10)])
        h = rng.choice([0.0, rng.uniform(0, 50), float(rng.randint(0, 5) * 10)])
        rect = pymupdf.Rect(x0, y0, x0 + w, y0 + h)
        rect.normalize()
        rects.append(rect)
    return rects + [pymupdf.Rect(r) for r in rng.sample(rects, min(5, len(rects)))]


def test_the_same_rectangles_are_kept_as_by_pymupdf() -> None:
    own, rng = own_helper(), random.Random(3)
    for _ in range(300):
        rects = random_rects(rng)
        assert [id(r) for r in table_speedups.background_rects(rects)] == [
            id(r) for r in own(rects)]  # fmt: skip


def shaded_pdf(path: Path) -> Path:
    """table_pdf's table on a grey background, every other row shaded darker per cell."""
    table_pdf(path.with_suffix(".plain.pdf"), ruled=False)
    doc = pymupdf.open(path.with_suffix(".plain.pdf"))
    page = doc[0]
    bottom = TOP + ROW * (len(ROWS) + 1)
    page.draw_rect((LABEL_X - 4, TOP, 564, bottom), color=None, fill=(0.93, 0.93, 0.93),
                   overlay=False)  # fmt: skip
    for row in range(1, len(ROWS) + 1, 2):
        y0 = TOP + row * ROW
        for x0, x1 in ((LABEL_X - 2, COLUMNS[0][0] - 2), *COLUMNS):
            page.draw_rect((x0, y0, x1, y0 + ROW), color=None, fill=(0.8, 0.85, 0.9),
                           overlay=False)  # fmt: skip
    doc.save(path)
    return path


def read_all(path: Path) -> list[Any]:
    with open_pdf(str(path)) as doc:
        return [page_tables(doc.load_page(i), i + 1, strict=True) for i in range(doc.page_count)]


def test_the_table_test_pdfs_read_the_same_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pymupdf import _table_refine

    pdfs = [table_pdf(tmp_path / "ruled.pdf", ruled=True),
            table_pdf(tmp_path / "plain.pdf", ruled=False), statements_pdf(tmp_path / "st.pdf"),
            continued_table_pdf(tmp_path / "cont.pdf"), shaded_pdf(tmp_path / "shaded.pdf")]
    own = own_helper()
    seen: list[int] = []

    def ours(rects: list[Any], **options: Any) -> list[Any]:
        seen.append(len(rects))
        return table_speedups.background_rects(rects, **options)

    for pdf in pdfs:
        monkeypatch.setattr(_table_refine, NAME, own)
        theirs = read_all(pdf)
        monkeypatch.setattr(_table_refine, NAME, ours)
        assert read_all(pdf) == theirs, pdf.name
        assert any(theirs), pdf.name  # tables were read at all
    assert max(seen) >= 2  # the shaded page's rectangles went through it


def test_one_onnx_thread_in_a_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    ort = pytest.importorskip("onnxruntime")
    monkeypatch.setattr(ort, "SessionOptions", ort.SessionOptions)  # undone after the test
    table_speedups.one_onnx_thread()
    table_speedups.one_onnx_thread()  # once only
    made = ort.SessionOptions()
    assert (made.intra_op_num_threads, made.inter_op_num_threads) == (1, 1)
