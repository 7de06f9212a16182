"""The seams between components. Real adapters and the fakes in `desktop_rag.testing` both
implement these, so every component can be tested alone and swapped in the composition root."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import numpy.typing as npt

from desktop_rag.domain import EVERYWHERE, Chunk, DocScope, PageRefs
from desktop_rag.progress import CancelToken

Vector = npt.NDArray[np.float32]


class Embedder(Protocol):
    """Turns text into L2-normalised float32 vectors."""

    name: str
    dim: int
    max_word_pieces: int  # longer input is silently truncated by the model

    def embed_documents(self, texts: Sequence[str]) -> Vector: ...  # shape (n, dim)

    def embed_query(self, text: str) -> Vector: ...  # shape (dim,)

    def count_word_pieces(self, texts: Sequence[str]) -> list[int]: ...  # without special tokens


class WordPieceCounter(Protocol):
    """Counts an embedder's word pieces (what chunking needs of the embedder)."""

    max_word_pieces: int

    def count_word_pieces(self, texts: Sequence[str]) -> list[int]: ...  # without special tokens


class TokenCounter(Protocol):
    """Counts LLM tokens (tiktoken) for budgets."""

    def count(self, text: str) -> int: ...

    def truncate(self, text: str, max_tokens: int) -> str: ...


class VectorIndex(Protocol):
    def upsert(self, ids: Sequence[str], embeddings: Vector, doc_ids: Sequence[str]) -> None: ...

    def delete(self, ids: Sequence[str]) -> None: ...

    def query(
        self, embedding: Vector, k: int, scope: DocScope = EVERYWHERE
    ) -> list[tuple[str, float]]: ...  # (chunk_id, cosine similarity), best first

    def get_embeddings(self, ids: Sequence[str]) -> dict[str, Vector]: ...

    def all_ids(self) -> set[str]: ...

    def count(self) -> int: ...


class SparseIndex(Protocol):
    def search(
        self, query: str, k: int, scope: DocScope = EVERYWHERE
    ) -> list[tuple[str, float]]: ...  # (chunk_id, bm25 score; higher is better), best first


class ChunkLookup(Protocol):
    """Reads chunks of searchable (indexed) documents only."""

    def get_chunks(self, ids: Sequence[str]) -> dict[str, Chunk]: ...


class PageLookup(Protocol):
    def chunk_ids_on_pages(self, doc_ids: Collection[str], pages: PageRefs) -> list[str]: ...


class Reranker(Protocol):
    name: str

    def score(self, query: str, texts: Sequence[str]) -> list[float]: ...  # higher is better


TokenCallback = Callable[[str], None]
PrefillCallback = Callable[[int, int], None]  # (prompt tokens evaluated, tokens to evaluate)


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: str  # system | user | assistant
    content: str


@dataclass(slots=True)
class Generation:
    text: str
    prompt_tokens: int = 0
    cached_tokens: int = 0
    generated_tokens: int = 0
    ttft_ms: float = 0.0
    total_ms: float = 0.0
    stopped_by: str = "stop"  # stop | length | cancel | repetition
    extra: dict[str, float] = field(default_factory=dict)


class ChatEngine(Protocol):
    """A chat model. Implementations are not thread-safe: one thread owns each instance."""

    name: str
    gpu_offload: bool
    context_size: int

    def generate(
        self,
        messages: Sequence[ChatMessage],
        max_tokens: int,
        on_token: TokenCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> Generation: ...

    def count_tokens(self, text: str) -> int: ...
