"""The searchable view over the keyword index's segments: which rows are live, the statistics
of the live library, and BM25 over them.

Scores are Lucene's BM25 (bm25s's default method, which the in-memory snapshot used):
idf = ln(1 + (N - df + 0.5) / (df + 0.5)) and tf / (tf + k1 (1 - b + b len / avglen)), with N,
df and avglen counted over the live rows of all segments together, so a library split into
segments ranks exactly as one index built over its live chunks would.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from desktop_rag.domain import DocScope
from desktop_rag.store.keyword_segments import Segment, term_hash
from desktop_rag.store.scope_rows import allowed_rows

K1, B = 1.2, 0.75


@dataclass(frozen=True, slots=True)
class Part:
    """A segment as the manifest names it, and its documents masked out since it was written."""

    name: str
    seg: Segment = field(repr=False)
    dead: frozenset[str]

    def alive(self) -> npt.NDArray[np.bool_]:
        if not self.dead:
            return np.ones(self.seg.size, np.bool_)
        codes = [i for i, d in enumerate(self.seg.doc_ids) if d in self.dead]
        return ~np.isin(self.seg.docs, np.asarray(codes, np.int32))

    def dead_rows(self) -> int:
        return int(self.seg.size - self.alive().sum())


@dataclass(frozen=True, slots=True)
class State:
    """An immutable view: a search reads one State while a sync makes the next."""

    generation: int
    parts: tuple[Part, ...]
    offsets: npt.NDArray[np.int64]  # first global row of each part
    alive: npt.NDArray[np.bool_]
    doc_of_row: npt.NDArray[np.int32]
    doc_codes: dict[str, int]
    live: dict[str, tuple[str, int]]  # document -> (its part's name, its revision)
    n_live: int
    avg_length: float
    norm: npt.NDArray[np.float64]  # k1 (1 - b + b len / avglen) of each row, computed once

    @property
    def rows(self) -> int:
        return len(self.alive)


def make_state(generation: int, parts: Sequence[Part]) -> State:
    offsets = np.cumsum([0] + [p.seg.size for p in parts], dtype=np.int64)
    codes: dict[str, int] = {}
    live: dict[str, tuple[str, int]] = {}
    alive_parts, doc_parts, length_parts = [], [], []
    total_length = 0.0
    for part in parts:
        alive = part.alive()
        local = np.asarray([codes.setdefault(d, len(codes)) for d in part.seg.doc_ids], np.int32)
        doc_parts.append(local[part.seg.docs] if part.seg.size else np.zeros(0, np.int32))
        alive_parts.append(alive)
        length_parts.append(np.asarray(part.seg.lengths, np.float64))
        total_length += float(length_parts[-1][alive].sum())
        for doc_id, rev in zip(part.seg.doc_ids, part.seg.revs, strict=True):
            if doc_id not in part.dead:
                live[doc_id] = (part.name, rev)
    alive_all = np.concatenate(alive_parts) if parts else np.zeros(0, np.bool_)
    n_live = int(alive_all.sum())
    avg = total_length / n_live if n_live else 0.0
    lengths = np.concatenate(length_parts) if parts else np.zeros(0, np.float64)
    norm = K1 * (1.0 - B + B * lengths / avg) if avg else np.full(len(lengths), K1 * (1.0 - B))
    return State(
        generation, tuple(parts), offsets, alive_all,
        np.concatenate(doc_parts) if parts else np.zeros(0, np.int32), codes, live, n_live, avg,
        norm,
    )


def search(state: State, tokens: Sequence[str], k: int, scope: DocScope) -> list[tuple[str, float]]:
    """The best `k` live rows inside `scope` for the query's (distinct) tokens, best first."""
    if k <= 0 or state.n_live == 0 or scope.empty:
        return []
    found_rows: list[npt.NDArray[np.int64]] = []
    weights: list[npt.NDArray[np.float64]] = []
    for token in dict.fromkeys(tokens):
        term_rows, term_weights = _term(state, term_hash(token))
        found_rows += term_rows
        weights += term_weights
    if not found_rows:
        return []
    scores: npt.NDArray[np.float64] = np.bincount(
        np.concatenate(found_rows), weights=np.concatenate(weights), minlength=state.rows
    ).astype(np.float64, copy=False)
    allowed = allowed_rows(state.doc_of_row, state.doc_codes, scope)
    if allowed is not None:
        scores[~allowed] = 0.0
    return _top(state, scores, k)


def _term(
    state: State, term: int
) -> tuple[list[npt.NDArray[np.int64]], list[npt.NDArray[np.float64]]]:
    """The live postings of one term in every part (global rows) and their BM25 weights."""
    hits = []
    df = 0
    for part, offset in zip(state.parts, state.offsets, strict=False):
        local, tfs = part.seg.postings(term)
        if not len(local):
            continue
        rows = local.astype(np.int64) + int(offset)
        tf = np.asarray(tfs, np.float64)
        if part.dead:
            keep = state.alive[rows]
            rows, tf = rows[keep], tf[keep]
        hits.append((rows, tf))
        df += len(rows)
    if df == 0:
        return [], []
    idf = math.log(1.0 + (state.n_live - df + 0.5) / (df + 0.5))
    weights = [idf * tf / (tf + state.norm[rows]) for rows, tf in hits]
    return [h[0] for h in hits], weights


def _top(state: State, scores: npt.NDArray[np.float64], k: int) -> list[tuple[str, float]]:
    candidates = np.flatnonzero(scores > 0)
    if len(candidates) > k:
        candidates = candidates[np.argpartition(-scores[candidates], k - 1)[:k]]
    candidates = candidates[np.argsort(-scores[candidates], kind="stable")]
    part_of = np.searchsorted(state.offsets, candidates, side="right") - 1
    out = []
    for row, p in zip(candidates, part_of, strict=True):
        seg = state.parts[int(p)].seg
        chunk_id = bytes(seg.ids[int(row - state.offsets[p])]).decode("utf-8")
        out.append((chunk_id, float(scores[row])))
    return out
