"""PyMuPDF calls on one page that the page reader and its worker processes make: the text
flags every reading uses, and OCR of a page (here, or in a worker)."""

from __future__ import annotations

from typing import Any

from desktop_rag.ingest.ocr import OcrConfig, ocr_dpi

PageText = dict[str, Any]  # PyMuPDF's "dict" text layout of one page


def text_flags() -> int:
    import pymupdf

    return int(pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES)


def ocr_dict(page: Any, ocr: OcrConfig) -> PageText:
    flags = text_flags()
    dpi = ocr_dpi(page.rect.width, page.rect.height, ocr.dpi)
    textpage = page.get_textpage_ocr(
        flags=flags, language=ocr.language, dpi=dpi, full=True, tessdata=str(ocr.tessdata)
    )
    found: PageText = page.get_text("dict", sort=True, flags=flags, textpage=textpage)
    return found


def ocr_page(path: str, index: int, ocr: OcrConfig) -> PageText:
    """In an OCR worker process: the OCR'd text of one page (errors as plain RuntimeErrors,
    which cross the process boundary intact)."""
    import pymupdf

    try:
        with pymupdf.open(path) as doc:  # type: ignore[no-untyped-call]
            return ocr_dict(doc.load_page(index), ocr)
    except Exception as exc:
        raise RuntimeError(str(exc)) from None
