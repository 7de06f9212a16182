"""A persisted copy of the vector collection, searched with numpy while it is current, so that a
process that only reads (a CLI `search` or `ask`) never imports or opens Chroma.

Opening embedded Chroma costs 2.7 s on this project's 2-core machine (1.2 s of imports, then the
client), more than everything else a cold `search` does. The copy is a float32 matrix (memory-
mapped, L2-normalised rows), the chunk ids and a document code per row, written after a process
that wrote vectors (or found the copy stale) closes the index. It is current while the vector
store's write stamp (store/stamp.py; replaced by every write of every process) still reads as it
did when the copy was read, and the copy's collection is still the active one (an embedder switch
moves the library to another collection); otherwise reads go to Chroma. Searches
over the copy are exact (brute force: 37,000 rows x 384 dims in a few ms) up to 150,000 rows;
past that the copy is grouped into inverted lists (store/vector_lists.py) and a search reads the
nearest fifth of them (recall@10 0.997-0.999 at a million rows), and a search scoped to a few
documents still scores exactly their rows. Writes always go to Chroma.

The copy's files, their layout and its search: store/vector_copy.py.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from desktop_rag.domain import EVERYWHERE, DocScope
from desktop_rag.domain.protocols import Vector
from desktop_rag.store.vector_copy import (
    POINTER,
    Snapshot,
    VectorSource,
    _mtime,
    _publish,
    load_snapshot,
    read_stamp,
    write_snapshot,
)
from desktop_rag.store.vector_journal import Journal, applied_build, masked_build
from desktop_rag.store.vector_tail import appended_build, fits

__all__ = ["MAX_VECTORS", "POINTER", "Snapshot", "SnapshotVectorIndex", "VectorSource",
           "load_snapshot", "read_stamp", "write_snapshot"]  # fmt: skip

log = logging.getLogger(__name__)

MAX_VECTORS = 2_000_000  # 2.9 GiB at 384 dims: past it, searches stay with Chroma


class SnapshotVectorIndex:
    """VectorIndex: reads from the persisted copy while it is current, else from the source
    (opened only then); writes to the source. `close()` refreshes a copy that is stale."""

    def __init__(
        self, folder: Path, stamp_file: Path, collection: str,
        open_source: Callable[[], VectorSource], active: Callable[[], str] | None = None,
    ) -> None:
        self._folder, self._stamp_file, self._collection = folder, stamp_file, collection
        self._open_source = open_source
        self._active = active or (lambda: collection)
        self._source: VectorSource | None = None
        self._snapshot: Snapshot | None = None
        self._rows: dict[str, int] | None = None
        self._stale = False
        self._looked: tuple[str, int] | None = None  # (stamp, pointer mtime) last loaded at
        self._journal: Journal | None = None  # this process's writes since the copy was current
        self._lock = threading.RLock()

    @property
    def collection_name(self) -> str:
        return self._collection

    @property
    def source_opened(self) -> bool:
        return self._source is not None

    @property
    def source(self) -> VectorSource:
        """The vector store itself (Chroma), opened now if it was not."""
        return self._source_index()

    def _source_index(self) -> VectorSource:
        with self._lock:
            if self._source is None:
                self._source = self._open_source()
            return self._source

    def current(self) -> Snapshot | None:
        """The copy when it is current (one small file read per call), else None."""
        with self._lock:
            stamp = read_stamp(self._stamp_file)
            snap = self._snapshot
            looked = (stamp, _mtime(self._folder / POINTER))
            if (snap is None or snap.stamp != stamp) and looked != self._looked:
                snap = load_snapshot(self._folder)  # not again until the stamp or copy changes
                self._snapshot, self._rows, self._looked = snap, None, looked
            if snap is None or snap.stamp != stamp or snap.collection != self._collection:
                self._stale = True
                return None
            if self._active() != self._collection:  # an embedder switch moved the library
                return None  # the source says so (store.vectors.SpaceChangedError)
            return snap

    def upsert(self, ids: Sequence[str], embeddings: Vector, doc_ids: Sequence[str]) -> None:
        with self._lock:
            journal = self._journal_now()
            self._source_index().upsert(ids, embeddings, doc_ids)
            journal.upsert(ids, embeddings, doc_ids)
            journal.last_stamp = read_stamp(self._stamp_file)
            self._stale = True

    def delete(self, ids: Sequence[str]) -> None:
        with self._lock:
            journal = self._journal_now()
            self._source_index().delete(ids)
            journal.delete(ids)
            journal.last_stamp = read_stamp(self._stamp_file)
            self._stale = True

    def _journal_now(self) -> Journal:
        if self._journal is None:
            self._journal = Journal(read_stamp(self._stamp_file))
        return self._journal

    def query(
        self, embedding: Vector, k: int, scope: DocScope = EVERYWHERE
    ) -> list[tuple[str, float]]:
        snap = self.current()
        if snap is None:
            return self._source_index().query(embedding, k, scope)
        return snap.query(embedding, k, scope)

    def get_embeddings(self, ids: Sequence[str]) -> dict[str, Vector]:
        snap = self.current()
        if snap is None:
            return self._source_index().get_embeddings(ids)
        with self._lock:
            rows = self._rows = self._rows or snap.row_of()
        return {cid: np.array(snap.vectors[rows[cid]]) for cid in ids if cid in rows}

    def all_ids(self) -> set[str]:
        snap = self.current()
        return snap.live_ids() if snap is not None else self._source_index().all_ids()

    def count(self) -> int:
        snap = self.current()
        return snap.size() if snap is not None else self._source_index().count()

    def refresh(self) -> int | None:
        """Rewrites the copy from the source if it is stale; the rows written (None: not done).
        The source frees its memory once the copy is current."""
        with self._lock:
            if self.current() is not None:
                self._release_source()
                return None
            stamp = read_stamp(self._stamp_file)
            journal, self._journal = self._journal, None
            rows = self._from_journal(journal, stamp)
            if rows is None:
                source = self._source_index()
                if source.count() > MAX_VECTORS:
                    return None
                rows = write_snapshot(self._folder, source, stamp)
            self._snapshot, self._rows, self._stale, self._looked = None, None, False, None
            log.info("vector snapshot: %d rows written", rows)
            self._release_source()
            return rows

    def _release_source(self) -> None:
        """The copy serves reads now: the source frees what it holds in memory (embedded
        Chroma's whole vector index, about 2 GB at a million vectors); a later write opens it
        again."""
        release = getattr(self._source, "release", None)
        if callable(release):
            release()

    def _from_journal(self, journal: Journal | None, stamp: str) -> int | None:
        """The copy brought up to date from itself and this process's writes, when nothing else
        wrote since it was current (None: it must be exported from the source)."""
        old = self._on_disk()
        if (journal is None or journal.overflowed or old is None or not stamp
                or old.stamp != journal.base_stamp or stamp != journal.last_stamp
                or old.collection != self._collection
                or len(old.ids) + len(journal.upserts) > MAX_VECTORS):  # fmt: skip
            return None
        if not journal.upserts and old.build is not None:
            build, docs, rows = masked_build(self._folder, old, journal.deleted)
        elif fits(old, len(journal.upserts)):
            build, docs, rows = appended_build(self._folder, old, journal)
        else:
            build, docs, rows = applied_build(self._folder, old, journal)
        _publish(self._folder, build, stamp, old.collection, docs)
        return rows

    def _on_disk(self) -> Snapshot | None:
        """The copy the pointer names: the one `current()` loaded when the pointer has not moved
        since (reading a million ids again took 0.28 s), else read now."""
        loaded, looked = self._snapshot, self._looked
        if loaded is not None and looked is not None and looked[1] == _mtime(
            self._folder / POINTER
        ):
            return loaded
        return load_snapshot(self._folder)

    def close(self) -> None:
        """Refreshes a stale copy when this process opened the source anyway (it wrote, or read
        while the copy was stale), so that the next process starts without Chroma."""
        if self._stale and self._source is not None:
            try:
                self.refresh()
            except Exception:  # the copy is an optimisation: Chroma still answers
                log.warning("could not refresh the vector snapshot", exc_info=True)
        close = getattr(self._source, "close", None)
        if callable(close):
            close()
