"""Reads over one Chroma collection that store/chroma_index.py combines: scored queries with
some ids hidden, paged rows, and the merge of two collections' results (the library's own and
the recent one that embedded writes go to first, store/chroma_index.py)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from desktop_rag.domain import DocScope

if TYPE_CHECKING:
    from desktop_rag.domain.protocols import Vector

PAGE = 5000  # rows a paged `get` reads at a time
FEW_VECTORS = 800  # a scope this small is scored here rather than by a filtered query


def scored(
    col: Any, embedding: Vector, k: int, scope: DocScope, hidden: frozenset[str] = frozenset()
) -> list[tuple[str, float]]:
    """The best `k` (id, cosine similarity) of `col` within `scope`, `hidden` left out."""
    where = where_of(scope)
    total = int(col.count())
    if total == 0 or k <= 0:
        return []
    if scope.included is not None:
        few = _few_scored(col, where, embedding, k, hidden)
        if few is not None:
            return few
    found = col.query(
        query_embeddings=[np.asarray(embedding, dtype=np.float32)],
        n_results=min(k + len(hidden), total),
        where=where,
        include=["distances"],
    )
    ids, dists = found["ids"][0], found["distances"][0]
    hits = [(cid, 1.0 - float(d)) for cid, d in zip(ids, dists, strict=True)]
    return [hit for hit in hits if hit[0] not in hidden][:k]


def merged(*results: list[tuple[str, float]], k: int) -> list[tuple[str, float]]:
    """The best `k` of several collections' hits, each id once (the first result wins: the
    recent collection's copy of an id is the current one)."""
    best: dict[str, float] = {}
    for hits in results:
        for cid, score in hits:
            best.setdefault(cid, score)
    return sorted(best.items(), key=lambda hit: (-hit[1], hit[0]))[:k]


def pages(col: Any, include: list[str]) -> Iterator[dict[str, Any]]:
    """Every row of `col`, PAGE rows a `get`."""
    done = 0
    while True:
        got = col.get(include=include, limit=PAGE, offset=done)
        yield got
        done += len(got["ids"])
        if len(got["ids"]) < PAGE:
            return


def ids_of(col: Any) -> set[str]:
    return {cid for got in pages(col, []) for cid in got["ids"]}


def present(col: Any, ids: Iterable[str], batch: int) -> set[str]:
    """Which of `ids` `col` holds."""
    wanted = sorted(set(ids))
    found: set[str] = set()
    for start in range(0, len(wanted), batch):
        found.update(col.get(ids=wanted[start : start + batch], include=[])["ids"])
    return found


def rows(col: Any) -> Iterator[tuple[list[str], Vector, list[str]]]:
    """Every (ids, embeddings, doc_ids) page of `col`."""
    for got in pages(col, ["embeddings", "metadatas"]):
        yield from rows_of(got)


def rows_of(
    got: dict[str, Any], leave_out: frozenset[str] | set[str] = frozenset()
) -> Iterator[tuple[list[str], Vector, list[str]]]:
    """The (ids, embeddings, doc_ids) of one `get` with embeddings and metadatas, `leave_out`
    left out (nothing when all are)."""
    ids = list(got["ids"])
    keep = [n for n, cid in enumerate(ids) if cid not in leave_out]
    if keep:
        docs = [str((got["metadatas"][n] or {}).get("doc_id", "")) for n in keep]
        vectors = np.asarray(got["embeddings"], dtype=np.float32)[keep]
        yield [ids[n] for n in keep], vectors, docs


def _few_scored(
    col: Any,
    where: dict[str, Any] | None,
    embedding: Vector,
    k: int,
    hidden: frozenset[str] = frozenset(),
) -> list[tuple[str, float]] | None:
    """The best `k` of a scope of at most FEW_VECTORS vectors, scored here (None: more).

    At 50,000 vectors Chroma's filtered query costs 23-38 ms whatever the filter keeps, while
    reading the vectors (L2-normalised) and taking dot products costs 5 ms for 50 and about as
    much as the query at 1,000."""
    got = col.get(where=where, include=["embeddings"], limit=FEW_VECTORS + 1)
    ids = list(got["ids"])
    if len(ids) > FEW_VECTORS:
        return None
    keep = [n for n, cid in enumerate(ids) if cid not in hidden]
    if not keep:
        return []
    ids = [ids[n] for n in keep]
    vectors = np.asarray(got["embeddings"], dtype=np.float32)[keep]
    sims = vectors @ np.asarray(embedding, np.float32)
    best = np.argsort(-sims, kind="stable")[:k]
    return [(ids[i], float(sims[i])) for i in best]


def where_of(scope: DocScope) -> dict[str, Any] | None:
    """Chroma's metadata filter for `scope` (None: the whole collection)."""
    if scope.included is not None:
        return {"doc_id": {"$in": sorted(scope.included)}}
    return {"doc_id": {"$nin": sorted(scope.exclude)}} if scope.exclude else None
