"""One new app process over a scale library (bench_scale.py): how long the core takes to be ready
(embedder, vectors, keyword index), its memory, then warm hybrid latency in that process.

    python -m bench.scale_child DATA_DIR N_QUERIES   (prints one JSON object)

DESKTOP_RAG_LAUNCHED_AT (time.time() at launch, set by the parent) makes `ready_s` count the
interpreter's start and the imports too.
"""

from __future__ import annotations

import json
import os
import sys
import time

LAUNCHED = float(os.environ.get("DESKTOP_RAG_LAUNCHED_AT", time.time()))


def main(data: str, n_queries: int) -> dict[str, object]:
    import psutil

    from bench.bench_retrieval import SCIFACT, time_queries
    from desktop_rag.bootstrap import build_context
    from desktop_rag.domain import DocScope

    proc = psutil.Process()
    out: dict[str, object] = {}
    start = time.perf_counter()
    ctx = build_context(data)
    out["context_s"] = time.perf_counter() - start
    start = time.perf_counter()
    query = ctx.embedder.embed_query("effects of vitamin D on bone fractures")
    out["embedder_s"] = time.perf_counter() - start
    start = time.perf_counter()
    ctx.vectors.query(query, 10)
    out["vectors_s"] = time.perf_counter() - start
    start = time.perf_counter()
    ctx.sparse.search("effects of vitamin D on bone fractures", 10)
    out["keyword_s"] = time.perf_counter() - start
    out["ready_s"] = time.time() - LAUNCHED
    out["keyword_chunks_indexed_at_start"] = getattr(ctx.sparse, "indexed_chunks", None)
    out["rss_ready_mb"] = proc.memory_info().rss / 2**20
    with (SCIFACT / "queries.jsonl").open(encoding="utf-8") as handle:
        queries = [json.loads(line)["text"] for line in handle][:n_queries]
    docs = sorted(d.doc_id for d in ctx.catalog.documents())
    picked = docs[:: max(1, len(docs) // 10)][:10]
    for name, scope in (("whole", None), ("one_doc", DocScope(only=frozenset(picked[:1]))),
                        ("ten_docs", DocScope(only=frozenset(picked)))):  # fmt: skip
        timings = time_queries(ctx, queries) if scope is None else time_queries(ctx, queries,
                                                                                scope)  # fmt: skip
        out[f"{name}_p50_ms"] = timings["total_ms"]["p50"]
        out[f"{name}_p95_ms"] = timings["total_ms"]["p95"]
        for stage in ("embed_ms", "dense_ms", "bm25_ms", "lookup_ms"):
            out[f"{name}_{stage[:-3]}_p50_ms"] = timings.get(stage, {}).get("p50")
    out["rss_after_queries_mb"] = proc.memory_info().rss / 2**20
    out.update(_rss_kinds())
    out["keyword_chunks_indexed_total"] = getattr(ctx.sparse, "indexed_chunks", None)
    ctx.close()
    return out


def _rss_kinds() -> dict[str, float]:
    """Resident memory by kind (Linux): anonymous (the process's own) and file pages (mapped
    files: the vector copy, the keyword index, libraries), which the kernel can drop and read
    back."""
    kinds: dict[str, float] = {}
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(("RssAnon:", "RssFile:")):
                    kinds[f"rss_{line[3:7].lower()}_after_queries_mb"] = int(line.split()[1]) / 1024
    except OSError:
        pass
    return kinds


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], int(sys.argv[2]))))
