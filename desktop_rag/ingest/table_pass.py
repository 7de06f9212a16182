"""The table pass: a PDF is searchable from its text at once, and gets its tables after.

Reading a page's tables takes about 0.3 s (PyMuPDF's find_tables with the layout model), against
under a millisecond for its text, and a 10-K has dozens of such pages: read inline, they would
keep the whole document out of search for minutes. So the text pass indexes every page as plain
lines and queues the pages that look tabular (table_detect), in the transaction that adds the
document; this pass then reads their tables in the worker processes, a document or two ahead,
and swaps the chunks of the pages with tables for chunks with the tables' rows
(table_regions, store/table_steps). Pages with a large picture are queued and swapped the same
way when OCR reads pictures: their chunks gain the picture's words (ingest/picture_text.py). The
queue is in the catalog, so a process that stops first (the CLI, a crash) leaves it for the
next run. A page whose tables cannot be read keeps its text; so does a document whose swap
fails, with its file named in the log.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import BrokenExecutor, Future
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from desktop_rag.domain import Document
from desktop_rag.domain.errors import CancelledError, StoreError
from desktop_rag.domain.outcomes import TablesReport
from desktop_rag.domain.progress import CancelToken, ProgressCallback, ProgressEvent, no_progress
from desktop_rag.domain.protocols import Embedder, TokenCounter, VectorIndex
from desktop_rag.ingest import recovery
from desktop_rag.ingest.chunker import ChunkDraft, Chunker
from desktop_rag.ingest.embedding import GuardedEmbedder, embed_chunks
from desktop_rag.ingest.ocr import OcrConfig
from desktop_rag.ingest.page_extras import PageExtras, read_page_extras
from desktop_rag.ingest.page_text import has_text, page_segments
from desktop_rag.ingest.page_workers import PageWorkers
from desktop_rag.ingest.pdf_pages import PageText, open_pdf, page_text
from desktop_rag.ingest.picture_text import PictureText, with_pictures
from desktop_rag.ingest.planner import same_file
from desktop_rag.ingest.segments import Segment
from desktop_rag.ingest.table_continuation import continued
from desktop_rag.ingest.table_model import TableBlock
from desktop_rag.ingest.table_regions import Span, pages_with_chunks, plan_swap, spans_to_redo
from desktop_rag.store.documents import Catalog
from desktop_rag.store.table_steps import ChunkSwap

log = logging.getLogger(__name__)
AHEAD = 1  # documents whose pages go to the workers while the one before is swapped
Found = dict[int, list[TableBlock]]  # page -> its tables (pages with none left out)
Pictures = dict[int, list[PictureText]]  # page -> its pictures' words (pages with none left out)
Scans = dict[int, PageText]  # a scanned page with tables -> its OCR'd text (in the page's space)


@dataclass(slots=True)
class _Tally:
    documents: int = 0
    pages: int = 0
    tables: int = 0
    pictures: int = 0
    chunks: int = 0
    failures: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Queued:
    doc: Document
    pages: tuple[int, ...]
    futures: dict[int, Future[PageExtras]]


class TablePass:
    """One table pass over every document the library has queued (the caller holds the
    writer lock)."""

    def __init__(
        self, catalog: Catalog, vectors: VectorIndex,
        embedder: Embedder | Callable[[], Embedder],
        counter: TokenCounter | Callable[[], TokenCounter],
        progress: ProgressCallback = no_progress, cancel: CancelToken | None = None,
        processes: int = 0, tables: bool = True, ocr: OcrConfig | None = None,
    ) -> None:
        self.catalog, self.vectors = catalog, vectors
        self.tables, self.ocr = tables, ocr  # what to read: tables; pictures (ocr.pictures)
        self.steps = catalog.tables()
        self.embedder = GuardedEmbedder(embedder)
        self._counter = counter
        self.progress = progress
        self.cancel = cancel or CancelToken()
        self.workers = PageWorkers(processes, lambda: self.cancel.cancelled)

    def queued(self) -> list[tuple[Document, tuple[int, ...]]]:
        """The indexed documents waiting, with their pages that look tabular."""
        docs = ((self.catalog.get_document(i), pages) for i, pages in self.steps.queued().items())
        return [(doc, pages) for doc, pages in docs if doc is not None]

    def run(self) -> TablesReport:
        """Every queued document in turn; a cancel ends the pass between pages or documents,
        the rest staying queued (so does a StoreError, raised: the library cannot be written)."""
        started = time.perf_counter()
        recovery.flush_outbox(self.catalog, self.vectors)  # what a stopped pass left
        queued = self.queued()
        pages = sum(len(p) for _, p in queued)
        tally = _Tally()
        if queued:
            self._emit(tally, pages, len(queued),
                       f"{_n(pages, 'candidate page')} in {_n(len(queued), 'document')}")
        try:
            for item in self._ahead(queued):
                found = self._one(item, tally)
                self._emit(tally, pages, len(queued), f"{item.doc.path}: {_n(found, 'table')}")
        except CancelledError:
            log.info("table pass cancelled; the documents left are read at the next run")
        finally:
            self.workers.close()
        return TablesReport(
            tally.documents, tally.pages, tally.tables, tally.chunks, len(self.steps.queued()),
            tuple(tally.failures), round(time.perf_counter() - started, 3), tally.pictures,
        )

    @cached_property
    def chunker(self) -> Chunker:
        counter = self._counter
        tokens = counter if isinstance(counter, TokenCounter) else counter()
        return Chunker(self.embedder.thread_counter(), tokens)

    def _ahead(self, queued: Sequence[tuple[Document, tuple[int, ...]]]) -> Iterator[_Queued]:
        """The documents in turn, the pages of the next ones already with the workers; a
        document whose file is not the indexed one now stays queued."""
        waiting: deque[_Queued] = deque()
        for doc, pages in queued:
            self.cancel.raise_if_cancelled()
            if not same_file(doc):
                log.info("tables of %s left for later: the file is missing or changed", doc.path)
                continue
            waiting.append(_Queued(doc, pages, self._submit(doc, pages)))
            if len(waiting) > AHEAD:
                yield waiting.popleft()
        while waiting:
            yield waiting.popleft()

    def _submit(self, doc: Document, pages: Sequence[int]) -> dict[int, Future[PageExtras]]:
        try:
            return self._submit_pages(doc, pages)
        except BrokenExecutor:  # a worker died earlier: start them again, once
            self.workers.close()
            return self._submit_pages(doc, pages)

    def _submit_pages(self, doc: Document, pages: Sequence[int]) -> dict[int, Future[PageExtras]]:
        read, tables, ocr = read_page_extras, self.tables, self.ocr
        return {p: self.workers.submit(read, doc.path, p - 1, tables, ocr) for p in pages}

    def _one(self, item: _Queued, tally: _Tally) -> int:
        """Reads one document's tables and swaps its chunks; a failure costs its tables only.
        Returns how many tables it put in."""
        doc = item.doc
        try:
            found, pictures, scans = self._found(item)
            found = continued(found)  # a table over a page break is one table
            tally.documents, tally.pages = tally.documents + 1, tally.pages + len(item.pages)
            if not found and not pictures:
                self.steps.dequeue(doc.doc_id)
                return 0
            swap = self._plan(doc, found, pictures, scans)
            self._write(swap)
        except (CancelledError, StoreError):
            raise  # the document stays queued: cancelled, or the library cannot be written
        except Exception as exc:
            log.error("tables of %s could not be put in (%s); its text stays searchable",
                      doc.path, exc, exc_info=True)
            tally.failures.append(f"{doc.path}: {exc}")
            self.steps.dequeue(doc.doc_id)
            return 0
        count = sum(len(tables) for tables in found.values())
        tally.tables, tally.chunks = tally.tables + count, tally.chunks + len(swap.written)
        tally.pictures += sum(len(p) for p in pictures.values())
        return count

    def _found(self, item: _Queued) -> tuple[Found, Pictures, Scans]:
        """The document's pages with tables, and with pictures' words. A page that cannot be
        read keeps its text; when a worker dies (killed, out of memory), the pages are read
        once more by new workers."""
        try:
            return self._results(item)
        except BrokenExecutor:
            log.warning("a table worker stopped while reading %s; reading it again", item.doc.path)
            self.workers.close()
            item.futures = self._submit(item.doc, item.pages)
            return self._results(item)

    def _results(self, item: _Queued) -> tuple[Found, Pictures, Scans]:
        found: Found = {}
        pictures: Pictures = {}
        scans: Scans = {}
        for page, future in item.futures.items():
            try:
                extras: PageExtras = self.workers.result(future)
            except (CancelledError, BrokenExecutor):
                raise
            except Exception as exc:
                log.warning("tables of %s, page %d could not be read (%s); the page stays as "
                            "text", item.doc.path, page, exc)
                continue
            if extras.tables:
                found[page] = extras.tables
            if extras.pictures:
                pictures[page] = extras.pictures
            if extras.scan_text is not None:
                scans[page] = extras.scan_text
        return found, pictures, scans

    def _plan(self, doc: Document, found: Found, pictures: Pictures, scans: Scans) -> ChunkSwap:
        """The swap: the chunks of the pages with tables or pictures' words (and of the pages
        their chunks run onto) made again from those pages' text (a scan's: its OCR'd text)
        with the tables' rows and the pictures' words."""
        old = self.catalog.chunks_of(doc.doc_id)
        covered = pages_with_chunks(old)
        with open_pdf(doc.path) as pdf:
            texts = _PageTexts(pdf, scans)

            def redo(span: Span) -> list[ChunkDraft]:
                segments = _segments(texts, span, found, pictures, covered)
                return list(self.chunker.chunk(segments))

            spans = spans_to_redo(old, set(found) | set(pictures))
            return plan_swap(doc, old, _with_text(texts, spans, covered, doc.path), redo)

    def _write(self, swap: ChunkSwap) -> None:
        """Steps 1-4 of the swap protocol (store/table_steps.py)."""
        new_ids = swap.new_ids
        fresh = set(new_ids)
        new = [c for c in swap.written if c.chunk_id in fresh]
        self.steps.stage(new_ids)
        vectors = embed_chunks(new, self.catalog, self.vectors, self.embedder, self.cancel)
        self.cancel.raise_if_cancelled()
        if new:
            self.vectors.upsert(new_ids, vectors, [swap.doc_id] * len(new_ids))
        self.steps.swap(swap)
        dropped = swap.dropped_ids
        self.vectors.delete(dropped)
        self.steps.settle(dropped)

    def _emit(self, tally: _Tally, pages: int, docs: int, message: str) -> None:
        self.progress(ProgressEvent(
            "tables", tally.pages, pages, message, tally.documents, docs, tally.pages, tally.chunks,
        ))


class _PageTexts:
    """The text of each page of a document being swapped, read once (a page's text is checked
    for a text layer before its chunks are made again from it): a scan's from its OCR."""

    def __init__(self, pdf: Any, scans: Scans) -> None:
        self.pdf, self.scans = pdf, scans
        self.read: dict[int, PageText] = {}

    def __call__(self, number: int) -> PageText:
        if number in self.scans:
            return self.scans[number]
        if number not in self.read:
            self.read[number] = page_text(self.pdf.load_page(number - 1))
        return self.read[number]


def _with_text(
    texts: _PageTexts, spans: Sequence[Span], covered: set[int], path: str
) -> list[Span]:
    """The spans whose pages all have a text layer, or were OCR'd again by this pass (scans).
    A chunk that runs onto another page read by OCR cannot be made again without OCR'ing that
    page again: such a span keeps its chunks, the document's other spans still get their
    tables and pictures."""
    kept = []
    for span in spans:
        pages = [n for n in range(span[0], span[1] + 1) if n in covered and n not in texts.scans]
        if all(has_text(texts(n)) for n in pages):
            kept.append(span)
        else:
            log.info("%s: pages %d-%d keep their text: one was read by OCR", path, *span)
    return kept


def _segments(texts: _PageTexts, span: Span, found: Mapping[int, list[TableBlock]],
              pictures: Pictures, covered: set[int]) -> Iterator[Segment]:
    """The segments of the pages of `span`, each table's rows in place of its lines, each
    picture's words where it is."""
    for number in range(span[0], span[1] + 1):
        text = texts(number)
        if number in covered and not has_text(text):
            raise ValueError(f"page {number} has no text layer (it was read by OCR)")
        text = with_pictures(text, pictures.get(number, []))
        yield from page_segments(text, number, found.get(number, ()))


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"
