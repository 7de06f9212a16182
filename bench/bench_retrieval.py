"""Hybrid retrieval latency at library scale, sparse index size, re-rank latency.

`python -m bench.run retrieval [--quick] [--retrieval-chunks N] [--retrieval-queries N]`

Chunks are synthesised: real sentences from SciFact abstracts packed into ~120-word chunks (so
BM25 sees realistic term statistics) with random unit vectors (embedding 50k chunks would take
longer than the benchmark; random 384-d vectors are a harder case for HNSW than real ones).
Queries are the SciFact claims, embedded by the real embedder inside the timed call, so the
reported hybrid latency includes query embedding, the Chroma query, FTS5 BM25, RRF fusion and the
chunk lookup. Re-rank latency is measured with a cross-encoder of MiniLM-L6 size (random
weights: latency depends on the architecture, not the weights) and with the configured one.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.bm25s_reference import memory_mb
from desktop_rag.bootstrap import AppContext, build_context
from desktop_rag.config import Settings
from desktop_rag.domain import EVERYWHERE, Chunk, DocKind, DocScope, DocStatus, Document
from desktop_rag.retrieval.hybrid import HybridRetriever
from desktop_rag.services.searching import hybrid_config

log = logging.getLogger("bench.retrieval")
SCIFACT = Path(__file__).resolve().parents[2] / "shared" / "data" / "scifact"
CHUNKS_PER_DOC = 50


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("retrieval")
    group.add_argument("--retrieval-chunks", type=int, default=50_000)
    group.add_argument("--retrieval-queries", type=int, default=300)
    group.add_argument("--retrieval-rerank-sizes", default="10,30,100")
    group.add_argument(
        "--retrieval-fts5-only", action="store_true", help="BM25 through FTS5, no snapshot"
    )


def sentences() -> list[str]:
    out: list[str] = []
    with (SCIFACT / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            out += [s for s in json.loads(line)["text"].split(". ") if len(s) > 20]
    return out


def synth_docs(n_chunks: int, rng: random.Random) -> list[tuple[Document, list[Chunk]]]:
    pool = sentences()
    docs = []
    for d in range(-(-n_chunks // CHUNKS_PER_DOC)):
        doc_id = f"synth{d:05d}"
        count = min(CHUNKS_PER_DOC, n_chunks - d * CHUNKS_PER_DOC)
        texts = [". ".join(rng.sample(pool, 6)) + "." for _ in range(count)]
        doc = Document(doc_id, f"/synth/{doc_id}.md", f"Synthetic {d}", DocKind.MARKDOWN,
                       f"{d:064d}", 1, 0.0, 0, count, DocStatus.PENDING)  # fmt: skip
        chunks = [Chunk(f"{doc_id}:{i:05d}", doc_id, doc.path, doc.title, DocKind.MARKDOWN, t, i,
                        (), (0, len(t))) for i, t in enumerate(texts)]  # fmt: skip
        docs.append((doc, chunks))
    return docs


def build_library(ctx: AppContext, n_chunks: int, dim: int) -> float:
    rng = random.Random(7)
    nrng = np.random.default_rng(7)
    start = time.perf_counter()
    for doc, chunks in synth_docs(n_chunks, rng):
        vectors = nrng.standard_normal((len(chunks), dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        ctx.catalog.add_pending(doc, chunks)
        ctx.vectors.upsert([c.chunk_id for c in chunks], vectors, [doc.doc_id] * len(chunks))
        ctx.catalog.finalize(doc.doc_id)
    return time.perf_counter() - start


def warm_sparse(ctx: AppContext) -> float | None:
    """Builds the in-memory BM25 snapshot before timing (None when FTS5 alone is configured)."""
    warm = getattr(ctx.sparse, "warm", None)
    if not callable(warm):
        return None
    start = time.perf_counter()
    warm()
    return round(time.perf_counter() - start, 2)


def fts_bytes(db: Path) -> int:
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        row = conn.execute(
            "SELECT SUM(pgsize) FROM dbstat WHERE name LIKE 'chunks_fts%'"
        ).fetchone()
        return int(row[0] or 0)
    except sqlite3.OperationalError:  # dbstat not compiled in
        return 0
    finally:
        conn.close()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * q))], 2)


def time_queries(
    ctx: AppContext, queries: list[str], scope: DocScope = EVERYWHERE
) -> dict[str, Any]:
    retriever = HybridRetriever(
        ctx.embedder, ctx.vectors, ctx.sparse, ctx.catalog, hybrid_config(ctx), pages=ctx.catalog
    )
    for q in queries[:5]:
        retriever.retrieve(q, 6, scope=scope)  # warm-up
    stages: dict[str, list[float]] = {}
    for q in queries:
        start = time.perf_counter()
        found = retriever.retrieve(q, 6, scope=scope)
        stages.setdefault("total_ms", []).append((time.perf_counter() - start) * 1000)
        for name, ms in found.timings_ms.items():
            stages.setdefault(name, []).append(ms)
    return {name: {"p50": pct(v, 0.5), "p95": pct(v, 0.95), "mean": round(statistics.fmean(v), 2)}
            for name, v in stages.items()}  # fmt: skip


def minilm_sized_cross_encoder(folder: Path, tokenizer_dir: Path) -> Path:
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    tokenizer = BertTokenizerFast.from_pretrained(str(tokenizer_dir))
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=384, num_hidden_layers=6,
                        num_attention_heads=12, intermediate_size=1536, num_labels=1)  # fmt: skip
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def time_rerank(ctx: AppContext, sizes: list[int], work: Path) -> dict[str, Any]:
    from desktop_rag.retrieval.st_cross_encoder import CrossEncoderReranker

    texts = [
        c.text for c in ctx.catalog.get_chunks([f"synth00000:{i:05d}" for i in range(100)]).values()
    ]
    models = {
        "minilm-l6-size": minilm_sized_cross_encoder(work / "ce", ctx.registry.embedder_path())
    }
    if ctx.settings.models.cross_encoder:
        models["configured"] = ctx.registry.cross_encoder_path()
    out: dict[str, Any] = {}
    for name, path in models.items():
        reranker = CrossEncoderReranker(path)
        reranker.score("warm up", texts[:4])
        for n in sizes:
            batch = (texts * (n // max(len(texts), 1) + 1))[:n]
            start = time.perf_counter()
            reranker.score("does vitamin D lower the risk of fractures", batch)
            out[f"{name}.{n}_candidates_ms"] = round((time.perf_counter() - start) * 1000, 1)
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    import psutil

    n_chunks = 5_000 if args.quick else args.retrieval_chunks
    n_queries = 50 if args.quick else args.retrieval_queries
    sizes = [int(s) for s in args.retrieval_rerank_sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="bench-retrieval-") as tmp:
        work = Path(args.data_dir or tmp)
        settings = Settings()
        settings = settings.updated({"retrieval.bm25_in_memory": not args.retrieval_fts5_only})
        ctx = build_context(str(work / "lib"), settings=settings)
        proc = psutil.Process(os.getpid())
        embedder = ctx.embedder
        build_s = build_library(ctx, n_chunks, embedder.dim)
        rss_before_snapshot = proc.memory_info().rss
        snapshot_s = warm_sparse(ctx)
        snapshot_rss = proc.memory_info().rss - rss_before_snapshot
        with (SCIFACT / "queries.jsonl").open(encoding="utf-8") as handle:
            queries = [json.loads(line)["text"] for line in handle][:n_queries]
        rss_before = proc.memory_info().rss
        latency = time_queries(ctx, queries)
        scoped = {
            f"within_{n}_documents": time_queries(
                ctx, queries, DocScope(only=frozenset(f"synth{d:05d}" for d in range(n)))
            )["total_ms"]
            for n in (1, 10)
        }
        result = {
            "chunks": n_chunks,
            "queries": len(queries),
            "build_s": round(build_s, 1),
            "hybrid_ms": latency,
            "hybrid_scoped_ms": scoped,
            "sparse_index_disk_mb": round(fts_bytes(ctx.paths.catalog_db) / 2**20, 1),
            "bm25_snapshot_build_s": snapshot_s,
            "bm25_snapshot_mb": memory_mb(ctx.sparse),
            "bm25_snapshot_rss_growth_mb": round(snapshot_rss / 2**20, 1),
            "catalog_db_mb": round(ctx.paths.catalog_db.stat().st_size / 2**20, 1),
            "rss_growth_during_queries_mb": round((proc.memory_info().rss - rss_before) / 2**20, 1),
            "rss_mb": round(proc.memory_info().rss / 2**20, 1),
            "rerank": time_rerank(ctx, sizes[:1] if args.quick else sizes, work),
        }
        ctx.close()
    return result
