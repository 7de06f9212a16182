"""A VectorIndex that opens the real one on first use, so work that never touches vectors
(re-ingesting an unchanged folder, listing) does not pay for starting Chroma."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from desktop_rag.domain import EVERYWHERE, DocScope
from desktop_rag.domain.protocols import Vector, VectorIndex


class LazyVectorIndex:
    def __init__(self, factory: Callable[[], VectorIndex]) -> None:
        self._factory = factory
        self._index: VectorIndex | None = None
        self._lock = threading.Lock()

    @property
    def index(self) -> VectorIndex:
        with self._lock:
            if self._index is None:
                self._index = self._factory()
            return self._index

    @property
    def opened(self) -> bool:
        return self._index is not None

    def upsert(self, ids: Sequence[str], embeddings: Vector, doc_ids: Sequence[str]) -> None:
        if ids:
            self.index.upsert(ids, embeddings, doc_ids)

    def delete(self, ids: Sequence[str]) -> None:
        if ids:
            self.index.delete(ids)

    def query(
        self, embedding: Vector, k: int, scope: DocScope = EVERYWHERE
    ) -> list[tuple[str, float]]:
        return self.index.query(embedding, k, scope)

    def get_embeddings(self, ids: Sequence[str]) -> dict[str, Vector]:
        return self.index.get_embeddings(ids) if ids else {}

    def all_ids(self) -> set[str]:
        return self.index.all_ids()

    def count(self) -> int:
        return self.index.count()
