"""What the table pass reads from one queued page in a worker process: its tables (when the
page looks tabular) and the words of its pictures (when picture text is on). A scanned page
(no text layer) is OCR'd again into a page with a text layer, whose tables are read like any
other's; its OCR'd text comes back with them, for the page's chunks to be made again from.

Why one function: a page is queued once, whichever of the two it needs, and opening the PDF in
the worker is paid once. Errors come back as plain RuntimeErrors, whose message crosses the
process boundary intact, so the pass can say which page of which file failed.
"""

from __future__ import annotations

import logging
from typing import Any, NamedTuple

from desktop_rag.ingest.ocr import OcrConfig
from desktop_rag.ingest.page_text import has_text
from desktop_rag.ingest.pdf_pages import PageText, ocr_as_pdf, open_pdf, page_text
from desktop_rag.ingest.picture_text import PictureText, read_pictures
from desktop_rag.ingest.table_detect import looks_tabular
from desktop_rag.ingest.table_extract import page_tables
from desktop_rag.ingest.table_model import TableBlock
from desktop_rag.ingest.table_rules import may_hold_table
from desktop_rag.ingest.table_speedups import shared_textpages

log = logging.getLogger(__name__)


class PageExtras(NamedTuple):
    tables: list[TableBlock]
    pictures: list[PictureText]
    scan_text: PageText | None = None  # a scan's OCR'd text, when tables were read from it


def read_page_extras(path: str, index: int, tables: bool, ocr: OcrConfig | None) -> PageExtras:
    """Page `index` (0-based) of the PDF at `path`: its tables when `tables` and it looks
    tabular, its pictures' words when `ocr` reads pictures."""
    try:
        with open_pdf(path) as doc:
            page = doc.load_page(index)
            with shared_textpages(page):  # the same text page for its text and its tables
                text = page_text(page)
                if tables and ocr is not None and not has_text(text) and page.get_images():
                    return _scanned(page, index, ocr)
                found = page_tables(page, index + 1, strict=True) if (
                    tables and may_hold_table(page, text)) else []  # fmt: skip
                pictures = read_pictures(page, text, ocr) if ocr and ocr.pictures else []
                return PageExtras(found, pictures)
    except Exception as exc:
        raise RuntimeError(f"{type(exc).__name__}: {exc}") from None


def _scanned(page: Any, index: int, ocr: OcrConfig) -> PageExtras:
    """A scanned page's tables, read from its OCR, with that OCR'd text (nothing for a rotated
    page, whose picture and words are not in the page's own coordinates)."""
    if page.rotation:
        log.info("page %d: a rotated scan's tables are not read", index + 1)
        return PageExtras([], [])
    with ocr_as_pdf(page, ocr) as read:
        if tuple(read.rect) != tuple(page.rect):
            return PageExtras([], [])
        text = page_text(read)
        found = page_tables(read, index + 1, strict=True) if looks_tabular(text) else []
        return PageExtras(found, [], text) if found else PageExtras([], [])
