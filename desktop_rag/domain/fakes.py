"""Deterministic fakes shipped with the package, for tests of components in isolation."""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Sequence

import numpy as np

from desktop_rag.domain import EVERYWHERE, DocScope
from desktop_rag.domain.progress import CancelToken
from desktop_rag.domain.protocols import ChatMessage, Generation, StopReason, TokenCallback, Vector

_WORD = re.compile(r"\w+", re.UNICODE)


class HashEmbedder:
    """Bag-of-words hashed into `dim` buckets: texts sharing words get similar vectors."""

    name = "hash-embedder"

    def __init__(self, dim: int = 64, max_word_pieces: int = 256) -> None:
        self.dim = dim
        self.max_word_pieces = max_word_pieces
        self.calls = 0
        self.embedded_texts = 0

    def _vector(self, text: str) -> Vector:
        vec = np.zeros(self.dim, dtype=np.float32)
        for word in _WORD.findall(text.lower())[: self.max_word_pieces]:
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            vec[int.from_bytes(digest[:4], "little") % self.dim] += 1.0
        norm = float(np.linalg.norm(vec))
        return vec / norm if norm else vec

    def embed_documents(self, texts: Sequence[str]) -> Vector:
        self.calls += 1
        self.embedded_texts += len(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vector(t) for t in texts])

    def embed_query(self, text: str) -> Vector:
        return self._vector(text)

    def count_word_pieces(self, texts: Sequence[str]) -> list[int]:
        return [len(_WORD.findall(t)) for t in texts]


class WordTokenCounter:
    """Counts words as tokens."""

    def count(self, text: str) -> int:
        return len(_WORD.findall(text))

    def truncate(self, text: str, max_tokens: int) -> str:
        words = list(_WORD.finditer(text))
        if len(words) <= max_tokens:
            return text
        return text[: words[max_tokens - 1].end()] if max_tokens > 0 else ""


class InMemoryVectorIndex:
    """Exact cosine search over a dict; same contract as the Chroma adapter."""

    def __init__(self) -> None:
        self._vectors: dict[str, Vector] = {}
        self._docs: dict[str, str] = {}

    def upsert(self, ids: Sequence[str], embeddings: Vector, doc_ids: Sequence[str]) -> None:
        for chunk_id, vec, doc_id in zip(ids, embeddings, doc_ids, strict=True):
            self._vectors[chunk_id] = np.asarray(vec, dtype=np.float32)
            self._docs[chunk_id] = doc_id

    def delete(self, ids: Sequence[str]) -> None:
        for chunk_id in ids:
            self._vectors.pop(chunk_id, None)
            self._docs.pop(chunk_id, None)

    def query(
        self, embedding: Vector, k: int, scope: DocScope = EVERYWHERE
    ) -> list[tuple[str, float]]:
        scored = [
            (cid, float(np.dot(vec, embedding)))
            for cid, vec in self._vectors.items()
            if scope.allows(self._docs[cid])
        ]
        return sorted(scored, key=lambda item: -item[1])[:k]

    def get_embeddings(self, ids: Sequence[str]) -> dict[str, Vector]:
        return {cid: self._vectors[cid] for cid in ids if cid in self._vectors}

    def all_ids(self) -> set[str]:
        return set(self._vectors)

    def count(self) -> int:
        return len(self._vectors)


class FakeChatEngine:
    """Answers with a scripted reply, streamed word by word; records the prompts it saw."""

    name = "fake-chat"
    gpu_offload = False

    def __init__(self, reply: str = "I don't know.", context_size: int = 4096) -> None:
        self.reply = reply
        self.context_size = context_size
        self.prompts: list[list[ChatMessage]] = []

    def count_tokens(self, text: str) -> int:
        return len(_WORD.findall(text))

    def generate(
        self,
        messages: Sequence[ChatMessage],
        max_tokens: int,
        on_token: TokenCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> Generation:
        start = time.perf_counter()
        self.prompts.append(list(messages))
        pieces = re.findall(r"\S+\s*", self.reply)[:max_tokens]
        out: list[str] = []
        stopped_by: StopReason = "stop"
        for piece in pieces:
            if cancel is not None and cancel.cancelled:
                stopped_by = "cancel"
                break
            out.append(piece)
            if on_token is not None:
                on_token(piece)
        prompt_tokens = sum(self.count_tokens(m.content) for m in messages)
        elapsed = (time.perf_counter() - start) * 1000
        return Generation("".join(out), prompt_tokens, 0, len(out), elapsed, elapsed, stopped_by)
