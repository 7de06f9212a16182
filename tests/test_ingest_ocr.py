"""OCR of scanned pages through PyMuPDF's built-in Tesseract and the language data found here."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from desktop_rag.config import IngestSettings, Settings
from desktop_rag.domain import Reason
from desktop_rag.ingest.loaders import NO_TEXT, SCANNED, load
from desktop_rag.ingest.ocr import (
    MAX_OCR_PIXELS,
    OcrConfig,
    find_tessdata,
    ocr_config,
    ocr_dpi,
)
from desktop_rag.ingest.page_workers import PageWorkers
from desktop_rag.ingest.segments import Line, LoadError
from tests.ingest_docs import make_image_scan_pdf, make_scanned_pdf

LINES = [
    "Maintenance log of the north pumping station.",
    "The impeller of pump seven was replaced in March.",
    "Inspection interval: every 1200 operating hours.",
]
TESSDATA = find_tessdata("", "eng")
needs_tessdata = pytest.mark.skipif(
    TESSDATA is None, reason="no Tesseract English data here (apt install tesseract-ocr-eng)"
)


@pytest.fixture
def ocr() -> OcrConfig:
    assert TESSDATA is not None
    return OcrConfig(TESSDATA)


@needs_tessdata
def test_scanned_page_is_read_by_ocr_with_line_boxes_where_the_text_is(
    tmp_path: Path, ocr: OcrConfig
) -> None:
    loaded = load(make_image_scan_pdf(tmp_path / "scan.pdf", LINES), ocr)
    segments = list(loaded.segments)
    text = " ".join(s.text for s in segments)
    assert "impeller of pump seven was replaced" in text and "1200 operating hours" in text
    assert loaded.note == "text of 1 scanned page(s) read by OCR" and loaded.note_code is Reason.OCR
    (seg,) = [s for s in segments if "impeller" in s.text]
    (box,) = [ln.box for ln in seg.lines if "impeller" in _sliced(seg.text, seg.start, ln)]
    assert box.page == 1 and 60 <= box.x0 <= 80 and 125 <= box.y1 <= 150  # typed at y = 140


def test_without_ocr_a_scan_says_how_to_get_it(tmp_path: Path) -> None:
    loaded = load(make_image_scan_pdf(tmp_path / "scan.pdf", LINES), None)
    assert list(loaded.segments) == []
    assert loaded.empty_reason == SCANNED and "tesseract-ocr-eng" in SCANNED
    assert loaded.empty_code is Reason.SCANNED


@needs_tessdata
def test_a_picture_without_images_is_not_sent_to_ocr(tmp_path: Path, ocr: OcrConfig) -> None:
    loaded = load(make_scanned_pdf(tmp_path / "drawing.pdf"), ocr)
    assert list(loaded.segments) == [] and loaded.empty_reason == NO_TEXT
    assert loaded.empty_code is Reason.NO_TEXT


def test_tessdata_is_found_from_the_setting_or_not_at_all(tmp_path: Path) -> None:
    (tmp_path / "deu.traineddata").write_bytes(b"x")
    assert find_tessdata(str(tmp_path), "deu") == tmp_path
    assert find_tessdata(str(tmp_path), "deu+xyz") is None
    assert ocr_config(IngestSettings(ocr="off")) is None
    settings = replace(Settings().ingest, tessdata=str(tmp_path), ocr_language="deu")
    assert ocr_config(settings) == OcrConfig(tmp_path, "deu", 150, pictures=True)
    no_pictures = replace(settings, picture_text="off")
    assert ocr_config(no_pictures) == OcrConfig(tmp_path, "deu", 150, pictures=False)


def _sliced(text: str, offset: int, line: Line) -> str:
    return text[line.start - offset : line.end - offset]


def test_damaged_language_data_fails_the_scan_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "eng.traineddata").write_bytes(b"not a model" * 100)
    loaded = load(make_image_scan_pdf(tmp_path / "scan.pdf", LINES), OcrConfig(tmp_path))
    assert list(loaded.segments) == []
    assert loaded.empty_reason.startswith("no extractable text: looks scanned; OCR failed: ")
    assert "Tesseract" in loaded.empty_reason and loaded.empty_code is Reason.OCR_FAILED


def _multi_page_scan(tmp_path: Path, pages: int) -> Path:
    import pymupdf

    merged = pymupdf.open()
    for n in range(pages):
        one = make_image_scan_pdf(tmp_path / f"p{n}.pdf", [f"Page marker {n} of the scanned log."])
        with pymupdf.open(one) as part:
            merged.insert_pdf(part)
    merged.save(tmp_path / "multi.pdf")
    merged.close()
    return tmp_path / "multi.pdf"


@needs_tessdata
def test_worker_processes_read_pages_in_order_like_this_process(
    tmp_path: Path, ocr: OcrConfig
) -> None:
    scan = _multi_page_scan(tmp_path, 5)
    here = [(s.page, s.text) for s in load(scan, ocr).segments]
    workers = PageWorkers(processes=2)
    try:
        loaded = load(scan, ocr, workers)
        side_by_side = [(s.page, s.text) for s in loaded.segments]
    finally:
        workers.close()
    assert side_by_side == here and [p for p, _ in here] == [1, 2, 3, 4, 5]
    assert all(f"marker {n}" in text for n, (_, text) in enumerate(here))
    assert loaded.note == "text of 5 scanned page(s) read by OCR"


@needs_tessdata
def test_stopping_early_cancels_the_pages_handed_to_workers(tmp_path: Path, ocr: OcrConfig) -> None:
    workers = PageWorkers(processes=1)
    try:
        segments = load(_multi_page_scan(tmp_path, 6), ocr, workers).segments
        assert "marker 0" in next(segments).text
        segments.close()  # what a cancelled ingestion does
    finally:
        workers.close()  # returns once the page in progress is done


def test_worker_errors_fail_the_scan_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "eng.traineddata").write_bytes(b"not a model" * 100)
    workers = PageWorkers(processes=1)
    try:
        loaded = load(make_image_scan_pdf(tmp_path / "s.pdf", LINES), OcrConfig(tmp_path), workers)
        assert list(loaded.segments) == []
    finally:
        workers.close()
    assert loaded.empty_reason.startswith("no extractable text: looks scanned; OCR failed: ")


@needs_tessdata
def test_a_killed_worker_costs_its_pages_not_the_document(tmp_path: Path, ocr: OcrConfig) -> None:
    import os
    import signal

    workers = PageWorkers(processes=1)
    try:
        workers.submit(os.getpid).result()  # starts the worker; then it is killed
        pool = workers._pool
        assert pool is not None
        for pid in list(pool._processes):
            os.kill(pid, signal.SIGKILL)
        loaded = load(_multi_page_scan(tmp_path, 3), ocr, workers)
        texts = [s.text for s in loaded.segments]
    finally:
        workers.close()
    assert any("marker 2" in t for t in texts)  # read here once the pool was found broken
    assert "scanned page(s) read by OCR" in (loaded.note or "")


def test_a_huge_page_is_rendered_for_ocr_at_a_bounded_size() -> None:
    assert ocr_dpi(612, 792, 150) == 150  # a letter page as asked
    dpi = ocr_dpi(14400, 14400, 150)  # a page 200 inches square
    assert (200 * dpi) ** 2 <= MAX_OCR_PIXELS and dpi >= 24
    assert ocr_dpi(1e9, 1e9, 150) == 24 and ocr_dpi(0, 0, 150) == 150


@needs_tessdata
def test_a_poster_sized_scan_is_read_without_exhausting_memory(
    tmp_path: Path, ocr: OcrConfig
) -> None:
    import pymupdf

    small = make_image_scan_pdf(tmp_path / "small.pdf", ["Poster headline about pumps."], zoom=3)
    poster = pymupdf.open()
    page = poster.new_page(width=14400, height=14400)  # 200 x 200 inches
    with pymupdf.open(small) as src:
        page.show_pdf_page(pymupdf.Rect(0, 0, 14400, 14400), src, 0)
    poster.save(tmp_path / "poster.pdf")
    poster.close()
    loaded = load(tmp_path / "poster.pdf", ocr)
    text = " ".join(s.text for s in loaded.segments)
    assert "Poster headline about pumps" in text  # rendered at 31 dpi: 40 megapixels, not 2.3 G


@needs_tessdata
def test_a_cancel_ends_the_wait_for_a_page_in_a_worker(tmp_path: Path, ocr: OcrConfig) -> None:
    import threading
    import time

    stop = threading.Event()
    workers = PageWorkers(processes=1, stopping=stop.is_set)
    try:
        config = OcrConfig(ocr.tessdata, dpi=300)
        segments = load(_multi_page_scan(tmp_path, 8), config, workers).segments
        next(segments)
        stop.set()
        began = time.perf_counter()
        with pytest.raises(LoadError, match="cancelled"):
            list(segments)
        assert time.perf_counter() - began < 1.0
    finally:
        workers.close()
