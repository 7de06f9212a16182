"""Ingestion: scan, plan, then extraction and chunking (a producer thread) overlapped with
embedding.

The producer opens, extracts (PyMuPDF, page by page) and chunks one file at a time into a small
bounded queue, so memory stays bounded; it counts word pieces with its own copy of the embedder's
tokenizer, so it never waits for an embedding batch. The calling thread embeds, writes and
reports, and so spends its time in the embedder. Cancellation is checked between pages, files and
embedding batches; a document cut short is rolled back, so the library stays consistent.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from desktop_rag.domain import FileOutcome, IngestReport, Outcome, Reason
from desktop_rag.domain.errors import CancelledError
from desktop_rag.domain.progress import (
    CancelToken,
    ProgressCallback,
    ProgressEvent,
    ProgressStage,
    no_progress,
)
from desktop_rag.domain.protocols import Embedder, TokenCounter, VectorIndex
from desktop_rag.ingest import recovery
from desktop_rag.ingest.chunker import Chunker
from desktop_rag.ingest.embedding import EmbedStats, GuardedEmbedder
from desktop_rag.ingest.memory import MemoryBudget
from desktop_rag.ingest.ocr import OcrConfig
from desktop_rag.ingest.page_workers import PageWorkers
from desktop_rag.ingest.planner import Job, Planner
from desktop_rag.ingest.scan import scan
from desktop_rag.ingest.segments import LoadedDocument, LoadError, Segment
from desktop_rag.ingest.writer import DocumentWriter, Extracted
from desktop_rag.store.documents import Catalog

log = logging.getLogger(__name__)
QUEUE_SIZE = 4
GROUP_CHARS = 200_000  # about 250 chunks


@dataclass(slots=True)
class Totals:
    files_total: int = 0
    files_done: int = 0
    pages: int = 0
    chunks: int = 0
    bytes_total: int = 0
    bytes_done: int = 0
    started: float = field(default_factory=time.perf_counter)

    def eta(self) -> float | None:
        if not self.bytes_done:
            return None
        elapsed = time.perf_counter() - self.started
        return elapsed / self.bytes_done * (self.bytes_total - self.bytes_done)


class Ingestor:
    """One ingestion run over one library (the caller holds the write lock)."""

    def __init__(
        self, catalog: Catalog, vectors: VectorIndex,
        embedder: Embedder | Callable[[], Embedder],
        counter: TokenCounter | Callable[[], TokenCounter],
        progress: ProgressCallback = no_progress, cancel: CancelToken | None = None,
        memory: MemoryBudget | None = None, ocr: OcrConfig | None = None,
        ocr_processes: int = 0, tables: bool = False,
    ) -> None:
        self.catalog = catalog
        self.vectors = vectors
        self.embedder = GuardedEmbedder(embedder)
        self._counter = counter
        self.progress = progress
        self.cancel = cancel or CancelToken()
        self.memory = memory or MemoryBudget(0)
        self.ocr, self.tables = ocr, tables
        # OCR only: tables are only noted now (pages that look tabular), read by the table pass
        self.page_workers = PageWorkers(ocr_processes, self._stopping) if ocr is not None else None
        self.stats = EmbedStats()
        self.totals = Totals()
        self._stop = threading.Event()
        self.writer = DocumentWriter(catalog, vectors, self.embedder, self.cancel, self.stats)

    def run(
        self, paths: Sequence[str | Path], removed: Collection[str] = frozenset(),
        settle_s: float = 0.0,
    ) -> IngestReport:
        """Ingests `paths`; files in `removed` that a folder walk finds are passed over, and
        files changed in the last `settle_s` seconds are left for later (see Planner)."""
        recovery.resume(self.catalog, self.vectors, self.embedder)
        self._emit("scan", message="looking for files")
        found = scan(list(paths), removed, self._stopping)
        planner = Planner(self.catalog, ocr_on=self.ocr is not None, settle_s=settle_s)
        for item in found.files:
            planner.add(item)
        outcomes = [*found.outcomes, *planner.plan.outcomes]
        outcomes += self.writer.apply_moves(planner.plan.moves)
        outcomes += self.writer.remove_vanished(found.folders)
        try:
            outcomes += self._extract_and_embed(planner.plan.jobs)
        finally:
            if self.page_workers is not None:
                self.page_workers.close()
        seconds = time.perf_counter() - self.totals.started
        outcomes.sort(key=lambda o: o.path)
        return IngestReport(tuple(outcomes), seconds, self.stats.embedded_texts)

    @cached_property
    def chunker(self) -> Chunker:
        """The producer thread's chunker (built there, on its first file)."""
        counter = self._counter
        tokens = counter if isinstance(counter, TokenCounter) else counter()
        return Chunker(self.embedder.thread_counter(), tokens)

    def _extract_and_embed(self, jobs: list[Job]) -> list[FileOutcome]:
        if not jobs:
            return []
        self.totals.files_total = len(jobs)
        self.totals.bytes_total = sum(j.size for j in jobs)
        items: queue.Queue[Extracted | None] = queue.Queue(QUEUE_SIZE)
        producer = threading.Thread(
            target=self._produce, args=(jobs, items), name="ingest-extract", daemon=True
        )
        producer.start()
        outcomes: list[FileOutcome] = []
        try:
            self._warm_up()
            while group := _take_group(items):
                outcomes += self._consume(group)
                self.memory.enforce()
        finally:
            self._stop.set()
            producer.join()
        done = {o.path for o in outcomes}
        return outcomes + [
            FileOutcome(str(j.path), Outcome.CANCELLED, "cancelled before it was read",
                        code=Reason.CANCELLED)
            for j in jobs if str(j.path) not in done
        ]

    def _warm_up(self) -> None:
        """Loads the model and the vector store while the first file is being extracted, and
        runs the model once (its first call is slow)."""
        self.embedder.embed_query("warm up")
        self.vectors.count()

    def _produce(self, jobs: list[Job], items: queue.Queue[Extracted | None]) -> None:
        try:
            for job in jobs:
                if self._stopping():
                    break
                self._put(items, self._extract(job))
        finally:
            self._put(items, None)

    def _stopping(self) -> bool:
        return self.cancel.cancelled or self._stop.is_set()

    def _put(self, items: queue.Queue[Extracted | None], item: Extracted | None) -> None:
        while not self._stop.is_set():
            try:
                items.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def _extract(self, job: Job) -> Extracted:
        try:
            loaded = _load(job.path, self.ocr, self.page_workers, self.tables)
            return Extracted(job, loaded, list(self.chunker.chunk(self._until_stop(loaded))))
        except LoadError as exc:
            return Extracted(job, error=exc)
        except Exception as exc:  # a loader bug must cost one file, not the run
            log.exception("extracting %s failed", job.path)
            error = LoadError(Reason.UNEXPECTED, f"unexpected error while reading: {exc}")
            return Extracted(job, error=error)

    def _until_stop(self, loaded: LoadedDocument) -> Iterator[Segment]:
        """The document's segments, read page by page as chunking asks for them."""
        for segment in loaded.segments:
            if self._stopping():
                raise LoadError(Reason.CANCELLED, "cancelled")
            yield segment

    def _consume(self, group: list[Extracted]) -> list[FileOutcome]:
        """Embeds the documents that are ready together (bigger, length-sorted batches)."""
        try:
            if self.cancel.cancelled:
                raise CancelledError()
            self._emit("embed", message=str(group[0].job.path))
            outcomes = self.writer.write_group(group)
        except CancelledError:
            outcomes = [FileOutcome(str(i.job.path), Outcome.CANCELLED, "cancelled",
                                    code=Reason.CANCELLED) for i in group]
        for item, outcome in zip(group, outcomes, strict=True):
            self.totals.files_done += 1
            self.totals.bytes_done += item.job.size
            self.totals.pages += outcome.pages
            self.totals.chunks += outcome.chunks
            self._emit("file-done", message=f"{outcome.path}: {outcome.outcome.value}")
        return outcomes

    def _emit(self, stage: ProgressStage, message: str = "") -> None:
        t = self.totals
        self.progress(ProgressEvent(
            stage, t.files_done, t.files_total, message, t.files_done, t.files_total, t.pages,
            t.chunks, t.eta(),
        ))


def _take_group(items: queue.Queue[Extracted | None]) -> list[Extracted]:
    """The next extracted document plus any others already waiting (up to GROUP_CHARS);
    empty at the end. The end marker is put back for the next call."""
    first = items.get()
    if first is None:
        return []
    group = [first]
    while sum(i.chars for i in group) < GROUP_CHARS:
        try:
            item = items.get_nowait()
        except queue.Empty:
            break
        if item is None:
            items.put(None)
            break
        group.append(item)
    return group


def _load(
    path: Path, ocr: OcrConfig | None, workers: PageWorkers | None, tables: bool
) -> LoadedDocument:
    from desktop_rag.ingest.loaders import load

    return load(path, ocr, workers, tables)
