"""The PyMuPDF adapter: opening a document, the text flags every reading uses, and OCR of a page
or of a picture on it (here, or in a worker). The loaders, the page reader, the table pass and
the picture text go through it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from desktop_rag.ingest.ocr import OcrConfig, ocr_dpi

PageText = dict[str, Any]  # PyMuPDF's "dict" text layout of one page


class EmptyDocumentError(Exception):
    """The file has 0 bytes."""


class UnreadableDocumentError(Exception):
    """The file is not a document PyMuPDF can open (corrupt, truncated, another format)."""


def open_pdf(path: str | Path | None = None) -> Any:
    """The document at `path` (any format PyMuPDF reads), or a new empty PDF in memory."""
    import pymupdf

    if path is None:
        return pymupdf.open()  # type: ignore[no-untyped-call]
    try:
        return pymupdf.open(path)  # type: ignore[no-untyped-call]
    except pymupdf.EmptyFileError as exc:
        raise EmptyDocumentError(str(exc)) from exc
    except pymupdf.FileDataError as exc:
        raise UnreadableDocumentError(str(exc)) from exc


def text_flags() -> int:
    import pymupdf

    return int(pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES)


def page_text(page: Any) -> PageText:
    """A page's text layer as every reading takes it (the text pass and the table pass)."""
    found: PageText = page.get_text("dict", sort=True, flags=text_flags())
    return found


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


def ocr_clip(page: Any, box: tuple[float, float, float, float], dpi: int,
             ocr: OcrConfig) -> tuple[PageText, float]:
    """OCR of the part of `page` inside `box` (a picture), rendered at `dpi`: Tesseract's text
    in the picture's own coordinates, and the factor that turns them into page points."""
    import pymupdf

    pix = page.get_pixmap(clip=box, dpi=dpi)
    stream = pix.pdfocr_tobytes(language=ocr.language, tessdata=str(ocr.tessdata))
    with pymupdf.open(stream=stream) as read:  # type: ignore[no-untyped-call]
        ocr_page = read.load_page(0)
        found: PageText = ocr_page.get_text("dict", sort=True)
        return found, (box[2] - box[0]) / ocr_page.rect.width


@contextmanager
def ocr_as_pdf(page: Any, ocr: OcrConfig) -> Iterator[Any]:
    """A scanned page OCR'd into a one-page PDF with the words as its text layer, at the
    resolution the text pass reads scans with: the same size as `page`, so its words, and the
    tables PyMuPDF finds among them, are in `page`'s coordinates. (The text pass's OCR gives
    text only; PyMuPDF's table reader needs a page that has the words in it.)"""
    import pymupdf

    pix = page.get_pixmap(dpi=ocr_dpi(page.rect.width, page.rect.height, ocr.dpi))
    stream = pix.pdfocr_tobytes(language=ocr.language, tessdata=str(ocr.tessdata))
    with pymupdf.open(stream=stream) as read:  # type: ignore[no-untyped-call]
        yield read.load_page(0)
