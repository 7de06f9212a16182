"""Runs of every retrieval mode over a BEIR query set, at document level.

Chunks are passages of corpus documents; each retriever's passage ranking is turned into a
document ranking by the document's best passage (MaxP, with that passage's score), and the
hybrid mode fuses those document rankings as the app fuses passages (retrieval.fusion).
Re-rankers re-score the fused top documents through each document's best passage.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from desktop_rag.domain.protocols import Reranker
from desktop_rag.evaluation.beir import BeirSet, IndexedCorpus
from desktop_rag.evaluation.metrics import evaluate
from desktop_rag.retrieval.fusion import first_scores
from desktop_rag.retrieval.hybrid import (
    DENSE,
    EXACT,
    SPARSE,
    HybridConfig,
    HybridRetriever,
    fuse,
    identifiers,
)

log = logging.getLogger(__name__)

DEPTH = 100  # documents per query, as BEIR scores them
FETCH = 300  # passages fetched per retriever to fill DEPTH documents


@dataclass(slots=True)
class QueryRuns:
    runs: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    latency_ms: dict[str, list[float]] = field(default_factory=dict)

    def add(self, mode: str, qid: str, docs: list[str], ms: float) -> None:
        self.runs.setdefault(mode, {})[qid] = docs[:DEPTH]
        self.latency_ms.setdefault(mode, []).append(ms)


def to_doc_hits(
    hits: Sequence[tuple[str, float]], chunk_doc: Mapping[str, str]
) -> list[tuple[str, float]]:
    """Document hits scored by their best passage, best first, unknown chunks skipped."""
    mapped = [(chunk_doc[cid], score) for cid, score in hits if cid in chunk_doc]
    return list(first_scores(mapped).items())


def best_passages(chunk_ids: Sequence[str], chunk_doc: Mapping[str, str]) -> dict[str, str]:
    best: dict[str, str] = {}
    for cid in chunk_ids:
        if cid in chunk_doc:
            best.setdefault(chunk_doc[cid], cid)
    return best


def _timed(
    fn: Callable[[], list[tuple[str, float]]],
) -> tuple[list[tuple[str, float]], float]:
    start = time.perf_counter()
    hits = fn()
    return hits, (time.perf_counter() - start) * 1000


def run_query(
    retriever: HybridRetriever,
    qid: str,
    query: str,
    index: IndexedCorpus,
    rerankers: Mapping[str, Reranker],
    rerank_n: int,
    out: QueryRuns,
) -> None:
    cfg: HybridConfig = retriever.config
    dense, dense_ms = _timed(lambda: retriever.dense(query, FETCH))
    sparse, sparse_ms = _timed(lambda: retriever.bm25(query, FETCH))
    by_doc = index.chunk_doc
    lists = {DENSE: to_doc_hits(dense, by_doc), SPARSE: to_doc_hits(sparse, by_doc)}
    out.add("dense", qid, [d for d, _ in lists[DENSE]], dense_ms)
    out.add("bm25", qid, [d for d, _ in lists[SPARSE]], sparse_ms)
    start = time.perf_counter()
    codes = identifiers(query)
    if codes:
        text = index.doc_text
        exact = [h for h in sparse if all(c in text.get(h[0], "").lower() for c in codes)]
        lists[EXACT] = to_doc_hits(exact, index.chunk_doc)
    hybrid = [f.chunk_id for f in fuse(lists, cfg)]
    out.add("hybrid", qid, hybrid, dense_ms + sparse_ms + (time.perf_counter() - start) * 1000)
    if not rerankers:
        return
    chunk_order = [f.chunk_id for f in fuse({DENSE: dense, SPARSE: sparse}, cfg)]
    passage = best_passages(chunk_order, index.chunk_doc)
    for name, reranker in rerankers.items():
        start = time.perf_counter()
        head = hybrid[:rerank_n]
        scores = reranker.score(query, [index.doc_text[passage[d]] for d in head])
        order = sorted(range(len(head)), key=lambda i: (-scores[i], i))
        reranked = [head[i] for i in order] + hybrid[rerank_n:]
        out.add(f"hybrid+{name}", qid, reranked, (time.perf_counter() - start) * 1000)


def evaluate_runs(out: QueryRuns, data: BeirSet) -> dict[str, dict[str, float]]:
    report: dict[str, dict[str, float]] = {}
    for mode, run in out.runs.items():
        metrics = evaluate(run, data.qrels)
        latencies = sorted(out.latency_ms[mode])
        metrics["p50_ms"] = latencies[len(latencies) // 2]
        metrics["p95_ms"] = latencies[min(len(latencies) - 1, int(len(latencies) * 0.95))]
        report[mode] = {k: round(v, 4) for k, v in metrics.items()}
    return report
