"""Fusion of retriever outputs into one ranking.

- `zscore_fuse` (the default): a convex combination of each retriever's scores, each standardised
  over its own result list (z-scores), so cosine similarities and BM25 scores of any scale add up.
  Score fusion keeps how far apart candidates are, which rank fusion throws away; Bruch, Gai and
  Ingber ("An Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS 2023) find a convex
  combination of normalised scores ahead of RRF across BEIR. Equal weights, nothing tuned.
- `rrf_fuse`: Reciprocal Rank Fusion (Cormack et al. 2009): score(d) = sum_r w_r / (k + rank_r(d)).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

DEFAULT_RRF_K = 60


@dataclass(slots=True)
class Fused:
    """One fused candidate: its fused score and its 1-based rank in each retriever that found it."""

    chunk_id: str
    score: float = 0.0
    ranks: dict[str, int] = field(default_factory=dict)


def dedupe(ids: Sequence[str]) -> list[str]:
    """Keeps the first (best) occurrence of each id."""
    return list(dict.fromkeys(ids))


def _ordered(fused: dict[str, Fused]) -> list[Fused]:
    """Best score first; ties break by best single rank, then by id for stability."""
    return sorted(fused.values(), key=lambda f: (-f.score, min(f.ranks.values()), f.chunk_id))


def rrf_fuse(
    rankings: Mapping[str, Sequence[str]],
    weights: Mapping[str, float] | None = None,
    k: int = DEFAULT_RRF_K,
) -> list[Fused]:
    """Fuses best-first id lists."""
    if k < 1:
        raise ValueError("rrf k must be at least 1")
    fused: dict[str, Fused] = {}
    for name, ids in rankings.items():
        weight = 1.0 if weights is None else weights.get(name, 1.0)
        for rank, chunk_id in enumerate(dedupe(ids), start=1):
            item = fused.setdefault(chunk_id, Fused(chunk_id))
            item.score += weight / (k + rank)
            item.ranks[name] = rank
    return _ordered(fused)


def first_scores(hits: Sequence[tuple[str, float]]) -> dict[str, float]:
    """Best-first (id, score) hits as id -> score, keeping each id's first (best) score."""
    out: dict[str, float] = {}
    for chunk_id, score in hits:
        out.setdefault(chunk_id, score)
    return out


def standardise(scores: Sequence[float]) -> tuple[list[float], float]:
    """Z-scores of one result list and the value a candidate missing from it gets (the list's
    lowest z-score). A list whose scores are all equal (one hit, or ties) has no spread: its
    members count one deviation above the missing ones."""
    if len(set(scores)) < 2:
        return [1.0] * len(scores), 0.0
    mean, spread = statistics.fmean(scores), statistics.pstdev(scores)
    z = [(s - mean) / spread for s in scores]
    return z, min(z)


def zscore_fuse(
    lists: Mapping[str, Sequence[tuple[str, float]]],
    weights: Mapping[str, float] | None = None,
    bonus: Mapping[str, tuple[Sequence[str], float]] | None = None,
) -> list[Fused]:
    """Convex combination of the z-scored lists (weights normalised to sum 1; a missing candidate
    takes its list's floor). `bonus` maps a name to (ids, gain): each of those ids gains `gain`
    (in deviations) once."""
    chosen = {name: first_scores(hits) for name, hits in lists.items()}
    raw = {name: 1.0 if weights is None else max(weights.get(name, 1.0), 0.0) for name in chosen}
    total = sum(raw.values()) or 1.0
    fused: dict[str, Fused] = {}
    floors: dict[str, float] = {}
    for name, scores in chosen.items():
        z, floors[name] = standardise(list(scores.values()))
        for rank, (chunk_id, value) in enumerate(zip(scores, z, strict=True), start=1):
            item = fused.setdefault(chunk_id, Fused(chunk_id))
            item.score += raw[name] / total * (value - floors[name])
            item.ranks[name] = rank
    for name, (ids, gain) in (bonus or {}).items():
        _add_bonus(fused, ids, name, gain)
    return _ordered(fused)


def _add_bonus(fused: dict[str, Fused], ids: Sequence[str], name: str, gain: float) -> None:
    for rank, chunk_id in enumerate(dedupe(ids), start=1):
        item = fused.setdefault(chunk_id, Fused(chunk_id))
        item.score += gain
        item.ranks[name] = rank
