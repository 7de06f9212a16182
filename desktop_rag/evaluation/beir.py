"""BEIR-format corpora as library documents, for evaluation through the real stores.

Each corpus document becomes one Document whose chunks are its passages (`title. text` when the
embedder reads it whole, else overlapping sentence windows, see passages.py); documents are then
scored by their best passage. Embeddings are cached by content in the cache folder so a
second evaluation of the same corpus with the same embedder does not embed again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from desktop_rag.domain import Chunk, DocKind, DocStatus, Document
from desktop_rag.domain.errors import DesktopRagError
from desktop_rag.domain.progress import CancelToken, ProgressCallback, ProgressEvent
from desktop_rag.domain.protocols import Embedder, Vector, VectorIndex
from desktop_rag.retrieval.passages import split_passages

if TYPE_CHECKING:
    from desktop_rag.store.documents import Catalog

log = logging.getLogger(__name__)

BATCH_DOCS = 256


@dataclass(slots=True)
class BeirSet:
    corpus: dict[str, tuple[str, str]]  # doc id -> (title, text)
    queries: dict[str, str]  # only the judged ones
    qrels: dict[str, dict[str, int]]


@dataclass(slots=True)
class IndexedCorpus:
    chunk_doc: dict[str, str] = field(default_factory=dict)  # chunk id -> corpus doc id
    doc_text: dict[str, str] = field(default_factory=dict)  # chunk id -> passage text
    passages: int = 0
    embedded: int = 0


def _read_jsonl(path: Path) -> Iterator[dict[str, object]]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        parts = line.split("\t")
        if len(parts) < 3 or (n == 0 and not parts[2].strip().lstrip("-").isdigit()):
            continue  # header or blank
        qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    return qrels


def load_beir(folder: Path, split: str = "test") -> BeirSet:
    need = [folder / "corpus.jsonl", folder / "queries.jsonl", folder / "qrels" / f"{split}.tsv"]
    missing = [str(p) for p in need if not p.is_file()]
    if missing:
        raise DesktopRagError(
            f"{folder} is not a BEIR folder: missing {', '.join(missing)}",
            "a BEIR folder holds corpus.jsonl, queries.jsonl and qrels/test.tsv",
        )
    corpus = {
        str(d["_id"]): (str(d.get("title", "")), str(d.get("text", "")))
        for d in _read_jsonl(need[0])
    }
    qrels = read_qrels(need[2])
    queries = {
        str(q["_id"]): str(q["text"]) for q in _read_jsonl(need[1]) if str(q["_id"]) in qrels
    }
    return BeirSet(corpus, queries, qrels)


def beir_doc_id(corpus_id: str) -> str:
    return "beir-" + re.sub(r"[^\w.-]", "_", corpus_id)


def beir_document(corpus_id: str, title: str, passages: list[str]) -> tuple[Document, list[Chunk]]:
    doc_id = beir_doc_id(corpus_id)
    path = f"beir/{corpus_id}"
    body = "\n".join(passages)
    sha = hashlib.sha256(body.encode("utf-8")).hexdigest()
    doc = Document(
        doc_id,
        path,
        title or corpus_id,
        DocKind.TEXT,
        sha,
        len(body),
        0.0,
        0,
        len(passages),
        DocStatus.PENDING,
    )
    ids = [f"{doc_id}:{i:05d}" for i in range(len(passages))]
    chunks = [
        Chunk(
            cid,
            doc_id,
            path,
            doc.title,
            DocKind.TEXT,
            text,
            i,
            (),
            (0, len(text)),
            prev_id=ids[i - 1] if i else None,
            next_id=ids[i + 1] if i + 1 < len(ids) else None,
        )
        for i, (cid, text) in enumerate(zip(ids, passages, strict=True))
    ]
    return doc, chunks


class EmbeddingCache:
    """Embeddings of one batch of texts, stored under the hash of the embedder name and texts."""

    def __init__(self, folder: Path, embedder: Embedder) -> None:
        self.folder = folder
        self.embedder = embedder

    def embed(self, texts: list[str]) -> tuple[Vector, bool]:
        key = hashlib.sha256("\x1e".join([self.embedder.name, *texts]).encode()).hexdigest()
        path = self.folder / f"{key[:32]}.npy"
        if path.is_file():
            cached: Vector = np.load(path)
            if cached.shape == (len(texts), self.embedder.dim):
                return cached, False
        vectors = self.embedder.embed_documents(texts)
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npy")
        np.save(tmp, vectors)
        tmp.replace(path)
        return vectors, True


def _batches(ids: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


def index_corpus(
    catalog: Catalog,
    vectors: VectorIndex,
    cache: EmbeddingCache,
    data: BeirSet,
    progress: ProgressCallback,
    cancel: CancelToken | None = None,
) -> IndexedCorpus:
    """Writes every corpus document through the catalog's consistency protocol:
    pending rows, then vectors, then finalize (FTS rows, `indexed`)."""
    out = IndexedCorpus()
    ids = sorted(data.corpus)
    for done, batch in enumerate(_batches(ids, BATCH_DOCS)):
        if cancel is not None:
            cancel.raise_if_cancelled()
        _index_batch(catalog, vectors, cache, data, batch, out)
        finished = min((done + 1) * BATCH_DOCS, len(ids))
        progress(ProgressEvent("embed", done=finished, total=len(ids), chunks_done=out.passages))
    return out


def _index_batch(
    catalog: Catalog,
    vectors: VectorIndex,
    cache: EmbeddingCache,
    data: BeirSet,
    batch: list[str],
    out: IndexedCorpus,
) -> None:
    count, limit = cache.embedder.count_word_pieces, cache.embedder.max_word_pieces
    docs = [
        beir_document(cid, data.corpus[cid][0], split_passages(*data.corpus[cid], count, limit))
        for cid in batch
    ]
    chunks = [c for _, doc_chunks in docs for c in doc_chunks]
    embeddings, fresh = cache.embed([c.text for c in chunks])
    out.embedded += len(chunks) if fresh else 0
    for doc, doc_chunks in docs:
        catalog.add_pending(doc, doc_chunks)
    vectors.upsert([c.chunk_id for c in chunks], embeddings, [c.doc_id for c in chunks])
    for corpus_id, (doc, doc_chunks) in zip(batch, docs, strict=True):
        catalog.finalize(doc.doc_id)
        out.chunk_doc.update((c.chunk_id, corpus_id) for c in doc_chunks)
        out.doc_text.update((c.chunk_id, c.text) for c in doc_chunks)
    out.passages += len(chunks)
