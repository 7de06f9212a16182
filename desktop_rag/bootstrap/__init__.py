"""The composition root: the one place that builds the heavy objects from settings.

Everything heavy is built lazily on first use, so `desktop-rag --help` or `list` never loads a
model. Tests pass ready-made parts (fakes or real ones) through `overrides` (typed: `Parts`).
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any, Literal, TypedDict, Unpack, cast

from desktop_rag.bootstrap.lazy import Lazy
from desktop_rag.config import Settings, load_settings
from desktop_rag.config.paths import AppPaths, resolve_paths
from desktop_rag.store.lock import WriterLock

if TYPE_CHECKING:
    from desktop_rag.domain.protocols import (
        ChatEngine,
        Embedder,
        Reranker,
        SparseIndex,
        TokenCounter,
        VectorIndex,
    )
    from desktop_rag.llm.compute_thread import ComputeThread
    from desktop_rag.llm.llama_loading import ModelLoad
    from desktop_rag.models import ModelRegistry
    from desktop_rag.store.chats import ChatStore
    from desktop_rag.store.documents import Catalog

log = logging.getLogger(__name__)


PartName = Literal[
    "registry", "token_counter", "compute", "embedder", "catalog", "sparse", "vectors", "engine",
    "chats",
]
CLOSE_ORDER: tuple[PartName, ...] = ("engine", "vectors", "catalog", "chats", "compute")


class Parts(TypedDict, total=False):
    """Ready-made parts handed to a context (test fakes, or parts another context shares)."""

    registry: ModelRegistry
    token_counter: TokenCounter
    compute: ComputeThread
    embedder: Embedder
    catalog: Catalog
    sparse: SparseIndex
    vectors: VectorIndex
    engine: ChatEngine
    chats: ChatStore


def _close(name: str, resource: object) -> None:
    closer = getattr(resource, "close", None)
    if callable(closer):
        try:
            closer()
        except Exception:  # closing must not mask the real error
            log.exception("closing %s failed", name)


class AppContext:
    """Owns the heavy resources of one process (not shared across processes): each is a typed,
    lazily built part; the re-ranker cache and the writer lock are plain members."""

    def __init__(self, paths: AppPaths, settings: Settings, parts: Parts | None = None) -> None:
        self.paths = paths.ensure()
        self._settings = settings
        self.writer_lock = WriterLock(self.paths.lock_file)  # built now: threads share one
        self.rerankers: dict[str, Reranker | None] = {}  # by name; None: unavailable
        self.embedder_collection: str | None = None  # the space the loaded embedder is for
        self._parts: dict[PartName, Lazy[Any]] = {
            "registry": Lazy(self._build_registry),
            "token_counter": Lazy(lambda: self.registry.token_counter()),
            "compute": Lazy(self._build_compute),
            "embedder": Lazy(self._build_embedder),
            "catalog": Lazy(self._build_catalog),
            "sparse": Lazy(self._build_sparse),
            "vectors": Lazy(self._build_vectors),
            "engine": Lazy(self._build_engine),
            "chats": Lazy(self._build_chats),
        }
        self.provide(**(parts or {}))

    # ---- settings: replaced whole, never edited in place -----------------------------------
    @property
    def settings(self) -> Settings:
        return self._settings

    def replace_settings(self, new: Settings) -> None:
        """Swaps in new settings; a worker thread reading the old object keeps a whole one. The
        registry (which reads them) is rebuilt on next use; the caller resets what loaded a model
        the change replaces (`engine_changed`)."""
        self._settings = new.validate()
        self._parts["registry"].take()

    def update_settings(self, changes: dict[str, Any]) -> Settings:
        """Replaces the settings with a copy that has `changes` ({"llm.max_tokens": 48})."""
        self.replace_settings(self.settings.updated(changes))
        return self.settings

    # ---- the parts -------------------------------------------------------------------------
    @property
    def registry(self) -> ModelRegistry:
        return cast("ModelRegistry", self._parts["registry"].get())

    @property
    def token_counter(self) -> TokenCounter:
        return cast("TokenCounter", self._parts["token_counter"].get())

    @property
    def compute(self) -> ComputeThread:
        """The thread of all OpenMP work: the embedder, the cross-encoder and llama.cpp."""
        return cast("ComputeThread", self._parts["compute"].get())

    @property
    def embedder(self) -> Embedder:
        return cast("Embedder", self._parts["embedder"].get())

    @property
    def catalog(self) -> Catalog:
        return cast("Catalog", self._parts["catalog"].get())

    @property
    def sparse(self) -> SparseIndex:
        return cast("SparseIndex", self._parts["sparse"].get())

    @property
    def vectors(self) -> VectorIndex:
        return cast("VectorIndex", self._parts["vectors"].get())

    @property
    def engine(self) -> ChatEngine:
        return cast("ChatEngine", self._parts["engine"].get())

    @property
    def chats(self) -> ChatStore:
        return cast("ChatStore", self._parts["chats"].get())

    def loaded(self, name: PartName) -> bool:
        """Whether the part `name` has been built (without building it)."""
        return self._parts[name].loaded

    def preload(self, name: PartName) -> threading.Thread | None:
        """Starts building the part `name` on a thread of its own (None: built already). A
        failure is only logged here: the part's first real use raises it, with its hint."""
        if self.loaded(name):
            return None

        def build() -> None:
            try:
                self._parts[name].get()
            except Exception:
                log.debug("preloading %s failed", name, exc_info=True)

        thread = threading.Thread(target=build, name=f"{name}-preload", daemon=True)
        thread.start()
        return thread

    def provide(self, **parts: Unpack[Parts]) -> None:
        """Puts ready-made parts in, in place of building them."""
        for name, value in parts.items():
            self._parts[cast(PartName, name)].set(value)

    def release(self, name: PartName) -> object | None:
        """Forgets the part `name` without closing it: its owner (another context) closes it."""
        self._drop_dependents(name)
        return self._parts[name].take()

    def reset(self, name: PartName) -> None:
        """Forgets the part `name` (closing it) and what was built on it, so that the next use
        builds both anew: the re-rankers hold the engine (an LLM re-ranker scores with it)."""
        _close(name, self.release(name))

    def close(self) -> None:
        for name in CLOSE_ORDER:
            _close(name, self.release(name))

    def _drop_dependents(self, name: PartName) -> None:
        if name in ("engine", "embedder"):
            self.rerankers.clear()

    # ---- how each part is built ------------------------------------------------------------
    def _build_registry(self) -> ModelRegistry:
        from desktop_rag.models import ModelRegistry

        return ModelRegistry(self.paths, self.settings)

    def _build_compute(self) -> ComputeThread:
        from desktop_rag.llm.compute_thread import ComputeThread

        return ComputeThread()

    def _build_embedder(self) -> Embedder:
        from desktop_rag.llm.compute_thread import ComputeEmbedder
        from desktop_rag.retrieval.embedder import load_embedder
        from desktop_rag.store.switch_state import loaded_embedder

        def load() -> Embedder:  # the active space's model: queries match the stored vectors
            settings, self.embedder_collection = loaded_embedder(self.catalog.spaces(),
                                                                 self.settings)  # fmt: skip
            same = settings is self.settings
            return load_embedder(self.registry if same else self._registry_for(settings), settings)

        return ComputeEmbedder(load, self.compute)

    def _registry_for(self, settings: Settings) -> ModelRegistry:
        from desktop_rag.models import ModelRegistry

        return ModelRegistry(self.paths, settings)

    def _build_catalog(self) -> Catalog:
        from desktop_rag.store.documents import Catalog

        return Catalog(self.paths.catalog_db)

    def _build_sparse(self) -> SparseIndex:
        if not self.settings.retrieval.bm25_in_memory:
            return self.catalog.sparse_index()
        from desktop_rag.store.keyword_index import DiskBm25Index

        return DiskBm25Index(self.catalog, self.paths.data_dir / "keyword-index")

    def _build_vectors(self) -> VectorIndex:
        """Embedded: the persisted copy in front of Chroma, which opens only when needed."""
        from desktop_rag.store.stamp import STAMP_NAME
        from desktop_rag.store.switch_state import active_collection
        from desktop_rag.store.vector_snapshot import SnapshotVectorIndex
        from desktop_rag.store.vectors import open_vector_index

        paths, store = self.paths, self.settings.store
        self._check_space(active_collection(paths.catalog_db))
        if store.mode != "embedded" or not store.vector_snapshot:
            return open_vector_index(paths, store)
        name = active_collection(paths.catalog_db)
        return SnapshotVectorIndex(
            paths.data_dir / "vector-snapshot" / name, paths.chroma_dir / STAMP_NAME, name,
            lambda: open_vector_index(paths, store, name),
            lambda: active_collection(paths.catalog_db),
        )

    def _check_space(self, collection: str) -> None:
        """Vectors opened after the embedder must be in its space (another process may have
        switched the embedder in between): else the caller follows the switch first."""
        loaded_for = self.embedder_collection
        if self.loaded("embedder") and loaded_for is not None and loaded_for != collection:
            from desktop_rag.store.vectors import SpaceChangedError

            raise SpaceChangedError(loaded_for, collection)

    def _build_engine(self) -> ChatEngine:
        """The model file starts loading before the engine's own modules import (they take
        0.3 s alone, more while a cold command imports the rest on its main thread)."""
        loading = self._begin_model_load()
        try:
            from desktop_rag.llm.factory import load_engine

            return load_engine(self.registry, self.settings, self.compute, loading)
        except BaseException:
            if loading is not None:
                loading.discard()  # whatever failed, the model loading meanwhile is not kept
            raise

    def _begin_model_load(self) -> ModelLoad | None:
        from desktop_rag.llm.llama_loading import begin_load, engine_options

        if self.settings.llm.backend == "server":
            return None
        model = self.registry.chat_model_path()  # a missing model raises its hint here
        return begin_load(engine_options(model, self.settings.llm)) if model.is_file() else None

    def _build_chats(self) -> ChatStore:
        from desktop_rag.store.chats import ChatStore

        return ChatStore(self.paths.chats_db)


def build_context(
    data_dir: str | None = None,
    profile: str | None = None,
    overrides: Parts | None = None,
    settings: Settings | None = None,
) -> AppContext:
    paths = resolve_paths(data_dir)
    settings = settings or load_settings(paths.settings_file)
    if profile is not None:
        settings = settings.updated({"profile": profile})
    return AppContext(paths, settings.validate(), overrides)
