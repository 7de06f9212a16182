"""The synthetic libraries of the scale benchmark (bench_scale.py), built once and kept.

Text: real sentences (SciFact abstracts, 5,183 of them: a real scientific vocabulary) packed into
chunks of a realistic length mix (2 to 12 sentences, about 130 words on average), and one chunk
in six a table-like block of labelled rows of numbers as reports have. Documents hold from 10 to
400 chunks (median about 60), so a million chunks are about 10,000 documents. Vectors: random
unit 384-d vectors (what MiniLM gives), inserted through the real vector store: embedding a
million chunks with the real model would take days on this 2-core machine (about 150 chunks/s).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from bench.bench_retrieval import sentences  # SciFact's sentences, as the retrieval bench uses
from desktop_rag.domain import Chunk, DocKind, DocStatus, Document

MARKER = "scale-library.json"
LABELS = ("Revenue", "Net income", "Operating expenses", "Cost of sales", "Total assets",
          "Cash and equivalents", "Long-term debt", "Research and development", "Gross margin",
          "Diluted earnings per share", "Inventories", "Accounts receivable")  # fmt: skip


def table_text(rng: random.Random) -> str:
    years = rng.randint(2005, 2023)
    rows = [f"{label} {rng.randint(1, 99_999):,} {rng.randint(1, 99_999):,} "
            f"{rng.uniform(-30, 30):.1f}%" for label in rng.sample(LABELS, rng.randint(4, 10))]
    return f"(in millions) {years} {years - 1} change\n" + "\n".join(rows)


def synth_docs(n_chunks: int, seed: int = 7) -> Iterator[tuple[Document, list[Chunk]]]:
    rng = random.Random(seed)
    pool = sentences()
    made, d = 0, 0
    while made < n_chunks:
        size = min(n_chunks - made, max(10, min(400, int(rng.lognormvariate(4.1, 0.9)))))
        doc_id = f"scale{d:06d}"
        title = f"{' '.join(rng.sample(pool, 1)[0].split()[:6])} ({d})"
        texts = [table_text(rng) if rng.random() < 1 / 6
                 else ". ".join(rng.sample(pool, rng.randint(2, 12))) + "."
                 for _ in range(size)]  # fmt: skip
        doc = Document(doc_id, f"/scale/{doc_id}.pdf", title, DocKind.PDF, f"{d:064d}", 1, 0.0,
                       size, size, DocStatus.PENDING)  # fmt: skip
        chunks = [Chunk(f"{doc_id}:{i:05d}", doc_id, doc.path, title, DocKind.PDF, t, i, (i + 1,),
                        (0, len(t))) for i, t in enumerate(texts)]  # fmt: skip
        yield doc, chunks
        made += size
        d += 1


def _built(data: Path) -> bool:
    """Whether a finished build is in `data` (an unfinished one is refused, never reused)."""
    if (data / MARKER).exists():
        return True
    if data.exists():
        raise SystemExit(f"{data} holds an unfinished build: remove it and run again")
    return False


def library(folder: Path, n_chunks: int, dim: int = 384) -> Path:
    """`folder/lib-<n>`, built now unless a finished build is there; the first keyword-index
    build and the vector copy are made as the first app session after an ingestion would."""
    from desktop_rag.bootstrap import build_context

    data = folder / f"lib-{n_chunks}"
    if _built(data):
        return data
    ctx = build_context(str(data))
    nrng = np.random.default_rng(7)
    start = time.perf_counter()
    docs = 0
    for doc, chunks in synth_docs(n_chunks):
        vectors = nrng.standard_normal((len(chunks), dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        ctx.catalog.add_pending(doc, chunks)
        ctx.vectors.upsert([c.chunk_id for c in chunks], vectors, [doc.doc_id] * len(chunks))
        ctx.catalog.finalize(doc.doc_id)
        docs += 1
    built = time.perf_counter() - start
    start = time.perf_counter()
    ctx.sparse.warm()  # type: ignore[attr-defined]
    keyword = time.perf_counter() - start
    start = time.perf_counter()
    ctx.close()  # writes the vector copy (up to vector_snapshot.MAX_VECTORS rows)
    info = {"chunks": n_chunks, "documents": docs, "insert_s": round(built, 1),
            "keyword_first_build_s": round(keyword, 1),
            "close_s": round(time.perf_counter() - start, 1)}  # fmt: skip
    (data / MARKER).write_text(json.dumps(info), encoding="utf-8")
    return data


def read_library(folder: Path, n_chunks: int) -> Path:
    """`folder/read-<n>`: the parts a search reads, built directly — the catalog, the keyword
    index and the vector copy (realistic vectors, bench/scale_vectors.py; listed past
    LIST_MIN_ROWS) — with Chroma left empty. It measures what a user with `n_chunks` waits for
    when searching; adding or removing documents there would measure an empty Chroma, so the
    scale bench does not (a million chunks through Chroma's own inserts took hours here)."""
    from bench.bench_vector_lists import MatrixSource
    from bench.scale_vectors import sentence_vectors, synthetic_matrix
    from desktop_rag.bootstrap import build_context
    from desktop_rag.config.paths import resolve_paths
    from desktop_rag.store.stamp import STAMP_NAME
    from desktop_rag.store.switch_state import active_collection
    from desktop_rag.store.vector_snapshot import read_stamp, write_snapshot

    data = folder / f"read-{n_chunks}"
    if _built(data):
        return data
    ctx = build_context(str(data))
    start = time.perf_counter()
    ids: list[str] = []
    docs: list[str] = []
    for doc, chunks in synth_docs(n_chunks):
        ctx.catalog.add_pending(doc, chunks)
        ctx.catalog.finalize(doc.doc_id)
        ids += [c.chunk_id for c in chunks]
        docs += [doc.doc_id] * len(chunks)
    catalog = time.perf_counter() - start
    start = time.perf_counter()
    ctx.sparse.warm()  # type: ignore[attr-defined]
    keyword = time.perf_counter() - start
    start = time.perf_counter()
    paths = resolve_paths(str(data))
    name = active_collection(paths.catalog_db)
    source = MatrixSource(synthetic_matrix(sentence_vectors(folder), n_chunks, seed=n_chunks),
                          ids, docs)  # fmt: skip
    write_snapshot(paths.data_dir / "vector-snapshot" / name, source,  # type: ignore[arg-type]
                   read_stamp(paths.chroma_dir / STAMP_NAME))  # fmt: skip
    ctx.close()
    info = {"chunks": n_chunks, "documents": len(set(docs)), "catalog_s": round(catalog, 1),
            "keyword_first_build_s": round(keyword, 1),
            "vector_copy_s": round(time.perf_counter() - start, 1), "chroma": "empty"}  # fmt: skip
    (data / MARKER).write_text(json.dumps(info), encoding="utf-8")
    return data


def build_info(data: Path) -> dict[str, float]:
    return dict(json.loads((data / MARKER).read_text(encoding="utf-8")))


if __name__ == "__main__":  # python -m bench.scale_library FOLDER N [--read-path]: builds one
    import logging
    import sys

    logging.basicConfig(level=logging.INFO)
    build = read_library if sys.argv[3:] == ["--read-path"] else library
    print(build(Path(sys.argv[1]), int(sys.argv[2])))
