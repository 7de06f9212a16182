"""The vector copy's inverted lists (store/vector_lists.py) against exact search, on vectors with
the shape of real ones (bench/scale_vectors.py: SciFact sentences embedded, chunks as their means).

    python -m bench.run vector_lists [--lists-sizes 300000,1000000] [--lists-dir DIR]
        [--lists-queries 300] [--lists-shares 0.04,0.06,0.083,0.12]

For each size the copy is written by the app's own code (vector_snapshot.write_snapshot, which
lists it past LIST_MIN_ROWS) and read back memory-mapped, as a new process would. Then SciFact's
claims are searched exactly and through the lists at several probe shares: recall@10 against the
exact top 10, split dev/test by the claim id (evaluation/splits: the share is chosen on dev),
and latency p50/p95; a one-document scope is timed too (it is always exact).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bench.scale_vectors import query_vectors, sentence_vectors, synthetic_matrix

CHUNKS_PER_DOC = 87  # the scale library's mean


class MatrixSource:
    """VectorSource for write_snapshot: a matrix in pages (ids and documents given, or made up:
    a document per 87 rows)."""

    collection_name = "chunks"

    def __init__(self, matrix: npt.NDArray[np.float32], ids: list[str] | None = None,
                 docs: list[str] | None = None) -> None:  # fmt: skip
        self.matrix = matrix
        self.ids = ids or [f"c{r}" for r in range(len(matrix))]
        self.docs = docs or [f"d{r // CHUNKS_PER_DOC}" for r in range(len(matrix))]

    def export_vectors(self) -> Iterator[tuple[list[str], npt.NDArray[np.float32], list[str]]]:
        for lo in range(0, len(self.matrix), 20_000):
            hi = min(lo + 20_000, len(self.matrix))
            yield self.ids[lo:hi], self.matrix[lo:hi], self.docs[lo:hi]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("vector_lists")
    group.add_argument("--lists-sizes", default="300000,1000000")
    group.add_argument("--lists-dir", default=str(Path.home() / ".cache" / "desktop-rag" / "scale"))
    group.add_argument("--lists-queries", type=int, default=300)
    group.add_argument("--lists-shares", default="0.04,0.06,0.083,0.12")


def _ms(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"p50": round(statistics.median(ordered) * 1000, 2),
            "p95": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 2)}  # fmt: skip


def _timed(
    snap: Any, queries: npt.NDArray[np.float32], scope: Any
) -> tuple[list[list[str]], dict[str, float]]:
    found, took = [], []
    for q in queries:
        start = time.perf_counter()
        found.append([cid for cid, _ in snap.query(q, 10, scope)])
        took.append(time.perf_counter() - start)
    return found, _ms(took)


def one_size(rows: int, pool: npt.NDArray[np.float32], qids: list[str],
             queries: npt.NDArray[np.float32], shares: list[float], work: Path) -> dict[str, Any]:
    from desktop_rag.domain import EVERYWHERE, DocScope
    from desktop_rag.evaluation.splits import split_of
    from desktop_rag.store.vector_snapshot import load_snapshot, write_snapshot

    matrix = synthetic_matrix(pool, rows, seed=rows)
    folder = work / f"copy-{rows}"
    start = time.perf_counter()
    write_snapshot(folder, MatrixSource(matrix), "stamp")
    out: dict[str, Any] = {"write_s": round(time.perf_counter() - start, 1)}
    del matrix
    snap = load_snapshot(folder)
    assert snap is not None and snap.lists is not None
    out["lists"] = len(snap.lists.centroids)
    exact, out["exact_ms"] = _timed(dataclasses.replace(snap, lists=None), queries, EVERYWHERE)
    test = [split_of(q) == "test" for q in qids]
    mean = lambda values, side: round(statistics.mean(  # noqa: E731
        r for r, t in zip(values, test, strict=True) if t == side), 4)
    for share in shares:
        listed = dataclasses.replace(snap, lists=dataclasses.replace(snap.lists, share=share))
        found, timing = _timed(listed, queries, EVERYWHERE)
        recall = [len(set(a) & set(b)) / 10 for a, b in zip(found, exact, strict=True)]
        out[f"share_{share}"] = {
            "probe": listed.lists.probe, "ms": timing,
            "recall_dev": mean(recall, False), "recall_test": mean(recall, True),
        }
    _, out["one_doc_ms"] = _timed(snap, queries, DocScope(only=frozenset({"d7"})))
    _, out["ten_docs_ms"] = _timed(snap, queries,
                                   DocScope(only=frozenset(f"d{i * 97}" for i in range(10))))
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    folder = Path(args.lists_dir)
    pool = sentence_vectors(folder)
    qids, queries = query_vectors(folder, args.lists_queries)
    shares = [float(s) for s in args.lists_shares.split(",")]
    sizes = [20_000] if args.quick else [int(s) for s in args.lists_sizes.split(",")]
    if args.quick:  # lists at 20,000 rows too, to prove the bench works
        from desktop_rag.store import vector_lists

        vector_lists.LIST_MIN_ROWS = 10_000
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(dir=folder) as work:
        for rows in sizes:
            results[f"{rows}_rows"] = one_size(rows, pool, qids, queries, shares, Path(work))
    return results
