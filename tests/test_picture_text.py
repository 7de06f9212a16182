"""Words inside pictures on pages with a text layer (ingest/picture_text.py): which pictures are
read, which OCR'd lines are kept, and the words found by search through the real library
(PyMuPDF's Tesseract, MiniLM, Chroma and the catalog on disk), boxed where the picture is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_rag.bootstrap import build_context
from desktop_rag.config import Settings
from desktop_rag.domain.protocols import Embedder
from desktop_rag.ingest.ocr import OcrConfig, find_tessdata
from desktop_rag.ingest.page_extras import read_page_extras
from desktop_rag.ingest.pdf_pages import page_text
from desktop_rag.ingest.picture_text import (
    LABEL,
    PictureText,
    has_pictures,
    picture_boxes,
    plausible,
    with_pictures,
)
from desktop_rag.services import Services

TESSDATA = find_tessdata("", "eng")
needs_tessdata = pytest.mark.skipif(
    TESSDATA is None, reason="no Tesseract English data here (apt install tesseract-ocr-eng)"
)
PROSE = "The quarterly report describes the pumping stations of the northern district."
PICTURE_LINES = ["Zorblax intake volume", "North basin 4,180 litres", "South basin 37%"]
PICTURE_BOX = (72.0, 200.0, 472.0, 400.0)
SETTINGS = Settings(profile="tiny").updated({"ingest.ocr_processes": 1})


def picture_png(lines: list[str]) -> bytes:
    """A chart-like picture: dark words on white, rendered to pixels (no text layer)."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=400, height=200)
    for i, line in enumerate(lines):
        page.insert_text((20, 50 + 50 * i), line, fontsize=22)
    png: bytes = page.get_pixmap(dpi=150).tobytes("png")
    doc.close()
    return png


def pdf_with_picture(path: Path, lines: list[str], logo: bool = True) -> Path:
    """Page 1: prose; page 2: prose above a large picture of `lines` (and a small logo)."""
    import pymupdf

    doc = pymupdf.open()
    doc.new_page().insert_text((72, 100), PROSE, fontsize=10)
    page = doc.new_page()
    page.insert_text((72, 100), "Figure 3 shows the intake of each basin.", fontsize=10)
    page.insert_image(pymupdf.Rect(*PICTURE_BOX), stream=picture_png(lines))
    if logo:
        page.insert_image(pymupdf.Rect(500, 40, 540, 80), stream=picture_png(["Logo"]))
    doc.save(path)
    doc.close()
    return path


@pytest.mark.parametrize("line", [
    "GLOBAL iOS BREAKDOWN", "Fine-tuning", "8%", "0-375", "Net surfing 37%", "$4.2 billion",
    "Approximate Distance from the Mississippi", "Time spent on weekends: 2010",
])  # fmt: skip
def test_lines_of_words_and_numbers_are_kept(line: str) -> None:
    assert plausible(line)


@pytest.mark.parametrize("line", [
    "|", "ee =", "seeeeene", "— | (GN | »", "; ~ ,", "Ld Co = —", "@ » ) a",
])  # fmt: skip
def test_ocr_noise_is_dropped(line: str) -> None:
    assert not plausible(line)


def test_only_large_pictures_are_read(tmp_path: Path) -> None:
    import pymupdf

    path = pdf_with_picture(tmp_path / "report.pdf", PICTURE_LINES)
    with pymupdf.open(path) as doc:
        assert picture_boxes(doc[0], page_text(doc[0])) == []
        (box,) = picture_boxes(doc[1], page_text(doc[1]))  # the logo is too small for words
    assert box == pytest.approx(PICTURE_BOX, abs=0.01)


def test_a_scan_that_carries_its_text_is_not_read_again(tmp_path: Path) -> None:
    """A "searchable PDF": the scanned page as a picture under an invisible OCR text layer."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    scan = [f"{PROSE[:60]} {n}" for n in range(8)]  # 80 words
    page.insert_image(page.rect, stream=picture_png(scan), keep_proportion=False)
    for n, line in enumerate(scan):
        page.insert_text((40, 60 + 20 * n), line, fontsize=9, render_mode=3)  # invisible
    doc.save(tmp_path / "searchable.pdf")
    with pymupdf.open(tmp_path / "searchable.pdf") as read:
        assert picture_boxes(read[0], page_text(read[0])) == []
        assert not has_pictures(read[0], page_text(read[0]))
    doc.close()


def test_picture_words_are_placed_among_the_blocks_by_their_top_edge() -> None:
    above = {"type": 0, "bbox": (72, 90, 300, 110), "lines": []}
    below = {"type": 0, "bbox": (72, 500, 300, 520), "lines": []}
    picture = PictureText(PICTURE_BOX, (("North basin 4,180 litres", (80, 260, 300, 280)),))
    blocks = with_pictures({"blocks": [above, below]}, [picture])["blocks"]
    assert blocks[0] is above and blocks[2] is below
    texts = [line["spans"][0]["text"] for line in blocks[1]["lines"]]
    assert texts == [LABEL, "North basin 4,180 litres"]
    assert blocks[1]["lines"][0]["bbox"] == PICTURE_BOX  # the label boxes the whole picture


@needs_tessdata
def test_a_pictures_words_are_read_with_their_boxes_on_the_page(tmp_path: Path) -> None:
    assert TESSDATA is not None
    path = pdf_with_picture(tmp_path / "report.pdf", [*PICTURE_LINES, "Figure 3 shows the intake"])
    ocr = OcrConfig(TESSDATA, pictures=True)
    extras = read_page_extras(str(path), 1, True, ocr)
    assert extras.tables == []
    (picture,) = extras.pictures
    text = " ".join(t for t, _ in picture.lines)
    assert "Zorblax" in text and "4,180" in text and "37%" in text
    assert "Figure 3 shows" not in text  # a line the page's own text has is not repeated
    x0, y0, x1, y1 = PICTURE_BOX
    for _, (a, b, c, d) in picture.lines:
        assert x0 - 1 <= a < c <= x1 + 1 and y0 - 1 <= b < d <= y1 + 1
    (_, box), *_ = [ln for ln in picture.lines if "Zorblax" in ln[0]]
    assert box[1] < y0 + 60  # the first line of the picture is near its top
    assert read_page_extras(str(path), 1, True, OcrConfig(TESSDATA)).pictures == []  # off


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    from desktop_rag.config.paths import resolve_paths
    from desktop_rag.models import ModelRegistry
    from desktop_rag.retrieval.embedder import load_embedder

    paths = resolve_paths(tmp_path_factory.mktemp("embedder")).ensure()
    return load_embedder(ModelRegistry(paths, SETTINGS), SETTINGS)


def open_library(data_dir: Path, embedder: Embedder, settings: Settings) -> Services:
    ctx = build_context(str(data_dir), settings=settings, overrides={"embedder": embedder})
    return Services(ctx)


@pytest.fixture
def library(tmp_path: Path, embedder: Embedder) -> Iterator[Services]:
    services = open_library(tmp_path / "lib", embedder, SETTINGS)
    yield services
    services.close()


@needs_tessdata
def test_words_in_a_picture_are_found_after_the_pass_at_the_pictures_page(
    library: Services, tmp_path: Path
) -> None:
    path = pdf_with_picture(tmp_path / "report.pdf", PICTURE_LINES)
    library.ingest([path], tables_now=False)
    (doc,) = library.list_documents()
    assert library.tables_pending() == {doc.doc_id: 1}  # page 2 waits: it has a picture
    assert not any("Zorblax" in c.text for c in library.document_chunks(doc.doc_id))

    report = library.enrich_tables()

    assert (report.pages, report.pictures, report.tables, report.failures) == (1, 1, 0, ())
    assert library.tables_pending() == {}
    (hit, *_) = library.search("Zorblax intake volume", k=3, mode="bm25").results
    assert hit.chunk.doc_id == doc.doc_id and hit.page == 2
    assert f"{LABEL} Zorblax intake volume" in hit.chunk.text
    boxes = [b for b in hit.chunk.bboxes if b.y0 >= PICTURE_BOX[1] - 1]
    assert boxes and all(b.page == 2 and b.y1 <= PICTURE_BOX[3] + 1 for b in boxes)
    assert any(PROSE[:30] in c.text for c in library.document_chunks(doc.doc_id))
    check = library.check_consistency()
    assert check["consistent"] and not check["orphan_vectors"]


@needs_tessdata
def test_with_picture_text_off_no_page_waits_for_it(tmp_path: Path, embedder: Embedder) -> None:
    off = SETTINGS.updated({"ingest.picture_text": "off"})
    services = open_library(tmp_path / "lib", embedder, off)
    try:
        services.ingest([pdf_with_picture(tmp_path / "report.pdf", PICTURE_LINES)])
        assert services.tables_pending() == {}
        (doc,) = services.list_documents()
        assert not any("Zorblax" in c.text for c in services.document_chunks(doc.doc_id))
    finally:
        services.close()


@needs_tessdata
@pytest.mark.gui
def test_an_answer_from_a_pictures_words_is_highlighted_in_the_picture(
    qtbot: Any, tmp_path: Path, embedder: Embedder
) -> None:
    from test_gui_window import shoot

    from desktop_rag.domain.fakes import FakeChatEngine
    from desktop_rag.gui.main_window import MainWindow

    reply = "The North basin took in 4,180 litres [1]."
    parts = {"embedder": embedder, "engine": FakeChatEngine(reply)}
    ctx = build_context(str(tmp_path / "lib"), settings=SETTINGS, overrides=parts)
    services = Services(ctx)
    services.ingest([pdf_with_picture(tmp_path / "report.pdf", PICTURE_LINES)])
    answer = services.ask("How much did the North basin take in?")
    (citation,) = answer.citations
    (evidence,) = citation.evidence
    assert evidence.page == 2 and "North basin 4,180 litres" in evidence.text
    assert not answer.unsupported_sentences
    window = MainWindow(services, interactive=False)
    qtbot.addWidget(window)
    window.resize(1200, 900)
    window.show()
    window.open_chunk(citation.chunk, evidence)
    qtbot.waitUntil(lambda: window.viewer.location is not None, timeout=10_000)
    assert window.viewer.location.page == 2
    assert window.viewer.pdf.highlight_rects(2)
    start = citation.chunk.text.index("North basin")
    (line,) = [b for b in evidence.boxes if b.start <= start < b.end]
    assert PICTURE_BOX[0] <= line.x0 and line.x1 <= PICTURE_BOX[2]  # the line, in the picture
    assert PICTURE_BOX[1] + 40 <= line.y0 and line.y1 <= PICTURE_BOX[1] + 120
    qtbot.wait(1500)  # the page image is rendered in the background
    shoot(window, "23-picture-text-highlight")
    assert window.shutdown()
    services.close()


@needs_tessdata
def test_the_cli_says_whose_words_it_read(
    tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import desktop_rag.retrieval.embedder as embedder_module
    from desktop_rag.cli import main

    monkeypatch.setattr(embedder_module, "load_embedder", lambda *_: embedder)
    path = pdf_with_picture(tmp_path / "report.pdf", PICTURE_LINES)
    base = ["--data-dir", str(tmp_path / "lib"), "--profile", "tiny"]
    assert main([*base, "ingest", str(path)]) == 0
    assert "tables: 0 tables in 1 document, words read in 1 picture, " in capsys.readouterr().err


def test_the_benchmark_subset_keeps_the_documents_with_pictures(tmp_path: Path) -> None:
    import json

    from bench.picture_subset import main

    docs = tmp_path / "docs"
    docs.mkdir()
    pdf_with_picture(docs / "chart.pdf", PICTURE_LINES)
    _without_pictures(docs / "plain.pdf")
    rows = [{"id": "q1", "doc": "chart.pdf"}, {"id": "q2", "doc": "plain.pdf"}]
    questions = tmp_path / "questions.jsonl"
    questions.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    assert main([str(docs), str(questions), str(tmp_path / "out")]) == 0
    assert [p.name for p in (tmp_path / "out" / "documents").iterdir()] == ["chart.pdf"]
    kept = (tmp_path / "out" / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["id"] for line in kept] == ["q1"]


def _without_pictures(path: Path) -> None:
    import pymupdf

    doc = pymupdf.open()
    doc.new_page().insert_text((72, 100), PROSE, fontsize=10)
    doc.save(path)
    doc.close()
