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
from typing import TYPE_CHECKING, Any

import numpy as np

from desktop_rag.domain import EVERYWHERE, DocScope
from desktop_rag.domain.errors import StoreError
from desktop_rag.store.pending_deletes import MAX_PENDING, PendingDeletes, deferrable
from desktop_rag.store.stamp import WriteStamp

if TYPE_CHECKING:
    from desktop_rag.domain.protocols import Vector

log = logging.getLogger(__name__)

COLLECTION = "chunks"  # the legacy collection (store.spaces.LEGACY_COLLECTION)
PAGE = 5000  # rows a paged `get` reads at a time
FEW_VECTORS = 800  # a scope this small is scored here rather than by a filtered query


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
    With `pending` (embedded mode), deletes wait there for the next upsert and every read hides
    them (store/pending_deletes.py: a delete would load the whole index).
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
    ) -> None:
        self._col = collection
        self._pending = pending
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
                    self._client = client
            yield self._col

    def _written(self) -> None:
        if self._stamp is not None:
            self._stamp.mark()

    def upsert(self, ids: Sequence[str], embeddings: Vector, doc_ids: Sequence[str]) -> None:
        if len(ids) != len(embeddings) or len(ids) != len(doc_ids):
            raise ValueError("ids, embeddings and doc_ids differ in length")
        with self._current() as col:
            self._apply_pending(col)
            for part in _batches(len(ids), self._batch):
                with store_errors("save vectors"):
                    col.upsert(
                        ids=list(ids[part]),
                        embeddings=np.asarray(embeddings[part], dtype=np.float32),
                        metadatas=[{"doc_id": d} for d in doc_ids[part]],
                    )
            self._written()

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
            self._apply_pending(col)
            for part in _batches(len(ids), self._batch):
                with store_errors("delete vectors"):
                    col.delete(ids=list(ids[part]))
            self._written()

    def apply_pending(self) -> None:
        """Applies the deletes waiting, now (see `_apply_pending`)."""
        with self._current() as col:
            self._apply_pending(col)

    def _apply_pending(self, col: Any) -> None:
        """Deletes the ids waiting (store/pending_deletes.py) from Chroma itself."""
        waiting = sorted(self._hidden())
        for part in _batches(len(waiting), self._batch):
            with store_errors("delete vectors"):
                col.delete(ids=waiting[part])
        if waiting and self._pending is not None:
            self._pending.clear()

    def _hidden(self) -> frozenset[str]:
        return self._pending.ids() if self._pending is not None else frozenset()

    def query(
        self, embedding: Vector, k: int, scope: DocScope = EVERYWHERE
    ) -> list[tuple[str, float]]:
        if scope.empty:
            return []
        where = _where(scope)
        hidden = self._hidden()
        with self._current() as col:
            total = int(col.count())
            if total == 0 or k <= 0:
                return []
            if scope.included is not None:
                few = _few_scored(col, where, embedding, k, hidden)
                if few is not None:
                    return few
            found = col.query(
                query_embeddings=[np.asarray(embedding, dtype=np.float32)],
                n_results=min(k + len(hidden), total),
                where=where,
                include=["distances"],
            )
        ids, dists = found["ids"][0], found["distances"][0]
        hits = [(cid, 1.0 - float(d)) for cid, d in zip(ids, dists, strict=True)]
        return [hit for hit in hits if hit[0] not in hidden][:k]

    def get_embeddings(self, ids: Sequence[str]) -> dict[str, Vector]:
        out: dict[str, Vector] = {}
        hidden = self._hidden()
        ids = [i for i in ids if i not in hidden]
        with self._current() as col:
            for part in _batches(len(ids), self._batch):
                got = col.get(ids=list(ids[part]), include=["embeddings"])
                for cid, vec in zip(got["ids"], got["embeddings"], strict=True):
                    out[cid] = np.asarray(vec, dtype=np.float32)
        return out

    def all_ids(self) -> set[str]:
        ids: set[str] = set()
        done = 0
        with self._current() as col:
            while True:
                got = col.get(include=[], limit=PAGE, offset=done)
                ids.update(got["ids"])
                done += len(got["ids"])
                if len(got["ids"]) < PAGE:
                    return ids - self._hidden()

    def count(self) -> int:
        hidden = sorted(self._hidden())
        with self._current() as col:
            there = sum(len(col.get(ids=hidden[part], include=[])["ids"])
                        for part in _batches(len(hidden), self._batch))  # fmt: skip
            return int(col.count()) - there

    def export_vectors(self) -> Iterator[tuple[list[str], Vector, list[str]]]:
        """Every (ids, embeddings, doc_ids) page of the collection: what the persisted copy
        (store/vector_snapshot.py) is written from."""
        done = 0
        while True:
            with self._current() as col:
                got = col.get(include=["embeddings", "metadatas"], limit=PAGE, offset=done)
            ids, hidden = list(got["ids"]), self._hidden()
            keep = [n for n, cid in enumerate(ids) if cid not in hidden]
            if keep:
                docs = [str((got["metadatas"][n] or {}).get("doc_id", "")) for n in keep]
                vectors = np.asarray(got["embeddings"], dtype=np.float32)[keep]
                yield [ids[n] for n in keep], vectors, docs
            done += len(ids)
            if len(ids) < PAGE:
                return

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


def _few_scored(
    col: Any,
    where: dict[str, Any] | None,
    embedding: Vector,
    k: int,
    hidden: frozenset[str] = frozenset(),
) -> list[tuple[str, float]] | None:
    """The best `k` of a scope of at most FEW_VECTORS vectors, scored here (None: more).

    At 50,000 vectors Chroma's filtered query costs 23-38 ms whatever the filter keeps, while
    reading the vectors (L2-normalised) and taking dot products costs 5 ms for 50 and about as
    much as the query at 1,000."""
    got = col.get(where=where, include=["embeddings"], limit=FEW_VECTORS + 1)
    ids = list(got["ids"])
    if len(ids) > FEW_VECTORS:
        return None
    keep = [n for n, cid in enumerate(ids) if cid not in hidden]
    if not keep:
        return []
    ids = [ids[n] for n in keep]
    vectors = np.asarray(got["embeddings"], dtype=np.float32)[keep]
    sims = vectors @ np.asarray(embedding, np.float32)
    best = np.argsort(-sims, kind="stable")[:k]
    return [(ids[i], float(sims[i])) for i in best]


def _where(scope: DocScope) -> dict[str, Any] | None:
    """Chroma's metadata filter for `scope` (None: the whole collection)."""
    if scope.included is not None:
        return {"doc_id": {"$in": sorted(scope.included)}}
    return {"doc_id": {"$nin": sorted(scope.exclude)}} if scope.exclude else None
