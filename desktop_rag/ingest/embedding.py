"""Embeds chunks, never the same text twice: vectors of identical text already in the store are
reused (fetched with get_embeddings); new texts go to the embedder in length-sorted batches."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from desktop_rag.domain import Chunk
from desktop_rag.domain.progress import CancelToken
from desktop_rag.domain.protocols import (
    DocumentEmbedder,
    Embedder,
    ThreadCounting,
    Vector,
    VectorIndex,
    WordPieceCounter,
)
from desktop_rag.store.documents import Catalog, text_sha

BATCH = 32  # the most texts per embedder call
BATCH_CHARS = 18_000
MAX_DONORS = 3


@dataclass(slots=True)
class EmbedStats:
    """What an ingestion reports: how many texts the model embedded (reused vectors not)."""

    embedded_texts: int = 0


class GuardedEmbedder:
    """Serializes calls into one embedder shared by the extraction and embedding threads
    (a Hugging Face fast tokenizer must not be used by two threads at once), and loads it only
    when first needed (re-ingesting an unchanged folder never loads the model)."""

    def __init__(self, inner: Embedder | Callable[[], Embedder]) -> None:
        self._inner = inner
        self._lock = threading.RLock()

    @property
    def inner(self) -> Embedder:
        with self._lock:
            if not isinstance(self._inner, DocumentEmbedder):
                self._inner = self._inner()
            return self._inner

    @property
    def name(self) -> str:
        return self.inner.name

    @name.setter
    def name(self, value: str) -> None:
        raise AttributeError("read-only")

    @property
    def dim(self) -> int:
        return self.inner.dim

    @dim.setter
    def dim(self, value: int) -> None:
        raise AttributeError("read-only")

    @property
    def max_word_pieces(self) -> int:
        return self.inner.max_word_pieces

    @max_word_pieces.setter
    def max_word_pieces(self, value: int) -> None:
        raise AttributeError("read-only")

    def embed_documents(self, texts: Sequence[str]) -> Vector:
        inner = self.inner
        with self._lock:
            return inner.embed_documents(texts)

    def embed_query(self, text: str) -> Vector:
        with self._lock:
            return self.inner.embed_query(text)

    def count_word_pieces(self, texts: Sequence[str]) -> list[int]:
        with self._lock:
            return self.inner.count_word_pieces(texts)

    def thread_counter(self) -> WordPieceCounter:
        """A word-piece counter for another thread: the embedder's own copy of its tokenizer
        when it offers one (counting then never waits for an embedding batch), else this."""
        inner = self.inner
        return inner.thread_counter() if isinstance(inner, ThreadCounting) else self


def batches(texts: Sequence[str]) -> Iterator[slice]:
    """Consecutive slices of length-sorted texts: at most BATCH texts and BATCH_CHARS characters
    (about 4,000 word pieces, well under a second), so a cancel is seen quickly."""
    start = 0
    while start < len(texts):
        end, chars = start, 0
        while end < len(texts) and end - start < BATCH and (
            end == start or chars + len(texts[end]) <= BATCH_CHARS
        ):
            chars += len(texts[end])
            end += 1
        yield slice(start, end)
        start = end


def _reusable(catalog: Catalog, vectors: VectorIndex, shas: list[str]) -> dict[str, Vector]:
    donors = catalog.chunk_ids_with_text(shas)
    wanted = [cid for ids in donors.values() for cid in ids[:MAX_DONORS]]
    found = vectors.get_embeddings(wanted) if wanted else {}
    out: dict[str, Vector] = {}
    for sha, ids in donors.items():
        for cid in ids[:MAX_DONORS]:
            if cid in found:
                out[sha] = found[cid]
                break
    return out


def embed_chunks(
    chunks: Sequence[Chunk],
    catalog: Catalog,
    vectors: VectorIndex,
    embedder: Embedder,
    cancel: CancelToken | None = None,
    stats: EmbedStats | None = None,
) -> Vector:
    """One vector per chunk (rows in `chunks` order). Raises CancelledError between batches."""
    stats = stats if stats is not None else EmbedStats()
    shas = [text_sha(c.text) for c in chunks]
    known = _reusable(catalog, vectors, sorted(set(shas)))
    todo = {s: c.text for s, c in zip(shas, chunks, strict=True) if s not in known}
    order = sorted(todo, key=lambda s: len(todo[s]))
    for window in batches([todo[s] for s in order]):
        if cancel is not None:
            cancel.raise_if_cancelled()
        part = order[window]
        got = embedder.embed_documents([todo[s] for s in part])
        stats.embedded_texts += len(part)
        known.update(zip(part, np.asarray(got, dtype=np.float32), strict=True))
    if not chunks:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    return np.stack([known[s] for s in shas]).astype(np.float32)


