"""Vectors with the shape of real ones for the scale benchmarks.

Random unit vectors are the worst case for an approximate index (no neighbourhoods at all) and
nothing like a library's. Here every SciFact sentence is embedded once with the app's embedder
(45,347 sentences, kept in the scale folder), and a synthetic chunk made of sentences gets the
normalised mean of their vectors plus a little noise. A chunk is a passage of consecutive sentences
of one abstract, as a real chunk is a passage of one document, so chunks of one topic lie close
as real ones do; SciFact's claims, embedded the same way, are real queries.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import numpy.typing as npt

from bench.bench_retrieval import SCIFACT, sentences

FILE = "scifact-sentences-minilm.npy"
NOISE = 0.02  # per dimension, before normalising: keeps chunks of equal sentences apart


def sentence_vectors(folder: Path) -> npt.NDArray[np.float32]:
    """One unit vector per sentence of `sentences()`, embedded now unless kept in `folder`."""
    path = folder / FILE
    if path.exists():
        return np.load(path)
    from desktop_rag.bootstrap import build_context

    ctx = build_context(str(folder / "embedder-context"))
    pool = sentences()
    parts = [np.asarray(ctx.embedder.embed_documents(pool[lo : lo + 512]), np.float32)
             for lo in range(0, len(pool), 512)]  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    out = np.concatenate(parts)
    np.save(path, out)
    return out


def query_vectors(folder: Path, n: int) -> tuple[list[str], npt.NDArray[np.float32]]:
    """SciFact's first `n` claims and their vectors (kept in `folder`)."""
    with (SCIFACT / "queries.jsonl").open(encoding="utf-8") as handle:
        queries = [json.loads(line) for line in handle][:n]
    path = folder / f"scifact-queries-{n}.npy"
    if path.exists():
        return [str(q["_id"]) for q in queries], np.load(path)
    from desktop_rag.bootstrap import build_context

    ctx = build_context(str(folder / "embedder-context"))
    vectors = np.stack([np.asarray(ctx.embedder.embed_query(q["text"]), np.float32)
                        for q in queries])  # fmt: skip
    np.save(path, vectors)
    return [str(q["_id"]) for q in queries], vectors


def chunk_vectors(
    pool: npt.NDArray[np.float32], picks: list[list[int]], rng: np.random.Generator
) -> npt.NDArray[np.float32]:
    """One unit vector per chunk: the mean of its sentences' vectors, with noise."""
    out = np.empty((len(picks), pool.shape[1]), np.float32)
    for i, chosen in enumerate(picks):
        out[i] = pool[chosen].mean(axis=0)
    out += rng.standard_normal(out.shape).astype(np.float32) * NOISE
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out


def abstract_spans() -> npt.NDArray[np.int64]:
    """Where each SciFact abstract's sentences start in `sentences()`, and the end."""
    starts, at = [0], 0
    with (SCIFACT / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            at += len([s for s in json.loads(line)["text"].split(". ") if len(s) > 20])
            starts.append(at)
    return np.asarray(starts, np.int64)


def synthetic_matrix(
    pool: npt.NDArray[np.float32], rows: int, seed: int
) -> npt.NDArray[np.float32]:
    """`rows` chunk vectors, each a passage of 2-12 consecutive sentences of one abstract (fewer
    when the abstract is shorter): the mean of their vectors, with noise."""
    rng = np.random.default_rng(seed)
    spans = abstract_spans()
    lengths = np.diff(spans)
    usable = np.flatnonzero(lengths > 0)
    out = np.empty((rows, pool.shape[1]), np.float32)
    for lo in range(0, rows, 10_000):
        n = min(10_000, rows - lo)
        doc = usable[rng.integers(0, len(usable), n)]
        size = np.minimum(rng.integers(2, 13, n), lengths[doc])
        first = spans[doc] + (rng.random(n) * (lengths[doc] - size + 1)).astype(np.int64)
        picks = np.minimum(first[:, None] + np.arange(12), len(pool) - 1)
        used = np.arange(12) < size[:, None]
        block = (pool[picks] * used[..., None]).sum(axis=1)
        block += rng.standard_normal(block.shape).astype(np.float32) * NOISE * size[:, None]
        out[lo : lo + n] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out
