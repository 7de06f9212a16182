"""The Chroma adapter (the only module that imports chromadb): clients, collections, and the
index over one (store/chroma_index.py).

Each embedding space has its own collection (store/spaces.py); the catalog's active-space pointer
names the one search uses (store/switch_state.py). An index opened on the active collection
checks the pointer whenever it reopens after another process wrote: when an embedder switch has
moved the library to another collection it raises SpaceChangedError rather than answer from a
collection that is gone (empty) or query it with the other space's vectors (mixed).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_rag.domain.errors import StoreError
from desktop_rag.store.chroma_index import COLLECTION, ChromaVectorIndex, store_errors
from desktop_rag.store.pending_deletes import PendingDeletes, pending_file
from desktop_rag.store.stamp import STAMP_NAME, WriteStamp
from desktop_rag.store.switch_state import active_collection

if TYPE_CHECKING:
    from desktop_rag.config import StoreSettings
    from desktop_rag.config.paths import AppPaths

RECENT_PREFIX = "recent-"  # the recent collections, not spaces (store/chroma_index.py)
__all__ = ["COLLECTION", "ChromaVectorIndex", "SpaceChangedError", "collection_names",
           "drop_collection", "open_vector_index"]  # fmt: skip

log = logging.getLogger(__name__)

_clients: dict[str, Any] = {}
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
        col, batch = _collection(store, client, name), client.get_max_batch_size()
        _apply_waiting(col, batch, PendingDeletes(pending_file(paths.chroma_dir, name)),
                       _Recent(store, lambda: client, name))  # fmt: skip
        return ChromaVectorIndex(col, batch, name=name)
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
            pending=PendingDeletes(pending_file(paths.chroma_dir, name)),
            slot=_Recent(store, lambda: client_of(False), name),
        )


def recent_name(collection: str) -> str:
    """The recent collection of `collection` (store/chroma_index.py): hashed, so that it stays
    within older releases' 63 characters."""
    return f"{RECENT_PREFIX}{hashlib.sha256(collection.encode('utf-8')).hexdigest()[:16]}"


class _Recent:
    """The recent collection of one library collection, through whichever client is current."""

    def __init__(self, store: StoreSettings, client: Callable[[], Any], of: str) -> None:
        self._store, self._client, self.name = store, client, recent_name(of)

    def make(self) -> Any:
        return _collection(self._store, self._client(), self.name)

    def find(self) -> Any | None:
        from chromadb.errors import NotFoundError

        try:
            return self._client().get_collection(self.name, embedding_function=None)
        except (NotFoundError, ValueError):  # ValueError: older chromadb releases
            return None


def _apply_waiting(col: Any, batch: int, pending: PendingDeletes, recent: _Recent) -> None:
    """What the library left waiting while it was embedded (deletes, store/pending_deletes.py;
    writes in its recent collection), applied through the server before it serves the library:
    the server knows nothing of the file."""
    found = recent.find()
    if pending.ids() or (found is not None and found.count()):
        ChromaVectorIndex(col, batch, pending=pending, slot=recent).apply_pending()


def drop_collection(paths: AppPaths, store: StoreSettings, name: str) -> bool:
    """Deletes a collection (an old space, or a switch given up); False when there was none.
    Other processes see the write stamp change, reopen, and find their space gone."""
    from chromadb.errors import NotFoundError

    def drop(client: Any) -> bool:
        with contextlib.suppress(NotFoundError, ValueError):
            client.delete_collection(recent_name(name))
        try:
            client.delete_collection(name)
        except (NotFoundError, ValueError):  # ValueError: older chromadb releases
            return False
        return True

    if store.mode != "embedded":
        return drop(_opened(store, lambda: _http_client(store)))
    key = str(paths.chroma_dir.resolve())
    with _folder_lock(key), store_errors("delete an old collection"):
        dropped = drop(_opened(store, lambda: _persistent_client(key)))
        pending_file(paths.chroma_dir, name).unlink(missing_ok=True)
    WriteStamp(paths.chroma_dir / STAMP_NAME).mark()
    return dropped


def collection_names(paths: AppPaths, store: StoreSettings) -> list[str]:
    """The names of every collection in the library's vector store."""
    if store.mode != "embedded":
        client = _opened(store, lambda: _http_client(store))
    else:
        key = str(paths.chroma_dir.resolve())
        client = _opened(store, lambda: _persistent_client(key))
    names = (str(getattr(c, "name", c)) for c in client.list_collections())
    return sorted(n for n in names if not n.startswith(RECENT_PREFIX))


def _opened(store: StoreSettings, connect: Callable[[], Any]) -> Any:
    try:
        return connect()
    except Exception as exc:  # chromadb raises many unrelated types
        raise StoreError(f"Cannot open the vector store: {exc}", _open_hint(store)) from exc


def _collection(store: StoreSettings, client: Any, name: str) -> Any:
    return _opened(store, lambda: client.get_or_create_collection(
        name, metadata={"hnsw:space": "cosine"}, embedding_function=None
    ))
