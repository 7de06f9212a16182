"""The composition root: the one place that builds the heavy objects from settings.

Everything heavy is built lazily on first use, so `desktop-rag --help` or `list` never loads a
model. Tests pass ready-made components (fakes or real ones) through `overrides`.
"""

from __future__ import annotations

import logging
from functools import cached_property
from typing import TYPE_CHECKING, Any

from desktop_rag.config import Settings, load_settings
from desktop_rag.paths import AppPaths, resolve_paths
from desktop_rag.store.lock import WriterLock

if TYPE_CHECKING:
    from desktop_rag.compute import ComputeThread
    from desktop_rag.llm.chat_store import ChatStore
    from desktop_rag.models import ModelRegistry
    from desktop_rag.protocols import ChatEngine, Embedder, SparseIndex, TokenCounter, VectorIndex
    from desktop_rag.store.catalog import Catalog

log = logging.getLogger(__name__)


_DEPENDENTS = {"engine": ("rerankers",), "embedder": ("rerankers",)}


def _close(name: str, resource: object) -> None:
    closer = getattr(resource, "close", None)
    if callable(closer):
        try:
            closer()
        except Exception:  # closing must not mask the real error
            log.exception("closing %s failed", name)


class AppContext:
    """Owns the heavy resources of one process. Not shared across processes."""

    def __init__(
        self, paths: AppPaths, settings: Settings, overrides: dict[str, Any] | None = None
    ) -> None:
        self.paths = paths.ensure()
        self.settings = settings
        self.writer_lock = WriterLock(self.paths.lock_file)  # built now: threads share one
        for name, value in (overrides or {}).items():
            self.__dict__[name] = value  # pre-fills the cached_property of that name

    @cached_property
    def registry(self) -> ModelRegistry:
        from desktop_rag.models import ModelRegistry

        return ModelRegistry(self.paths, self.settings)

    @cached_property
    def token_counter(self) -> TokenCounter:
        return self.registry.token_counter()

    @cached_property
    def compute(self) -> ComputeThread:
        """The thread of all OpenMP work: the embedder, the cross-encoder and llama.cpp."""
        from desktop_rag.compute import ComputeThread

        return ComputeThread()

    @cached_property
    def embedder(self) -> Embedder:
        from desktop_rag.compute import ComputeEmbedder
        from desktop_rag.retrieval.embedder import load_embedder

        return ComputeEmbedder(lambda: load_embedder(self.registry, self.settings), self.compute)

    @cached_property
    def catalog(self) -> Catalog:
        from desktop_rag.store.catalog import Catalog

        return Catalog(self.paths.catalog_db)

    @cached_property
    def sparse(self) -> SparseIndex:
        if not self.settings.retrieval.bm25_in_memory:
            return self.catalog.sparse_index()
        from desktop_rag.store.sparse_memory import MemoryBm25Index

        return MemoryBm25Index(self.catalog)

    @cached_property
    def vectors(self) -> VectorIndex:
        from desktop_rag.store.vectors import open_vector_index

        return open_vector_index(self.paths, self.settings.store)

    @cached_property
    def engine(self) -> ChatEngine:
        from desktop_rag.llm.factory import load_engine

        return load_engine(self.registry, self.settings, self.compute)

    @cached_property
    def chats(self) -> ChatStore:
        from desktop_rag.llm.chat_store import ChatStore

        return ChatStore(self.paths.chats_db)

    def loaded(self, name: str) -> bool:
        """Whether the resource `name` has been built (without building it)."""
        return name in self.__dict__

    def reset(self, name: str) -> None:
        """Forgets the resource `name` (closing it) and what was built on it, so that the next
        use builds both anew: the re-rankers hold the engine (an LLM re-ranker scores with it)."""
        for dependent in _DEPENDENTS.get(name, ()):
            self.__dict__.pop(dependent, None)
        _close(name, self.__dict__.pop(name, None))

    def close(self) -> None:
        for name in ("engine", "vectors", "catalog", "chats", "compute"):
            _close(name, self.__dict__.pop(name, None))


def build_context(
    data_dir: str | None = None,
    profile: str | None = None,
    overrides: dict[str, Any] | None = None,
    settings: Settings | None = None,
) -> AppContext:
    paths = resolve_paths(data_dir)
    settings = settings or load_settings(paths.settings_file)
    if profile is not None:
        settings.profile = profile
    return AppContext(paths, settings.validate(), overrides)
