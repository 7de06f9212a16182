"""The seams between services, and the capabilities they look for in a part, as Protocols."""

from __future__ import annotations

from typing import Protocol, TypedDict, runtime_checkable

from desktop_rag.domain import EVERYWHERE, DocScope, Passage, SearchResult


class SearchPort(Protocol):
    """What answering needs of search: the best chunks, and them packed into passages."""

    def search(
        self,
        query: str,
        k: int | None = None,
        mode: str = "hybrid",
        rerank: str | None = None,
        scope: DocScope = EVERYWHERE,
    ) -> SearchResult: ...

    def pack_context(
        self, result: SearchResult, budget_tokens: int, first_n: int = 1
    ) -> list[Passage]: ...


class EngineInfo(TypedDict):
    model: str
    gpu_offload: bool
    backend: str
    context_size: int


@runtime_checkable
class Refreshable(Protocol):
    """A sparse index with a snapshot that can catch up with the catalog in the background."""

    def refresh(self) -> None: ...


@runtime_checkable
class Warmable(Protocol):
    """A sparse index that can load its snapshot ahead of the first search."""

    def warm(self) -> None: ...
