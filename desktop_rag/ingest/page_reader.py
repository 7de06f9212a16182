"""Each page of an open document as text, read ahead by the page workers where it pays.

A page with images but no text layer is read by OCR when it is on; a PDF page whose text looks
tabular gets a table pass when tables are on. Both run in the worker processes, several pages at
once, while this thread reads the pages after them; without workers, OCR runs here and tables
are left out (the layout model they need holds a lock across the process).
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from desktop_rag.domain import Reason
from desktop_rag.errors import CancelledError
from desktop_rag.ingest.ocr import OcrConfig
from desktop_rag.ingest.page_text import has_text
from desktop_rag.ingest.page_workers import PageWorkers
from desktop_rag.ingest.pdf_pages import PageText, ocr_dict, ocr_page, text_flags
from desktop_rag.ingest.segments import LoadError
from desktop_rag.ingest.table_detect import looks_tabular
from desktop_rag.ingest.table_model import TableBlock

log = logging.getLogger(__name__)

Tables = list[TableBlock]
OCR_AHEAD = 2  # pages handed to each worker process ahead of the page being read


class PageReader:
    """Each page's text and tables, in page order."""

    def __init__(
        self, ocr: OcrConfig | None, workers: PageWorkers | None = None, path: Path | None = None,
        tables: bool = False,
    ) -> None:
        self.ocr, self.path = ocr, path
        usable = path is not None and (ocr is not None or tables)
        self.workers = workers if usable else None
        self.tables = tables and self.workers is not None
        self.ocr_tried = self.ocr_pages = self.unreadable = self.table_pages = 0
        self.ocr_error = ""
        self.pool_broken = False  # a worker was killed: the rest is read in this process

    def read(self, doc: Any) -> Iterator[tuple[int, PageText, Tables]]:
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
            found: PageText = page.get_text("dict", sort=True, flags=text_flags())
        except Exception as exc:  # one bad page must not lose the document
            log.warning("page %d unreadable: %s", index + 1, exc)
            self.unreadable += 1
            return _Ahead(index + 1, {})
        if self.ocr is None or has_text(found) or not page.get_images():
            return _Ahead(index + 1, found, self._tables_of(found, index))
        return _Ahead(index + 1, self._ocr(page, index, self.ocr))

    def _ocr(self, page: Any, index: int, config: OcrConfig) -> PageText | Future[PageText]:
        self.ocr_tried += 1
        future = self._submit(ocr_page, str(self.path), index, config)
        if future is not None:
            return future
        return self._counted(index + 1, lambda: ocr_dict(page, config))

    def _tables_of(self, found: PageText, index: int) -> Future[Tables] | None:
        if not self.tables or not looks_tabular(found):
            return None
        from desktop_rag.ingest.table_extract import extract_tables

        self.table_pages += 1
        return self._submit(extract_tables, str(self.path), index)

    def _submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any] | None:
        if self.workers is None or self.pool_broken:
            return None
        try:
            return self.workers.submit(fn, *args)
        except Exception as exc:  # a broken pool (a worker was killed): read here
            log.warning("page workers unavailable (%s); reading continues here", exc)
            self.pool_broken = True
            return None

    def _finish(self, item: _Ahead) -> tuple[int, PageText, Tables]:
        text = item.text
        if isinstance(text, Future):
            future = text
            text = self._counted(item.number, lambda: self._wait(future))
        return item.number, text, self._tables_done(item)

    def _tables_done(self, item: _Ahead) -> Tables:
        """The page's tables; none when the table pass failed (its text is indexed as text)."""
        if item.tables is None:
            return []
        try:
            found: Tables = self._wait(item.tables)
        except CancelledError:
            raise LoadError(Reason.CANCELLED, "cancelled") from None
        except Exception as exc:
            log.warning("table pass of page %d failed: %s", item.number, exc)
            return []
        return found

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
    """A page being read: its text (or the OCR of it to come) and its tables to come."""

    def __init__(
        self, number: int, text: PageText | Future[PageText],
        tables: Future[Tables] | None = None,
    ) -> None:
        self.number, self.text, self.tables = number, text, tables

    def ready(self) -> bool:
        return all(not isinstance(f, Future) or f.done() for f in (self.text, self.tables))

    def cancel(self) -> None:
        for f in (self.text, self.tables):
            if isinstance(f, Future):
                f.cancel()
