"""The Chroma adapter (the only module that imports chromadb).

Chroma holds only chunk ids, embeddings and a doc_id metadata field; the catalog holds the text.
Embeddings are always passed explicitly (a text-only call would make chromadb fetch a model).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from desktop_rag.domain import EVERYWHERE, DocScope
from desktop_rag.errors import StoreError
from desktop_rag.store.stamp import STAMP_NAME, WriteStamp

if TYPE_CHECKING:
    from desktop_rag.config import StoreSettings
    from desktop_rag.paths import AppPaths
    from desktop_rag.protocols import Vector

log = logging.getLogger(__name__)

COLLECTION = "chunks"
_PAGE = 5000
_clients: dict[str, Any] = {}
FEW_VECTORS = 800  # a scope this small is scored here rather than by a filtered query
_clients_lock = threading.Lock()


def _chroma_settings() -> Any:
    from chromadb.config import Settings

    return Settings(anonymized_telemetry=False, allow_reset=False)


def _persistent_client(key: str, fresh: bool = False) -> Any:
    """One PersistentClient per folder (`key`, resolved) per process: Chroma dislikes several.
    `fresh` closes the cached one first, so that what other processes wrote becomes visible."""
    with _clients_lock:
        if fresh and key in _clients:
            _clients.pop(key).close()
        if key not in _clients:
            import chromadb

            Path(key).mkdir(parents=True, exist_ok=True)
            _clients[key] = chromadb.PersistentClient(path=key, settings=_chroma_settings())
        return _clients[key]


def _http_client(store: StoreSettings) -> Any:
    import chromadb

    headers = {"Authorization": f"Bearer {store.auth_token}"} if store.auth_token else None
    _ensure_database(store, headers)
    return chromadb.HttpClient(
        host=store.host, port=store.port, headers=headers, settings=_chroma_settings(),
        tenant=store.tenant, database=store.database,
    )


def _ensure_database(store: StoreSettings, headers: dict[str, str] | None) -> None:
    """Creates the library's own database on a shared server on first use."""
    import chromadb
    from chromadb.config import Settings
    from chromadb.errors import NotFoundError

    admin = chromadb.AdminClient(Settings(
        anonymized_telemetry=False, chroma_api_impl="chromadb.api.fastapi.FastAPI",
        chroma_server_host=store.host, chroma_server_http_port=store.port,
        chroma_server_headers=headers,
    ))
    try:
        admin.get_database(store.database, store.tenant)
    except NotFoundError:
        log.info("creating database %s on the Chroma server", store.database)
        admin.create_database(store.database, store.tenant)


def _open_hint(store: StoreSettings) -> str:
    if store.mode == "embedded":
        return "run `desktop-rag doctor`"
    return (
        f"check that the Chroma server at http://{store.host}:{store.port} is running (`chroma "
        f"run --path <folder> --host {store.host} --port {store.port}`) and the store.* settings"
    )


def open_vector_index(paths: AppPaths, store: StoreSettings) -> ChromaVectorIndex:
    if store.mode != "embedded":
        client = _opened(store, lambda: _http_client(store))
        return ChromaVectorIndex(_collection(store, client), client.get_max_batch_size())
    key = str(paths.chroma_dir.resolve())
    stamp = WriteStamp(paths.chroma_dir / STAMP_NAME)  # read before opening: no write is missed

    def client_of(fresh: bool) -> Any:
        return _opened(store, lambda: _persistent_client(key, fresh))

    first = client_of(False)
    return ChromaVectorIndex(
        _collection(store, first), first.get_max_batch_size(),
        stamp=stamp, client_of=client_of, collection_of=lambda c: _collection(store, c),
    )


def _opened(store: StoreSettings, connect: Callable[[], Any]) -> Any:
    try:
        return connect()
    except Exception as exc:  # chromadb raises many unrelated types
        raise StoreError(f"Cannot open the vector store: {exc}", _open_hint(store)) from exc


def _collection(store: StoreSettings, client: Any) -> Any:
    return _opened(store, lambda: client.get_or_create_collection(
        COLLECTION, metadata={"hnsw:space": "cosine"}, embedding_function=None
    ))


@contextmanager
def _store_errors(action: str) -> Iterator[None]:
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
    """

    def __init__(
        self, collection: Any, max_batch: int = 5000, stamp: WriteStamp | None = None,
        client_of: Callable[[bool], Any] | None = None,
        collection_of: Callable[[Any], Any] | None = None,
    ) -> None:
        self._col = collection
        self._batch = max(1, min(max_batch, 5000))
        self._stamp, self._client_of, self._collection_of = stamp, client_of, collection_of
        self._client = client_of(False) if client_of is not None else None
        self._lock = threading.RLock()

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
                    self._client, self._col = client, self._collection_of(client)
            yield self._col

    def _written(self) -> None:
        if self._stamp is not None:
            self._stamp.mark()

    def upsert(self, ids: Sequence[str], embeddings: Vector, doc_ids: Sequence[str]) -> None:
        if len(ids) != len(embeddings) or len(ids) != len(doc_ids):
            raise ValueError("ids, embeddings and doc_ids differ in length")
        with self._current() as col:
            for part in _batches(len(ids), self._batch):
                with _store_errors("save vectors"):
                    col.upsert(
                        ids=list(ids[part]),
                        embeddings=np.asarray(embeddings[part], dtype=np.float32),
                        metadatas=[{"doc_id": d} for d in doc_ids[part]],
                    )
            self._written()

    def delete(self, ids: Sequence[str]) -> None:
        with self._current() as col:
            for part in _batches(len(ids), self._batch):
                with _store_errors("delete vectors"):
                    col.delete(ids=list(ids[part]))
            self._written()

    def query(
        self, embedding: Vector, k: int, scope: DocScope = EVERYWHERE
    ) -> list[tuple[str, float]]:
        if scope.empty:
            return []
        where = _where(scope)
        with self._current() as col:
            total = int(col.count())
            if total == 0 or k <= 0:
                return []
            if scope.included is not None:
                few = _few_scored(col, where, embedding, k)
                if few is not None:
                    return few
            found = col.query(
                query_embeddings=[np.asarray(embedding, dtype=np.float32)],
                n_results=min(k, total), where=where, include=["distances"],
            )
        ids, dists = found["ids"][0], found["distances"][0]
        return [(cid, 1.0 - float(d)) for cid, d in zip(ids, dists, strict=True)]

    def get_embeddings(self, ids: Sequence[str]) -> dict[str, Vector]:
        out: dict[str, Vector] = {}
        with self._current() as col:
            for part in _batches(len(ids), self._batch):
                got = col.get(ids=list(ids[part]), include=["embeddings"])
                for cid, vec in zip(got["ids"], got["embeddings"], strict=True):
                    out[cid] = np.asarray(vec, dtype=np.float32)
        return out

    def all_ids(self) -> set[str]:
        ids: set[str] = set()
        with self._current() as col:
            while True:
                got = col.get(include=[], limit=_PAGE, offset=len(ids))
                ids.update(got["ids"])
                if len(got["ids"]) < _PAGE:
                    return ids

    def count(self) -> int:
        with self._current() as col:
            return int(col.count())

    def close(self) -> None:
        """Nothing to do: the process-wide client is shared and closed at exit."""


def _few_scored(
    col: Any, where: dict[str, Any] | None, embedding: Vector, k: int
) -> list[tuple[str, float]] | None:
    """The best `k` of a scope of at most FEW_VECTORS vectors, scored here (None: more).

    At 50,000 vectors Chroma's filtered query costs 23-38 ms whatever the filter keeps, while
    reading the vectors (L2-normalised) and taking dot products costs 5 ms for 50 and about as
    much as the query at 1,000."""
    got = col.get(where=where, include=["embeddings"], limit=FEW_VECTORS + 1)
    ids = list(got["ids"])
    if len(ids) > FEW_VECTORS:
        return None
    if not ids:
        return []
    sims = np.asarray(got["embeddings"], dtype=np.float32) @ np.asarray(embedding, np.float32)
    best = np.argsort(-sims, kind="stable")[:k]
    return [(ids[i], float(sims[i])) for i in best]


def _where(scope: DocScope) -> dict[str, Any] | None:
    """Chroma's metadata filter for `scope` (None: the whole collection)."""
    if scope.included is not None:
        return {"doc_id": {"$in": sorted(scope.included)}}
    return {"doc_id": {"$nin": sorted(scope.exclude)}} if scope.exclude else None
