"""The vector index over one Chroma collection: what the app reads and writes through (opened by
store/vectors.py, the only module that imports chromadb; this one only calls the collection it
is given).

Chroma holds only chunk ids, embeddings and a doc_id metadata field; the catalog holds the text.
Embeddings are always passed explicitly (a text-only call would make chromadb fetch a model).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from desktop_rag.domain import EVERYWHERE, DocScope
from desktop_rag.domain.errors import StoreError
from desktop_rag.store import chroma_reads as reads
from desktop_rag.store.chroma_reads import PAGE
from desktop_rag.store.pending_deletes import MAX_PENDING, PendingDeletes, deferrable
from desktop_rag.store.stamp import WriteStamp

if TYPE_CHECKING:
    from desktop_rag.domain.protocols import Vector

log = logging.getLogger(__name__)

COLLECTION = "chunks"  # the legacy collection (store.spaces.LEGACY_COLLECTION)
RECENT_MAX = 10_000  # vectors written behind before they move into the library's collection


class RecentSlot(Protocol):
    """Where embedded writes go first: a small collection beside the library's own."""

    def find(self) -> Any | None:
        """The recent collection (None: there is none)."""

    def make(self) -> Any:
        """The recent collection, created if there is none."""


@contextmanager
def store_errors(action: str) -> Iterator[None]:
    try:
        yield
    except StoreError:
        raise
    except Exception as exc:  # chromadb raises many unrelated types
        raise StoreError(
            f"The vector store failed to {action}: {exc}",
            "check free disk space; `desktop-rag doctor --check` verifies the library",
        ) from exc


def _batches(n: int, size: int) -> Iterator[slice]:
    for start in range(0, n, size):
        yield slice(start, min(start + size, n))


class ChromaVectorIndex:
    """VectorIndex over one Chroma collection (cosine space).

    An embedded Chroma client keeps its vector index in memory and never sees what another process
    wrote after it opened. With a `stamp` (embedded mode), every write here marks the stamp file,
    and every read first checks it (one stat): a mark from another process reopens the collection.
    With `pending` (embedded mode), deletes only go to that log, and every read hides them
    (store/pending_deletes.py: a delete would load the whole index).

    With `pending` and a `slot` (embedded mode), writes go first to a small recent collection
    while this process has not loaded the library's own: embedded Chroma loads a collection's
    whole vector index on its first use, read or write, 2.5-5 s and 2 GB at a million vectors,
    which made adding a 50-page report there 1.4x slower than to an empty library. The ids
    written are noted in the log and so hidden in the library's collection (their copies there
    are stale), reads combine the two, and `_settle` moves the recent rows in once RECENT_MAX
    of them or MAX_PENDING lines of log wait, or before a write in a process that has loaded
    the index anyway.
    """

    def __init__(
        self,
        collection: Any,
        max_batch: int = 5000,
        stamp: WriteStamp | None = None,
        client_of: Callable[[bool], Any] | None = None,
        collection_of: Callable[[Any], Any] | None = None,
        name: str = COLLECTION,
        lock: threading.RLock | None = None,
        release: Callable[[], None] | None = None,
        pending: PendingDeletes | None = None,
        slot: RecentSlot | None = None,
    ) -> None:
        self._col = collection
        self._pending, self._slot = pending, slot
        self._recent = slot.find() if slot is not None else None
        self._warm = False  # the collection's index is loaded by this process's client
        self._release = release
        self.collection_name = name  # what caches of its vectors are keyed by
        self._batch = max(1, min(max_batch, 5000))
        self._stamp, self._client_of, self._collection_of = stamp, client_of, collection_of
        self._client = client_of(False) if client_of is not None else None
        self._lock = lock or threading.RLock()

    @contextmanager
    def _current(self) -> Iterator[Any]:
        """The collection, reopened first when another process has written since; held for the
        whole operation so that a reopen never closes it under another thread."""
        with self._lock:
            if self._client_of is not None and self._collection_of is not None:
                fresh = self._stamp is not None and self._stamp.foreign_write()
                if fresh:
                    log.info("another process changed the vector store; reopening it")
                client = self._client_of(fresh)
                if client is not self._client:  # reopened here or by another index of this process
                    self._col = self._collection_of(client)  # may raise SpaceChangedError
                    self._client, self._warm = client, False
                    self._recent = self._slot.find() if self._slot is not None else None
            yield self._col

    def _written(self) -> None:
        if self._stamp is not None:
            self._stamp.mark()

    def upsert(self, ids: Sequence[str], embeddings: Vector, doc_ids: Sequence[str]) -> None:
        if len(ids) != len(embeddings) or len(ids) != len(doc_ids):
            raise ValueError("ids, embeddings and doc_ids differ in length")
        with self._current() as col:
            if self._warm or not self._behind(col, ids, embeddings, doc_ids):
                self._settle(col)
                _put(col, ids, embeddings, doc_ids, self._batch)
            self._written()

    def _behind(
        self, col: Any, ids: Sequence[str], embeddings: Vector, doc_ids: Sequence[str]
    ) -> bool:
        """Writes to the recent collection (False: there is none here, the server mode)."""
        if self._pending is None or self._slot is None or not deferrable(ids):
            return False
        if self._recent is None:  # else kept, and found again whenever the client reopens
            with store_errors("open the recent vectors"):
                self._recent = self._slot.make()
        recent = self._recent
        _put(recent, ids, embeddings, doc_ids, self._batch)
        with store_errors("note saved vectors"):
            waiting = self._pending.add(ids, written=True)  # their copies in `col` are stale
        if waiting > MAX_PENDING or int(recent.count()) > RECENT_MAX:
            self._settle(col)
        return True

    def delete(self, ids: Sequence[str]) -> None:
        if not ids:
            return
        if self._pending is not None and deferrable(ids):
            with self._lock, store_errors("note deleted vectors"):
                waiting = self._pending.add(ids)
                self._written()
            if waiting <= MAX_PENDING:
                return
            ids = []
        with self._current() as col:
            self._settle(col)
            for part in _batches(len(ids), self._batch):
                with store_errors("delete vectors"):
                    col.delete(ids=list(ids[part]))
            self._written()

    def apply_pending(self) -> None:
        """Applies what waits in the log and moves the recent collection in, now (`_settle`)."""
        with self._current() as col:
            self._settle(col)

    def _settle(self, col: Any) -> None:
        """Brings the library's collection up to date: deletes every id the log names
        (store/pending_deletes.py) from it and the deleted ones from the recent collection,
        moves the recent rows in, forgets the log, then empties the recent collection (another
        process may be reading it, so it is not dropped). A crash at any point leaves every
        live id readable once: before the log is forgotten the moved rows are hidden in `col`;
        after it, the two copies of a row are equal and reads take one."""
        self._warm = True  # any call below loads the collection's index
        waiting, deleted = sorted(self._hidden()), sorted(self._deleted())
        for part in _batches(len(waiting), self._batch):
            with store_errors("delete vectors"):
                col.delete(ids=waiting[part])
        recent = self._recent
        moved = self._moved_in(col, recent, deleted) if recent is not None else []
        if self._pending is not None:
            self._pending.clear()
        if recent is not None:
            for part in _batches(len(moved), self._batch):
                with store_errors("empty the recent vectors"):
                    recent.delete(ids=moved[part])
        if waiting or moved:
            log.info("vector store: %d waiting ids applied, %d recent vectors moved in",
                     len(waiting), len(moved))  # fmt: skip

    def _moved_in(self, col: Any, recent: Any, deleted: list[str]) -> list[str]:
        """Copies the recent collection's live rows into `col`; their ids."""
        for part in _batches(len(deleted), self._batch):
            with store_errors("delete vectors"):
                recent.delete(ids=deleted[part])
        moved: list[str] = []
        for ids, vectors, docs in reads.rows(recent):
            _put(col, ids, vectors, docs, self._batch)
            moved += ids
        return moved

    def _hidden(self) -> frozenset[str]:
        """Hidden in the library's collection: every id the log names."""
        return self._pending.ids() if self._pending is not None else frozenset()

    def _deleted(self) -> frozenset[str]:
        """Hidden in the recent collection: the ids deleted since they were written there."""
        return self._pending.deleted() if self._pending is not None else frozenset()

    def query(
        self, embedding: Vector, k: int, scope: DocScope = EVERYWHERE
    ) -> list[tuple[str, float]]:
        if scope.empty or k <= 0:
            return []
        hidden, deleted = self._hidden(), self._deleted()
        with self._current() as col:
            self._warm = True
            found = reads.scored(col, embedding, k, scope, hidden)
            if self._recent is None:
                return found
            recent = reads.scored(self._recent, embedding, k, scope, deleted)
        return reads.merged(recent, found, k=k)

    def get_embeddings(self, ids: Sequence[str]) -> dict[str, Vector]:
        out: dict[str, Vector] = {}
        with self._current() as col:
            for source, hidden in ((self._recent, self._deleted()), (col, self._hidden())):
                wanted = [i for i in ids if i not in out and i not in hidden]
                if source is None or not wanted:
                    continue
                self._warm = self._warm or source is col
                for part in _batches(len(wanted), self._batch):
                    got = source.get(ids=wanted[part], include=["embeddings"])
                    for cid, vec in zip(got["ids"], got["embeddings"], strict=True):
                        out[cid] = np.asarray(vec, dtype=np.float32)
        return out

    def all_ids(self) -> set[str]:
        with self._current() as col:
            self._warm = True
            return (reads.ids_of(col) - self._hidden()) | self._recent_ids()

    def _recent_ids(self) -> set[str]:
        """The live ids of the recent collection (under the lock)."""
        return reads.ids_of(self._recent) - self._deleted() if self._recent is not None else set()

    def count(self) -> int:
        hidden = self._hidden()
        with self._current() as col:
            self._warm = True
            there = int(col.count()) - len(reads.present(col, hidden, self._batch))
            recent = self._recent_ids()
            twice = reads.present(col, recent, self._batch) - hidden  # a move cut short
            return there + len(recent) - len(twice)

    def export_vectors(self) -> Iterator[tuple[list[str], Vector, list[str]]]:
        """Every live (ids, embeddings, doc_ids) page of the collection and of the recent one:
        what the persisted copy (store/vector_snapshot.py) is written from."""
        with self._current():
            recent, newer = self._recent, self._recent_ids()
        done = 0
        while True:
            with self._current() as col:
                self._warm = True
                got = col.get(include=["embeddings", "metadatas"], limit=PAGE, offset=done)
            yield from reads.rows_of(got, self._hidden() | newer)
            done += len(got["ids"])
            if len(got["ids"]) < PAGE:
                break
        if recent is not None:
            with self._lock:
                for got in reads.pages(recent, ["embeddings", "metadatas"]):
                    yield from reads.rows_of(got, self._deleted())

    def release(self) -> None:
        """Frees the memory embedded Chroma holds for the folder (its whole vector index, loaded
        by the first write or query) by closing the process-wide client; the next operation of
        any index of the folder opens it again (0.2 s, then the index loads: 2-4 s at a million
        vectors). For a process whose reads the persisted copy serves (store/vector_snapshot.py)
        once it has written. Nothing in server mode."""
        if self._release is not None:
            with self._lock:  # the folder's lock: no index of this process is using the client
                self._release()

    def close(self) -> None:
        """Nothing to do: the process-wide client is shared and closed at exit."""


def _put(col: Any, ids: Sequence[str], embeddings: Vector, doc_ids: Sequence[str], batch: int
         ) -> None:  # fmt: skip
    for part in _batches(len(ids), batch):
        with store_errors("save vectors"):
            col.upsert(
                ids=list(ids[part]),
                embeddings=np.asarray(embeddings[part], dtype=np.float32),
                metadatas=[{"doc_id": d} for d in doc_ids[part]],
            )
