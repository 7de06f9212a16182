"""Items that say the thing in other words ("the network went down" for "network outages"):
found by embedding similarity, and left to the judge, since similar is not the same.

The chunks' stored vectors rank every chunk in scope against the thing asked for at no cost;
the items of the chunks above a floor (those matching did not take) are embedded, most similar
chunks first, up to a budget, and those close enough become candidates. The thresholds are the
packaged MiniLM embedder's: its lexical matches of a short noun phrase score 0.41-0.58, lines of
other kinds in the same log at most 0.37 (bench/count_docs.py's incident logs).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from desktop_rag.domain import Chunk
from desktop_rag.domain.progress import CancelToken
from desktop_rag.domain.protocols import Embedder, Vector, VectorIndex
from desktop_rag.routes.units import ItemUnit

_GET_BATCH = 1000
_EMBED_BATCH = 64


@dataclass(frozen=True, slots=True)
class DenseSettings:
    chunk_min: float = 0.30  # a chunk's similarity for its items to be looked at
    unit_min: float = 0.45  # an item's similarity to become a candidate
    max_units: int = 128  # items embedded per question at most (the cost's bound)


@dataclass(frozen=True, slots=True)
class DenseResult:
    candidates: list[ItemUnit]
    embedded: int  # items whose similarity was computed
    left: int  # items of similar chunks beyond the budget, not looked at


class Paraphrases:
    """Candidates by similarity, over the stored chunk vectors and freshly embedded items."""

    def __init__(
        self, embedder: Embedder, vectors: VectorIndex, settings: DenseSettings = DenseSettings()
    ) -> None:
        self.embedder = embedder
        self.vectors = vectors
        self.settings = settings

    def find(
        self,
        description: str,
        chunks: Sequence[Chunk],
        units: Callable[[Chunk], list[ItemUnit]],
        cancel: CancelToken | None = None,
    ) -> DenseResult:
        """`units(chunk)` gives the chunk's items that matching did not take."""
        query = self.embedder.embed_query(description)
        pool = [u for c in self._similar_chunks(query, chunks, cancel) for u in units(c)]
        looked = pool[: self.settings.max_units]
        sims = self._similarities(query, [u.text for u in looked], cancel)
        chosen = [u for u, s in zip(looked, sims, strict=True) if s >= self.settings.unit_min]
        chosen.sort(key=lambda u: (u.chunk.path, u.chunk.ordinal, u.start))
        return DenseResult(chosen, len(looked), len(pool) - len(looked))

    def _similar_chunks(
        self, query: Vector, chunks: Sequence[Chunk], cancel: CancelToken | None
    ) -> list[Chunk]:
        """The chunks at or above the floor, most similar first (reading order on a tie)."""
        scored: list[tuple[float, int, Chunk]] = []
        for start in range(0, len(chunks), _GET_BATCH):
            if cancel is not None:
                cancel.raise_if_cancelled()
            part = chunks[start : start + _GET_BATCH]
            found = self.vectors.get_embeddings([c.chunk_id for c in part])
            for i, chunk in enumerate(part, start=start):
                vec = found.get(chunk.chunk_id)
                sim = float(np.dot(vec, query)) if vec is not None else -1.0
                if sim >= self.settings.chunk_min:
                    scored.append((-sim, i, chunk))
        return [chunk for _, _, chunk in sorted(scored, key=lambda t: (t[0], t[1]))]

    def _similarities(
        self, query: Vector, texts: Sequence[str], cancel: CancelToken | None
    ) -> list[float]:
        out: list[float] = []
        for start in range(0, len(texts), _EMBED_BATCH):
            if cancel is not None:
                cancel.raise_if_cancelled()
            vectors = self.embedder.embed_documents(texts[start : start + _EMBED_BATCH])
            out += [float(v) for v in vectors @ query]
        return out
