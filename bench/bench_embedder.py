"""Embedder backends compared: throughput, agreement with fp32, SciFact dense nDCG@10.

`python -m bench.run embedder [--quick] [--embedder-backends a,b] [--embedder-threads N]
 [--embedder-scifact full|subset|sample|none]`: "full" embeds all 5,183 SciFact abstracts per
backend (title + text, truncated by the model at 256 word pieces; 300 test queries, top 100,
ir-measures nDCG@10); "subset" keeps the 300 queries over their relevant abstracts plus 1,000
random others (same for every backend, so the differences between backends still show).

Texts are chunk-like: SciFact abstracts and text of mmlongbench PDFs packed into passages of at
most ~200 word pieces. Backends run interleaved, round after round on the same texts, and the
best round counts (the machine is shared, so compare the ratios). "torch-fp32-unsorted" embeds
the texts in batches of 32 in their own order (no length bucketing across the set), as a naive
pipeline would. CPU seconds are reported besides wall seconds: they suffer less from other
processes on the machine.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from desktop_rag.domain.protocols import Embedder, Vector
from desktop_rag.retrieval.embedder import TorchEmbedder, cpu_threads, export_onnx

log = logging.getLogger("bench.embedder")
DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
ALL_BACKENDS = "torch-fp32,torch-fp32-unsorted,torch-bf16,onnx-fp32,onnx-int8"
SUBSET_EXTRA = {"sample": 300, "subset": 1000}
SENTENCE = re.compile(r"(?<=[.!?])\s+")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("embedder")
    group.add_argument("--embedder-backends", default=ALL_BACKENDS)
    group.add_argument("--embedder-threads", type=int, default=0, help="0: all cores")
    group.add_argument("--embedder-passages", type=int, default=600)
    group.add_argument("--embedder-pdfs", type=int, default=3)
    group.add_argument("--embedder-rounds", type=int, default=3)
    group.add_argument(
        "--embedder-scifact", choices=("full", "subset", "none", "sample"), default="full"
    )


def make_backends(
    names: Sequence[str], model_dir: Path, cache: Path, threads: int
) -> dict[str, Embedder]:
    from desktop_rag.retrieval.embedder_onnx import load_onnx_embedder

    builders: dict[str, Callable[[], Embedder]] = {
        "torch-fp32": lambda: TorchEmbedder(model_dir, "fp32", threads),
        "torch-bf16": lambda: TorchEmbedder(model_dir, "bf16", threads),
        "onnx-fp32": lambda: load_onnx_embedder(model_dir, cache, export_onnx, threads, "fp32"),
        "onnx-int8": lambda: load_onnx_embedder(model_dir, cache, export_onnx, threads, "int8"),
    }
    return {name: builders[name.removesuffix("-unsorted")]() for name in names}


def pack(pieces: Sequence[str], counts: Sequence[int], limit: int = 200) -> list[str]:
    """Greedily joins consecutive sentences into passages of at most `limit` word pieces."""
    out: list[str] = []
    current: list[str] = []
    size = 0
    for piece, count in zip(pieces, counts, strict=True):
        if current and size + count > limit:
            out.append(" ".join(current))
            current, size = [], 0
        current.append(piece)
        size += count
    if current:
        out.append(" ".join(current))
    return out


def scifact_texts(counter: Embedder, limit: int) -> list[str]:
    sentences: list[str] = []
    for line in (DATA / "scifact" / "corpus.jsonl").open(encoding="utf-8"):
        doc = json.loads(line)
        sentences += SENTENCE.split(f"{doc['title']}. {doc['text']}")
        if len(sentences) > limit * 10:
            break
    return pack(sentences, counter.count_word_pieces(sentences))[:limit]


def pdf_texts(counter: Embedder, pdfs: int, limit: int) -> list[str]:
    import pymupdf

    paragraphs: list[str] = []
    for path in sorted((DATA / "mmlongbench" / "documents").glob("*.pdf"))[:pdfs]:
        with pymupdf.open(path) as doc:
            for page in doc:
                for block in page.get_text("blocks"):
                    text = " ".join(str(block[4]).split())
                    if len(text) > 20:
                        paragraphs.append(text[:1000])
    return pack(paragraphs, counter.count_word_pieces(paragraphs))[:limit]


def embed_unsorted(embedder: Embedder, texts: Sequence[str]) -> Vector:
    parts = [embedder.embed_documents(texts[i : i + 32]) for i in range(0, len(texts), 32)]
    return np.concatenate(parts)


def timed(name: str, embedder: Embedder, texts: Sequence[str]) -> tuple[Vector, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    if name.endswith("-unsorted"):
        vectors = embed_unsorted(embedder, texts)
    else:
        vectors = embedder.embed_documents(texts)
    return vectors, time.perf_counter() - wall, time.process_time() - cpu


def speed(backends: dict[str, Embedder], texts: list[str], rounds: int) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    texts = [texts[i] for i in rng.permutation(len(texts))]  # mixed lengths, as in a pipeline
    pieces = sum(min(n + 2, 256) for n in backends["torch-fp32"].count_word_pieces(texts))
    best: dict[str, tuple[float, float]] = {n: (1e9, 1e9) for n in backends}
    vectors: dict[str, Vector] = {}
    for _ in range(rounds):
        for name, embedder in backends.items():
            vectors[name], wall, cpu = timed(name, embedder, texts)
            best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
    ref = vectors["torch-fp32"]
    base_wall, base_cpu = best["torch-fp32"]
    result: dict[str, Any] = {"texts": len(texts), "word_pieces": pieces}
    for name, (wall, cpu) in best.items():
        cos = np.sum(vectors[name] * ref, axis=1)
        result[name] = {
            "wp_per_s": round(pieces / wall),
            "wp_per_cpu_s": round(pieces / cpu),
            "x_fp32_wall": round(base_wall / wall, 2),
            "x_fp32_cpu": round(base_cpu / cpu, 2),
            "cos_mean": round(float(cos.mean()), 5),
            "cos_min": round(float(cos.min()), 5),
        }
    return result


def scifact_ndcg(backends: dict[str, Embedder], mode: str) -> dict[str, Any]:
    import ir_measures
    from ir_measures import nDCG

    folder = DATA / "scifact"
    corpus = [json.loads(x) for x in (folder / "corpus.jsonl").open(encoding="utf-8")]
    queries = {q["_id"]: q["text"] for q in map(json.loads, (folder / "queries.jsonl").open())}
    qrels = _qrels(folder / "qrels" / "test.tsv")
    wanted = sorted({q.query_id for q in qrels})
    if mode != "full":  # the relevant documents of some queries, plus a fixed random sample
        wanted = wanted[:30] if mode == "sample" else wanted
        relevant = {q.doc_id for q in qrels if q.query_id in set(wanted)}
        rng = np.random.default_rng(0)
        others = [d for d in corpus if d["_id"] not in relevant]
        extra = {others[i]["_id"] for i in rng.permutation(len(others))[: SUBSET_EXTRA[mode]]}
        corpus = [d for d in corpus if d["_id"] in relevant | extra]
        qrels = [q for q in qrels if q.query_id in set(wanted)]
    texts = [f"{d['title']} {d['text']}".strip() for d in corpus]
    result: dict[str, Any] = {"docs": len(texts), "queries": len(wanted)}
    for name, embedder in backends.items():
        if name.endswith("-unsorted"):
            continue
        start = time.perf_counter()
        docs = embedder.embed_documents(texts)
        run = _run(embedder, docs, [d["_id"] for d in corpus], {q: queries[q] for q in wanted})
        score = ir_measures.calc_aggregate([nDCG @ 10], qrels, run)[nDCG @ 10]
        result[name] = {"ndcg@10": round(float(score), 4), "s": round(time.perf_counter() - start)}
        log.info("scifact %s nDCG@10 %.4f", name, score)
    return result


def _qrels(tsv: Path) -> list[Any]:
    import ir_measures

    rows = [line.split("\t") for line in tsv.read_text(encoding="utf-8").splitlines()[1:]]
    return [ir_measures.Qrel(q, d, int(s)) for q, d, s in rows if int(s) > 0]


def _run(embedder: Embedder, docs: Vector, ids: list[str], queries: dict[str, str]) -> list[Any]:
    import ir_measures

    run = []
    for qid, text in queries.items():
        scores = docs @ embedder.embed_query(text)
        for i in np.argsort(-scores)[:100]:
            run.append(ir_measures.ScoredDoc(qid, ids[i], float(scores[i])))
    return run


def run(args: argparse.Namespace) -> dict[str, Any]:
    from desktop_rag.bootstrap import build_context

    ctx = build_context(args.data_dir)
    threads = args.embedder_threads or cpu_threads()
    names = [n.strip() for n in args.embedder_backends.split(",") if n.strip()]
    names = ["torch-fp32", *[n for n in names if n != "torch-fp32"]]
    backends = make_backends(
        names, ctx.registry.embedder_path(), ctx.paths.model_cache_dir / "onnx", threads
    )
    limit = 64 if args.quick else args.embedder_passages
    counter = backends["torch-fp32"]
    result: dict[str, Any] = {"threads": threads}
    result["scifact_passages"] = speed(
        backends, scifact_texts(counter, limit), args.embedder_rounds
    )
    pdfs = pdf_texts(counter, 1 if args.quick else args.embedder_pdfs, limit)
    result["pdf_passages"] = speed(backends, pdfs, args.embedder_rounds)
    mode = "sample" if args.quick and args.embedder_scifact == "full" else args.embedder_scifact
    if mode != "none":
        result["scifact_dense"] = scifact_ndcg(backends, mode)
    return result
