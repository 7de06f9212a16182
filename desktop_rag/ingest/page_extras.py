"""What the table pass reads from one queued page in a worker process: its tables (when the
page looks tabular) and the words of its pictures (when picture text is on).

Why one function: a page is queued once, whichever of the two it needs, and opening the PDF in
the worker is paid once. Errors come back as plain RuntimeErrors, whose message crosses the
process boundary intact, so the pass can say which page of which file failed.
"""

from __future__ import annotations

from typing import NamedTuple

from desktop_rag.ingest.ocr import OcrConfig
from desktop_rag.ingest.pdf_pages import open_pdf, page_text
from desktop_rag.ingest.picture_text import PictureText, read_pictures
from desktop_rag.ingest.table_extract import page_tables
from desktop_rag.ingest.table_model import TableBlock
from desktop_rag.ingest.table_rules import may_hold_table


class PageExtras(NamedTuple):
    tables: list[TableBlock]
    pictures: list[PictureText]


def read_page_extras(path: str, index: int, tables: bool, ocr: OcrConfig | None) -> PageExtras:
    """Page `index` (0-based) of the PDF at `path`: its tables when `tables` and it looks
    tabular, its pictures' words when `ocr` reads pictures."""
    try:
        with open_pdf(path) as doc:
            page = doc.load_page(index)
            text = page_text(page)
            found = page_tables(page, index + 1, strict=True) if (
                tables and may_hold_table(page, text)) else []  # fmt: skip
            pictures = read_pictures(page, text, ocr) if ocr and ocr.pictures else []
            return PageExtras(found, pictures)
    except Exception as exc:
        raise RuntimeError(f"{type(exc).__name__}: {exc}") from None
