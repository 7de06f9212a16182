"""Each page of an open document as text, read ahead by the page workers where it pays.

A page with images but no text layer is read by OCR when it is on: in the worker processes,
several pages at once, while this thread reads the pages after them (without workers, here).
A PDF page whose text looks tabular is only noted when tables are on (`table_pages`): its text
is indexed as plain lines now, and the table pass reads its tables after the document is
searchable (ingest/table_pass.py), since a table pass costs about 0.3 s a page. So is a page
with text and a large picture when OCR reads pictures (ingest/picture_text.py): the same pass
reads the picture's words, at about a second a page; and a scanned page whose OCR'd text looks
tabular: the pass OCRs it again into a page PyMuPDF's table reader can read.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from desktop_rag.domain import Reason
from desktop_rag.domain.errors import CancelledError
from desktop_rag.ingest.ocr import OcrConfig
from desktop_rag.ingest.page_text import has_text
from desktop_rag.ingest.page_workers import PageWorkers
from desktop_rag.ingest.pdf_pages import PageText, ocr_dict, ocr_page, page_text
from desktop_rag.ingest.reader_marks import for_table_pass, reader_mark
from desktop_rag.ingest.segments import LoadError
from desktop_rag.ingest.table_detect import looks_tabular

log = logging.getLogger(__name__)

OCR_AHEAD = 2  # pages handed to each worker process ahead of the page being read


class PageReader:
    """Each page's text in page order, and the pages that look tabular."""

    def __init__(
        self, ocr: OcrConfig | None, workers: PageWorkers | None = None, path: Path | None = None,
        tables: bool = False,
    ) -> None:
        self.ocr, self.path = ocr, path
        self.workers = workers if path is not None and ocr is not None else None
        self.tables = tables
        self.pictures = bool(ocr and ocr.pictures)
        self.table_pages: list[int] = []  # 1-based, for the table pass: tabular, or pictures
        self.ocr_tried = self.ocr_pages = self.unreadable = 0
        self.ocr_error = ""
        self.pool_broken = False  # a worker was killed: the rest is read in this process

    def read(self, doc: Any) -> Iterator[tuple[int, PageText]]:
        ahead: deque[_Ahead] = deque()
        window = 1 + (OCR_AHEAD * self.workers.processes if self.workers else 0)
        try:
            for index in range(doc.page_count):
                ahead.append(self._start(doc, index))
                while ahead and (len(ahead) >= window or ahead[0].ready()):
                    yield self._finish(ahead.popleft())
            while ahead:
                yield self._finish(ahead.popleft())
        finally:
            for item in ahead:
                item.cancel()

    def _start(self, doc: Any, index: int) -> _Ahead:
        try:
            page = doc.load_page(index)
            found = page_text(page)
        except Exception as exc:  # one bad page must not lose the document
            log.warning("page %d unreadable: %s", index + 1, exc)
            self.unreadable += 1
            return _Ahead(index + 1, {})
        if self.ocr is None or has_text(found) or not page.get_images():
            if self._for_table_pass(page, found):
                self.table_pages.append(index + 1)
            return _Ahead(index + 1, found)
        return _Ahead(index + 1, self._ocr(page, index, self.ocr), scanned=True)

    def _for_table_pass(self, page: Any, found: PageText) -> bool:
        """Whether the page waits for the table pass: tables to read, or a picture's words."""
        return for_table_pass(page, found, self.tables, self.pictures)

    @property
    def mark(self) -> str:
        """What this reader queues pages for (ingest/catch_up.py)."""
        return reader_mark(self.tables, self.pictures)

    def _ocr(self, page: Any, index: int, config: OcrConfig) -> PageText | Future[PageText]:
        self.ocr_tried += 1
        future = self._submit(ocr_page, str(self.path), index, config)
        if future is not None:
            return future
        return self._counted(index + 1, lambda: ocr_dict(page, config))

    def _submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any] | None:
        if self.workers is None or self.pool_broken:
            return None
        try:
            return self.workers.submit(fn, *args)
        except Exception as exc:  # a broken pool (a worker was killed): read here
            log.warning("page workers unavailable (%s); reading continues here", exc)
            self.pool_broken = True
            return None

    def _finish(self, item: _Ahead) -> tuple[int, PageText]:
        text = item.text
        if isinstance(text, Future):
            future = text
            text = self._counted(item.number, lambda: self._wait(future))
        if item.scanned and self.tables and looks_tabular(text):  # a scanned table
            self.table_pages.append(item.number)
        return item.number, text

    def _wait(self, future: Future[Any]) -> Any:
        """A page from the workers, given up as soon as the ingestion is cancelled."""
        if self.workers is None:
            return future.result()
        return self.workers.result(future)

    def _counted(self, number: int, read: Callable[[], PageText]) -> PageText:
        try:
            text = read()
        except CancelledError:
            raise LoadError(Reason.CANCELLED, "cancelled") from None
        except Exception as exc:  # MuPDF errors, e.g. damaged language data: no text then
            log.warning("OCR of page %d failed: %s", number, exc)
            self.ocr_error = str(exc).split(": ", 1)[-1]
            return {}
        self.ocr_pages += int(has_text(text))
        return text


class _Ahead:
    """A page being read: its text, or the OCR of it to come."""

    def __init__(
        self, number: int, text: PageText | Future[PageText], scanned: bool = False
    ) -> None:
        self.number, self.text, self.scanned = number, text, scanned  # scanned: read by OCR

    def ready(self) -> bool:
        return not isinstance(self.text, Future) or self.text.done()

    def cancel(self) -> None:
        if isinstance(self.text, Future):
            self.text.cancel()
