"""The PyMuPDF adapter: opening a document, the text flags every reading uses, and OCR of a page
or of a picture on it (here, or in a worker). The loaders, the page reader, the table pass and
the picture text go through it."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from desktop_rag.ingest.ocr import OcrConfig, ocr_dpi

PageText = dict[str, Any]  # PyMuPDF's "dict" text layout of one page
_IMPORT_LOCK = threading.Lock()
_imported: list[bool] = []  # [True] once PyMuPDF is imported


class EmptyDocumentError(Exception):
    """The file has 0 bytes."""


class UnreadableDocumentError(Exception):
    """The file is not a document PyMuPDF can open (corrupt, truncated, another format)."""


def _pymupdf() -> Any:
    """PyMuPDF, imported without its layout model.

    `import pymupdf` imports pymupdf-layout when it is installed, and that loads the layout
    model's ONNX sessions at once: about 0.4 s and 56 MB in every process that opens a PDF
    (the app, the CLI, the text pass), where only the table reader uses them, in its workers
    (`with_layout`). The layout package is hidden while PyMuPDF imports, then shown again; under
    a lock, so that a second thread never gets a module still being imported."""
    if _imported:
        return sys.modules["pymupdf"]
    with _IMPORT_LOCK:
        hidden = "pymupdf" not in sys.modules and "pymupdf.layout" not in sys.modules
        if hidden:
            sys.modules["pymupdf.layout"] = None  # type: ignore[assignment]  # an ImportError
        try:
            import pymupdf
        finally:
            if hidden:
                del sys.modules["pymupdf.layout"]
        _imported.append(True)
        return pymupdf


def with_layout() -> None:
    """The layout model active in this process: PyMuPDF's find_tables(union=True) reads
    tables with it (the table reader, ingest/table_extract.py)."""
    pymupdf = _pymupdf()
    if not callable(getattr(pymupdf, "_get_layout", None)):
        import pymupdf.layout  # activates on import


def open_pdf(path: str | Path | None = None) -> Any:
    """The document at `path` (any format PyMuPDF reads), or a new empty PDF in memory."""
    pymupdf = _pymupdf()

    if path is None:
        return pymupdf.open()
    try:
        return pymupdf.open(path)
    except pymupdf.EmptyFileError as exc:
        raise EmptyDocumentError(str(exc)) from exc
    except pymupdf.FileDataError as exc:
        raise UnreadableDocumentError(str(exc)) from exc


def text_flags() -> int:
    pymupdf = _pymupdf()

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
    pymupdf = _pymupdf()

    try:
        with pymupdf.open(path) as doc:
            return ocr_dict(doc.load_page(index), ocr)
    except Exception as exc:
        raise RuntimeError(str(exc)) from None


def ocr_clip(page: Any, box: tuple[float, float, float, float], dpi: int,
             ocr: OcrConfig) -> tuple[PageText, float]:
    """OCR of the part of `page` inside `box` (a picture), rendered at `dpi`: Tesseract's text
    in the picture's own coordinates, and the factor that turns them into page points."""
    pymupdf = _pymupdf()

    pix = page.get_pixmap(clip=box, dpi=dpi)
    stream = pix.pdfocr_tobytes(language=ocr.language, tessdata=str(ocr.tessdata))
    with pymupdf.open(stream=stream) as read:
        ocr_page = read.load_page(0)
        found: PageText = ocr_page.get_text("dict", sort=True)
        return found, (box[2] - box[0]) / ocr_page.rect.width


@contextmanager
def ocr_as_pdf(page: Any, ocr: OcrConfig) -> Iterator[Any]:
    """A scanned page OCR'd into a one-page PDF with the words as its text layer, at the
    resolution the text pass reads scans with: the same size as `page`, so its words, and the
    tables PyMuPDF finds among them, are in `page`'s coordinates. (The text pass's OCR gives
    text only; PyMuPDF's table reader needs a page that has the words in it.)"""
    pymupdf = _pymupdf()

    pix = page.get_pixmap(dpi=ocr_dpi(page.rect.width, page.rect.height, ocr.dpi))
    stream = pix.pdfocr_tobytes(language=ocr.language, tessdata=str(ocr.tessdata))
    with pymupdf.open(stream=stream) as read:
        yield read.load_page(0)
