"""Tables on scanned pages (no text layer), read where the OCR layout allows: the text pass
queues a scan whose OCR'd text looks tabular, and the table pass OCRs it again into a page
PyMuPDF's table reader can read, and makes the page's chunks again from that text with the
table's rows. Through the real parts: Tesseract, PyMuPDF's tables in the page workers, MiniLM,
Chroma and the catalog on disk."""

from __future__ import annotations

from pathlib import Path

import pytest
from table_pdfs import table_pdf
from test_picture_text import TESSDATA

from desktop_rag.bootstrap import build_context
from desktop_rag.config import Settings
from desktop_rag.ingest.ocr import OcrConfig
from desktop_rag.ingest.page_extras import PageExtras, read_page_extras
from desktop_rag.services import Services

pytestmark = pytest.mark.skipif(TESSDATA is None, reason="no Tesseract English data here")
SETTINGS = Settings(profile="tiny").updated(
    {"ingest.ocr_processes": 1, "ingest.picture_text": "off"}
)


def scanned(source: Path, path: Path, rotate: int = 0) -> Path:
    """`source`'s first page as a scanner gives it: a picture of the page, no text layer."""
    import pymupdf

    with pymupdf.open(source) as src:  # type: ignore[no-untyped-call]
        pix = src[0].get_pixmap(dpi=200)
        doc = pymupdf.open()  # type: ignore[no-untyped-call]
        page = doc.new_page(width=src[0].rect.width, height=src[0].rect.height)
        page.insert_image(page.rect, pixmap=pix)
        if rotate:
            page.set_rotation(rotate)
        doc.save(str(path))
        doc.close()
    return path


def test_a_scans_table_is_read_from_its_ocr_in_the_pages_coordinates(tmp_path: Path) -> None:
    scan = scanned(table_pdf(tmp_path / "table.pdf", ruled=False), tmp_path / "scan.pdf")
    assert TESSDATA is not None
    extras = read_page_extras(str(scan), 0, True, OcrConfig(TESSDATA, "eng", 150))
    (table,) = extras.tables
    assert extras.scan_text is not None and not extras.pictures
    assert table.columns[-3:] == ("2015", "2014", "2013")
    (revenues,) = [row for row in table.rows if row.label and row.label.text == "Revenues"]
    assert "4,180,339" in dict(revenues.values)["2015"].text
    x0, y0, x1, y1 = table.bbox  # where the table is on the page (table_pdfs: 72-560, 150-258)
    assert 60 <= x0 <= 80 and 140 <= y0 <= 160 and 540 <= x1 <= 570 and 240 <= y1 <= 270


def test_a_rotated_scan_keeps_its_text(tmp_path: Path) -> None:
    source = table_pdf(tmp_path / "table.pdf", ruled=False)
    scan = scanned(source, tmp_path / "scan.pdf", rotate=90)
    assert TESSDATA is not None
    extras = read_page_extras(str(scan), 0, True, OcrConfig(TESSDATA, "eng", 150))
    assert extras == PageExtras([], [], None)


def test_a_scanned_table_becomes_rows_in_the_library(tmp_path: Path) -> None:
    scan = scanned(table_pdf(tmp_path / "table.pdf", ruled=False), tmp_path / "scan.pdf")
    services = Services(build_context(str(tmp_path / "lib"), settings=SETTINGS))
    try:
        report = services.ingest([scan], tables_now=False)
        assert "read by OCR" in (report.outcomes[0].reason or "")
        (doc,) = services.list_documents()
        assert services.tables_pending() == {doc.doc_id: 1}  # its OCR'd text looks tabular
        before = services.document_chunks(doc.doc_id)
        assert not any("Revenues —" in c.text for c in before)

        tables = services.enrich_tables()

        assert tables.tables == 1 and not tables.failures
        chunks = services.document_chunks(doc.doc_id)
        (rows,) = [c for c in chunks if "Revenues —" in c.text]
        line = next(x for x in rows.text.splitlines() if x.startswith("Revenues —"))
        assert "2015:" in line and "4,180,339" in line and "(in thousands)" in line
        assert "observatory" in " ".join(c.text for c in chunks)  # the prose is still there
        box = next(b for b in rows.bboxes if rows.text[b.start:b.end].startswith("Revenues"))
        assert box.page == 1 and 60 <= box.x0 <= 80 and 160 <= box.y0 <= 190  # its row
        found = services.search("Revenues 2015", k=1).results
        assert found[0].chunk.chunk_id == rows.chunk_id
        report = services.check_consistency()
        assert report["consistent"] and not report["orphan_vectors"]
    finally:
        services.close()
