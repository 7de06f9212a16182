"""The seams between services, and the capabilities they look for in a part, as Protocols."""

from __future__ import annotations

from typing import Protocol, TypedDict, runtime_checkable


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
class VectorCopy(Protocol):
    """A vector store whose copy on disk serves reads (store/vector_snapshot.py): brought up to
    date after a write, it lets the store's memory go."""

    @property
    def source_opened(self) -> bool: ...

    def refresh(self) -> int | None: ...


@runtime_checkable
class Warmable(Protocol):
    """A sparse index that can load its snapshot ahead of the first search."""

    def warm(self) -> None: ...
