"""The seams between components. Real adapters and the fakes in `desktop_rag.domain.fakes` both
implement these, so every component can be tested alone and swapped in the composition root."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from desktop_rag.domain import EVERYWHERE, Chunk, DocScope, PageRefs
from desktop_rag.domain.progress import CancelToken

Vector = npt.NDArray[np.float32]


class Embedder(Protocol):
    """Turns text into L2-normalised float32 vectors."""

    name: str
    dim: int
    max_word_pieces: int  # longer input is silently truncated by the model

    def embed_documents(self, texts: Sequence[str]) -> Vector: ...  # shape (n, dim)

    def embed_query(self, text: str) -> Vector: ...  # shape (dim,)

    def count_word_pieces(self, texts: Sequence[str]) -> list[int]: ...  # without special tokens


@runtime_checkable
class DocumentEmbedder(Protocol):
    """What tells an embedder from a function that makes one (a lazy embedder). Methods only:
    checking an object against it never runs a property, which might load the model."""

    def embed_documents(self, texts: Sequence[str]) -> Vector: ...


class WordPieceCounter(Protocol):
    """Counts an embedder's word pieces (what chunking needs of the embedder)."""

    max_word_pieces: int

    def count_word_pieces(self, texts: Sequence[str]) -> list[int]: ...  # without special tokens


@runtime_checkable
class ThreadCounting(Protocol):
    """An embedder that can give another thread a word-piece counter of its own (a copy of its
    tokenizer), so that chunking there never waits for an embedding batch."""

    def thread_counter(self) -> WordPieceCounter: ...


@runtime_checkable
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
Role = Literal["system", "user", "assistant"]
StopReason = Literal["stop", "length", "cancel", "repetition"]  # why a generation ended


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: Role
    content: str


@dataclass(slots=True)
class Generation:
    text: str
    prompt_tokens: int = 0
    cached_tokens: int = 0
    generated_tokens: int = 0
    ttft_ms: float = 0.0
    total_ms: float = 0.0
    stopped_by: StopReason = "stop"
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


@runtime_checkable
class SteppedPrefill(Protocol):
    """An engine that evaluates a long prompt in steps and calls `between_steps` (when set)
    after each, so that light calls (searches, embedding batches) queued meanwhile need not
    wait for the whole prompt."""

    between_steps: Callable[[], object] | None


@runtime_checkable
class Closeable(Protocol):
    """A part holding resources (a model, a process, a connection) to release when done."""

    def close(self) -> None: ...


@runtime_checkable
class PromptTokens(Protocol):
    """An engine with token access (a local model, not a server): it renders a chat with its
    own template and tokenizes the text, so a caller can work on the prompt's tokens."""

    def render(self, messages: Sequence[ChatMessage]) -> str: ...

    def tokenize_prompt(self, text: str) -> list[int]: ...


@runtime_checkable
class TokenGenerating(PromptTokens, Protocol):
    """Generates from prompt tokens, reporting the prompt evaluation's progress."""

    def generate_tokens(
        self,
        tokens: Sequence[int],
        max_tokens: int,
        on_token: TokenCallback | None = None,
        cancel: CancelToken | None = None,
        fresh: bool = False,
        on_prefill: PrefillCallback | None = None,
    ) -> Generation: ...


@runtime_checkable
class TokenScoring(PromptTokens, Protocol):
    """Gives the logits of candidate next tokens after a prompt (what the LLM re-ranker uses)."""

    def next_token_logits(
        self, tokens: Sequence[int], candidates: Sequence[int]
    ) -> list[float]: ...
