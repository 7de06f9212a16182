"""Ingestion of scanned PDFs: OCR of pages without a text layer (PyMuPDF's Tesseract).

    .venv/bin/python -m bench.run ocr [--quick] [--ocr-dpi 150]

Data: the MMLongBench documents whose pages are pictures only (slide decks exported as images;
7 of the 55), or, without that folder, generated scans of typed text. Reported: OCR'd pages,
pages/s and seconds for the whole ingestion (OCR, chunking, embedding, writing), chunks, and the
share of a known sentence set found again in the OCR text (generated scans only).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MMLONGBENCH = ROOT.parent / "shared" / "data" / "mmlongbench" / "documents"
TYPED = [f"Line {n}: the inspection of valve {n} found {n * 3} mm of wear." for n in range(18)]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ocr-dpi", type=int, default=150, help="resolution OCR reads pages at")


def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        docs = scanned_documents(2 if args.quick else 0)
        docs = docs or generated_scans(work, 3 if args.quick else 20)
        return ingest(docs, work / "data", args.ocr_dpi, args.profile)


def scanned_documents(limit: int) -> list[Path]:
    """The MMLongBench PDFs whose first pages have images but no text."""
    import pymupdf

    found = []
    for path in sorted(MMLONGBENCH.glob("*.pdf")) if MMLONGBENCH.is_dir() else []:
        with pymupdf.open(path) as doc:
            first = [doc[i] for i in range(min(3, doc.page_count))]
            if all(not p.get_text().strip() and p.get_images() for p in first):
                found.append(path)
    return found[:limit] if limit else found


def generated_scans(work: Path, pages: int) -> list[Path]:
    import pymupdf

    from tests.ingest_docs import make_image_scan_pdf

    merged = pymupdf.open()
    for n in range(pages):
        with pymupdf.open(make_image_scan_pdf(work / f"p{n}.pdf", TYPED)) as page:
            merged.insert_pdf(page)
    merged.save(work / "scans.pdf")
    merged.close()
    return [work / "scans.pdf"]


def ingest(docs: list[Path], data: Path, dpi: int, profile: str) -> dict[str, Any]:
    from desktop_rag.bootstrap import build_context
    from desktop_rag.domain import Outcome
    from desktop_rag.services import Services

    services = Services(build_context(str(data), profile))
    services.ctx.update_settings({"ingest.ocr_dpi": dpi})
    try:
        services.ctx.embedder.embed_query("warm up")
        start = time.perf_counter()
        report = services.ingest(docs)
        seconds = time.perf_counter() - start
        text = " ".join(
            c.text for d in services.list_documents() for c in services.document_chunks(d.doc_id)
        )
    finally:
        services.close()
    ocr_pages = sum(_ocr_pages(o.reason) for o in report.outcomes)
    pages = sum(o.pages for o in report.outcomes)
    return {
        "documents": len(docs), "pages": pages, "ocr_pages": ocr_pages,
        "seconds": round(seconds, 1), "pages_per_s": round(pages / seconds, 2) if seconds else 0,
        "chunks": sum(o.chunks for o in report.outcomes), "failed": report.count(Outcome.FAILED),
        "typed_lines_found": round(sum(t in text for t in TYPED) / len(TYPED), 3)
        if docs and docs[0].name == "scans.pdf" else None,
    }


def _ocr_pages(reason: str | None) -> int:
    words = (reason or "").split()
    return int(words[words.index("of") + 1]) if "read" in words and "of" in words else 0
