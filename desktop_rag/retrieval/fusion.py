"""Reciprocal Rank Fusion (Cormack et al. 2009): score(d) = sum_r w_r / (k + rank_r(d))."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

DEFAULT_RRF_K = 60


@dataclass(slots=True)
class Fused:
    """One fused candidate: its RRF score and its 1-based rank in each retriever that found it."""

    chunk_id: str
    score: float = 0.0
    ranks: dict[str, int] = field(default_factory=dict)


def dedupe(ids: Sequence[str]) -> list[str]:
    """Keeps the first (best) occurrence of each id."""
    return list(dict.fromkeys(ids))


def rrf_fuse(
    rankings: Mapping[str, Sequence[str]],
    weights: Mapping[str, float] | None = None,
    k: int = DEFAULT_RRF_K,
) -> list[Fused]:
    """Fuses best-first id lists; ties break by best single rank, then by id for stability."""
    if k < 1:
        raise ValueError("rrf k must be at least 1")
    fused: dict[str, Fused] = {}
    for name, ids in rankings.items():
        weight = 1.0 if weights is None else weights.get(name, 1.0)
        for rank, chunk_id in enumerate(dedupe(ids), start=1):
            item = fused.setdefault(chunk_id, Fused(chunk_id))
            item.score += weight / (k + rank)
            item.ranks[name] = rank
    return sorted(fused.values(), key=lambda f: (-f.score, min(f.ranks.values()), f.chunk_id))
