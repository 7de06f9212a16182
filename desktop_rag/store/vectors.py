"""The Chroma adapter (the only module that imports chromadb).

Chroma holds only chunk ids, embeddings and a doc_id metadata field; the catalog holds the text.
Embeddings are always passed explicitly (a text-only call would make chromadb fetch a model).

Each embedding space has its own collection (store/spaces.py); the catalog's active-space pointer
names the one search uses (store/switch_state.py). An index opened on the active collection
checks the pointer whenever it reopens after another process wrote: when an embedder switch has
moved the library to another collection it raises SpaceChangedError rather than answer from a
collection that is gone (empty) or query it with the other space's vectors (mixed).
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
from desktop_rag.domain.errors import StoreError
from desktop_rag.store.stamp import STAMP_NAME, WriteStamp
from desktop_rag.store.switch_state import active_collection

if TYPE_CHECKING:
    from desktop_rag.config import StoreSettings
    from desktop_rag.config.paths import AppPaths
    from desktop_rag.domain.protocols import Vector

log = logging.getLogger(__name__)

COLLECTION = "chunks"  # the legacy collection (store.spaces.LEGACY_COLLECTION)
_PAGE = 5000
_clients: dict[str, Any] = {}
FEW_VECTORS = 800  # a scope this small is scored here rather than by a filtered query
_clients_lock = threading.Lock()
_folder_locks: dict[str, threading.RLock] = {}


class SpaceChangedError(StoreError):
    """The library's vectors moved to another embedding space since this index was opened."""

    def __init__(self, was: str, now: str) -> None:
        super().__init__(
            f"The library was switched to another embedder (collection {now}, was {was})",
            "close and reopen desktop-rag so that it loads the new embedder",
        )


def _folder_lock(key: str) -> threading.RLock:
    """One lock per folder for every index of this process: a reopen (which closes the shared
    client) never happens under another index's operation, such as a switch's writes."""
    with _clients_lock:
        return _folder_locks.setdefault(key, threading.RLock())


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


def _close_client(key: str) -> None:
    """Closes this process's client of the folder `key`, if it has one: embedded Chroma frees
    the vector index it loaded (about 2 GB at a million vectors, 200 MB at 100,000)."""
    with _clients_lock:
        client = _clients.pop(key, None)
    if client is not None:
        client.close()


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


def open_vector_index(
    paths: AppPaths, store: StoreSettings, collection: str | None = None, follow: bool = True
) -> ChromaVectorIndex:
    """The index on `collection` (None: the active one). `follow`: an index search uses, which
    marks and watches the write stamp and refuses to go on once the active space has moved;
    else an embedder switch's target, written by this process alone until it becomes active."""
    active = active_collection(paths.catalog_db)
    name = collection or active
    if follow and name != active:  # the space moved before it opened: never an empty copy
        raise SpaceChangedError(name, active)
    if store.mode != "embedded":
        client = _opened(store, lambda: _http_client(store))
        return ChromaVectorIndex(_collection(store, client, name), client.get_max_batch_size(),
                                 name=name)  # fmt: skip
    key = str(paths.chroma_dir.resolve())
    stamp = WriteStamp(paths.chroma_dir / STAMP_NAME) if follow else None  # read before opening

    def client_of(fresh: bool) -> Any:
        return _opened(store, lambda: _persistent_client(key, fresh))

    def collection_of(client: Any) -> Any:
        now = active_collection(paths.catalog_db)
        if follow and now != name:
            raise SpaceChangedError(name, now)
        return _collection(store, client, name)

    with _folder_lock(key):
        first = client_of(False)
        return ChromaVectorIndex(
            _collection(store, first, name), first.get_max_batch_size(), stamp=stamp,
            client_of=client_of, collection_of=collection_of, name=name, lock=_folder_lock(key),
            release=lambda: _close_client(key),
        )


def drop_collection(paths: AppPaths, store: StoreSettings, name: str) -> bool:
    """Deletes a collection (an old space, or a switch given up); False when there was none.
    Other processes see the write stamp change, reopen, and find their space gone."""
    from chromadb.errors import NotFoundError

    def drop(client: Any) -> bool:
        try:
            client.delete_collection(name)
        except (NotFoundError, ValueError):  # ValueError: older chromadb releases
            return False
        return True

    if store.mode != "embedded":
        return drop(_opened(store, lambda: _http_client(store)))
    key = str(paths.chroma_dir.resolve())
    with _folder_lock(key), _store_errors("delete an old collection"):
        dropped = drop(_opened(store, lambda: _persistent_client(key)))
    WriteStamp(paths.chroma_dir / STAMP_NAME).mark()
    return dropped


def collection_names(paths: AppPaths, store: StoreSettings) -> list[str]:
    """The names of every collection in the library's vector store."""
    if store.mode != "embedded":
        client = _opened(store, lambda: _http_client(store))
    else:
        key = str(paths.chroma_dir.resolve())
        client = _opened(store, lambda: _persistent_client(key))
    return sorted(str(getattr(c, "name", c)) for c in client.list_collections())


def _opened(store: StoreSettings, connect: Callable[[], Any]) -> Any:
    try:
        return connect()
    except Exception as exc:  # chromadb raises many unrelated types
        raise StoreError(f"Cannot open the vector store: {exc}", _open_hint(store)) from exc


def _collection(store: StoreSettings, client: Any, name: str) -> Any:
    return _opened(store, lambda: client.get_or_create_collection(
        name, metadata={"hnsw:space": "cosine"}, embedding_function=None
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
        collection_of: Callable[[Any], Any] | None = None, name: str = COLLECTION,
        lock: threading.RLock | None = None, release: Callable[[], None] | None = None,
    ) -> None:
        self._col = collection
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

    def export_vectors(self) -> Iterator[tuple[list[str], Vector, list[str]]]:
        """Every (ids, embeddings, doc_ids) page of the collection: what the persisted copy
        (store/vector_snapshot.py) is written from."""
        done = 0
        while True:
            with self._current() as col:
                got = col.get(include=["embeddings", "metadatas"], limit=_PAGE, offset=done)
            ids = list(got["ids"])
            if ids:
                docs = [str((meta or {}).get("doc_id", "")) for meta in got["metadatas"]]
                yield ids, np.asarray(got["embeddings"], dtype=np.float32), docs
            done += len(ids)
            if len(ids) < _PAGE:
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
