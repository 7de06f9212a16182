"""Writes one extracted document through the consistency protocol, plus moves and removals."""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from desktop_rag.domain import Chunk, DocKind, DocStatus, Document, FileOutcome, Outcome, Reason
from desktop_rag.domain.errors import CancelledError
from desktop_rag.domain.progress import CancelToken
from desktop_rag.domain.protocols import Embedder, VectorIndex
from desktop_rag.ingest import recovery
from desktop_rag.ingest.chunker import ChunkDraft
from desktop_rag.ingest.embedding import EmbedStats, embed_chunks
from desktop_rag.ingest.loaders import kind_of
from desktop_rag.ingest.planner import Job, Move
from desktop_rag.ingest.segments import LoadedDocument, LoadError
from desktop_rag.store.documents import Catalog
from desktop_rag.store.schema import chunk_id
from desktop_rag.store.titles import file_title

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Extracted:
    """A job as the extraction thread hands it over: read and chunked, or why it cannot be."""

    job: Job
    loaded: LoadedDocument | None = None
    drafts: list[ChunkDraft] = field(default_factory=list)
    error: LoadError | None = None

    @property
    def chars(self) -> int:
        return sum(len(d.text) for d in self.drafts)


# a document, its chunks, its pages for the table pass and what they were queued for
Ready = tuple[Document, list[Chunk], tuple[int, ...], str | None]


def doc_id_of(sha256: str) -> str:
    return sha256[:16]


def to_chunks(doc: Document, drafts: Sequence[ChunkDraft]) -> list[Chunk]:
    n = len(drafts)
    return [
        Chunk(
            chunk_id(doc.doc_id, i), doc.doc_id, doc.path, doc.title, doc.kind, d.text, i,
            d.pages, d.char_span, d.bboxes, d.heading_path,
            chunk_id(doc.doc_id, i - 1) if i else None,
            chunk_id(doc.doc_id, i + 1) if i + 1 < n else None, d.token_count,
        )
        for i, d in enumerate(drafts)
    ]


class DocumentWriter:
    def __init__(
        self, catalog: Catalog, vectors: VectorIndex, embedder: Embedder, cancel: CancelToken,
        stats: EmbedStats,
    ) -> None:
        self.catalog = catalog
        self.vectors = vectors
        self.embedder = embedder
        self.cancel = cancel
        self.stats = stats

    def write_group(self, items: Sequence[Extracted]) -> list[FileOutcome]:
        """Indexes several extracted documents with one embedding pass; one outcome each."""
        outcomes: list[FileOutcome | None] = []
        ready: list[Ready] = []
        for item in items:
            prepared = self._prepare(item)
            if isinstance(prepared, FileOutcome):
                outcomes.append(prepared)
            else:
                outcomes.append(None)
                ready.append(prepared)
        self._index(ready)
        done = iter(ready)
        return [o if o is not None else self._indexed(next(done)[0], i)
                for o, i in zip(outcomes, items, strict=True)]

    def _prepare(self, item: Extracted) -> FileOutcome | Ready:
        job, loaded = item.job, item.loaded
        if item.error is not None:
            error = item.error
            return self._failed(job, error.code, error.reason, skip=error.skip)
        if loaded is None:
            return self._failed(job, Reason.UNEXPECTED, "unreadable", skip=False)
        if not item.drafts:
            return self._failed(job, loaded.empty_code, loaded.empty_reason, loaded.empty_is_skip)
        doc = Document(
            doc_id_of(job.sha256), str(job.path), loaded.title, loaded.kind, job.sha256,
            job.size, job.mtime, loaded.pages, len(item.drafts), DocStatus.PENDING,
            stated_title=loaded.stated_title,
        )
        return doc, to_chunks(doc, item.drafts), loaded.table_pages, loaded.reader_mark

    @staticmethod
    def _indexed(doc: Document, item: Extracted) -> FileOutcome:
        outcome = Outcome.UPDATED if item.job.previous is not None else Outcome.INDEXED
        loaded = item.loaded
        note, code = (loaded.note, loaded.note_code) if loaded else (None, Reason.NONE)
        return FileOutcome(doc.path, outcome, note, doc.doc_id, doc.pages, doc.chunks, code)

    def _index(self, ready: list[Ready]) -> None:
        """The consistency protocol for a group: all pending (each queued for the table pass
        when it has pages that look tabular), embed, upsert, finalize each."""
        for doc, chunks, table_pages, mark in ready:
            self.catalog.add_pending(doc, chunks, table_pages, mark)
        every = [c for _, chunks, _, _ in ready for c in chunks]
        try:
            embeddings = embed_chunks(
                every, self.catalog, self.vectors, self.embedder, self.cancel, stats=self.stats
            )
            self.cancel.raise_if_cancelled()
        except CancelledError:
            added = [d.doc_id for d, _, _, _ in ready]
            recovery.remove_documents(self.catalog, self.vectors, added)
            raise
        if every:
            self.vectors.upsert([c.chunk_id for c in every], embeddings, [c.doc_id for c in every])
        for doc, _, _, _ in ready:
            recovery.remove_documents(self.catalog, self.vectors, self.catalog.finalize(doc.doc_id))

    def _failed(self, job: Job, code: Reason, reason: str, skip: bool) -> FileOutcome:
        path = str(job.path)
        if skip:
            return FileOutcome(path, Outcome.SKIPPED, reason, code=code)
        if job.previous is None:  # keep an older good version searchable; else record why
            self.catalog.record_failed(Document(
                "x" + job.sha256[:15], path, job.path.stem, _kind(job.path), job.sha256,
                job.size, job.mtime, 0, 0, DocStatus.FAILED, reason,
            ))
        return FileOutcome(path, Outcome.FAILED, reason, code=code)

    def apply_moves(self, moves: Sequence[Move]) -> list[FileOutcome]:
        outcomes = []
        for move in moves:
            old = move.doc.path
            title = moved_title(move.doc, move.path)
            superseded = self.catalog.move(
                move.doc.doc_id, str(move.path), move.size, move.mtime, title
            )
            recovery.remove_documents(self.catalog, self.vectors, superseded)
            doc = replace(move.doc, path=str(move.path), title=title or move.doc.title)
            outcomes.append(FileOutcome(
                doc.path, Outcome.MOVED, f"moved from {old}", doc.doc_id, doc.pages, doc.chunks,
                Reason.MOVED,
            ))
        return outcomes

    def remove_vanished(self, folders: Sequence[Path]) -> list[FileOutcome]:
        """Documents under a re-ingested folder whose file is gone are removed."""
        outcomes = []
        for folder in folders:
            for doc in self.catalog.documents_under(str(folder)):
                if doc.status is DocStatus.REMOVING or os.path.lexists(doc.path):
                    continue
                recovery.remove_documents(self.catalog, self.vectors, [doc.doc_id])
                outcomes.append(FileOutcome(
                    doc.path, Outcome.REMOVED, "file no longer exists", doc.doc_id, doc.pages,
                    doc.chunks, Reason.FILE_GONE,
                ))
        return outcomes


def moved_title(doc: Document, new: Path) -> str | None:
    """The title of a document whose file moved to `new`: a new one only when the old one was
    made from the file's name (as now, or by older versions), never one the user chose."""
    if doc.title_by_user:
        return None
    if doc.title == file_title(doc.path):
        return file_title(str(new))
    return new.stem if doc.title == Path(doc.path).stem else None


def _kind(path: Path) -> DocKind:
    return kind_of(path) or DocKind.OTHER
