"""What both embedder adapters use, importing neither torch nor onnxruntime: word pieces counted
with a tokenizer of the counter's own, the model's readable name, and the query/passage prefixes
some models need (`with_prefixes`; read from the model folder by store.spaces).

`embedder` (torch) and `embedder_onnx` both import this module, and neither imports the other's
module for it, so the ONNX adapter never pulls torch in.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from desktop_rag.domain.protocols import Embedder, ThreadCounting, Vector, WordPieceCounter
from desktop_rag.store import spaces


@runtime_checkable
class FastTokenizer(Protocol):
    """A `tokenizers.Tokenizer`: the Rust core of a fast Hugging Face tokenizer."""

    def encode_batch(self, inputs: list[str], add_special_tokens: bool = True) -> list[Any]: ...

    def no_truncation(self) -> None: ...

    def no_padding(self) -> None: ...


@runtime_checkable
class FastestTokenizer(FastTokenizer, Protocol):
    """A `tokenizers.Tokenizer` of a release with `encode_batch_fast` (no offsets computed)."""

    def encode_batch_fast(
        self, inputs: list[str], add_special_tokens: bool = True
    ) -> list[Any]: ...


@runtime_checkable
class WrapsFastTokenizer(Protocol):
    """A Hugging Face fast tokenizer (a Python wrapper around its Rust core)."""

    backend_tokenizer: FastTokenizer


def count_with(tokenizer: Any, texts: Sequence[str]) -> list[int]:
    """Word pieces per text (no special tokens, no truncation) with a Hugging Face tokenizer."""
    if not texts:
        return []
    encoded = tokenizer(list(texts), add_special_tokens=False, truncation=False, verbose=False)
    return [len(ids) for ids in encoded["input_ids"]]


class TokenizerCounter:
    """A WordPieceCounter over its own copy of a tokenizer (a Hugging Face wrapper or a
    `tokenizers.Tokenizer`), so it can count on a thread other than the embedder's. A fast
    tokenizer is used through its Rust core (`encode_batch_fast`: no offsets, no Python
    conversion of each encoding), about 1.5x the counting speed of the wrapper."""

    def __init__(self, tokenizer: Any, max_word_pieces: int) -> None:
        self.max_word_pieces = max_word_pieces
        wrapped = isinstance(tokenizer, WrapsFastTokenizer)
        core = tokenizer.backend_tokenizer if wrapped else tokenizer
        self._core = copy.deepcopy(core) if isinstance(core, FastTokenizer) else None
        self._tokenizer = copy.deepcopy(tokenizer) if self._core is None else None
        self._encode = None if self._core is None else _batch_encoder(self._core)

    def copy(self) -> TokenizerCounter:
        """Another counter with a tokenizer of its own."""
        return TokenizerCounter(self._core or self._tokenizer, self.max_word_pieces)

    def count_word_pieces(self, texts: Sequence[str]) -> list[int]:
        if self._encode is None:
            return count_with(self._tokenizer, texts)
        if not texts:
            return []
        return [len(enc.ids) for enc in self._encode(list(texts), add_special_tokens=False)]


def _batch_encoder(core: FastTokenizer) -> Callable[..., list[Any]]:
    """The core's fastest batch encoder, without truncation or padding (checked once: a
    Protocol check costs more than counting a short batch)."""
    core.no_truncation()
    core.no_padding()
    return core.encode_batch_fast if isinstance(core, FastestTokenizer) else core.encode_batch


def model_name(model_dir: Path) -> str:
    """A readable model name: the folder's name, or its package's for the packaged model."""
    return spaces.model_name(model_dir)


def with_prefixes(embedder: Embedder, model_dir: Path) -> Embedder:
    """`embedder` with the model folder's query/passage prefixes, when it declares any."""
    prefixes = spaces.read_prefixes(model_dir)
    if not prefixes.query and not prefixes.passage:
        return embedder
    return PrefixedEmbedder(embedder, prefixes)


class PrefixedEmbedder:
    """Puts the model's prefixes before every query and passage (e5: "query: ", "passage: ").

    Chunks are counted without the prefix, so the passage prefix's word pieces come off the
    length limit the chunker sees: a chunk plus its prefix still fits the model."""

    def __init__(self, inner: Embedder, prefixes: spaces.Prefixes) -> None:
        self.inner, self.prefixes = inner, prefixes
        self.name = f"{inner.name} [prefixed]"
        self.dim = inner.dim
        spent = inner.count_word_pieces([prefixes.passage])[0] if prefixes.passage else 0
        self.max_word_pieces = inner.max_word_pieces - spent

    def embed_documents(self, texts: Sequence[str]) -> Vector:
        return self.inner.embed_documents([self.prefixes.passage + t for t in texts])

    def embed_query(self, text: str) -> Vector:
        return self.inner.embed_query(self.prefixes.query + text)

    def count_word_pieces(self, texts: Sequence[str]) -> list[int]:
        return self.inner.count_word_pieces(texts)

    def thread_counter(self) -> WordPieceCounter:
        inner = self.inner
        counter = inner.thread_counter() if isinstance(inner, ThreadCounting) else inner
        return _LimitedCounter(counter, self.max_word_pieces)


class _LimitedCounter:
    """A word-piece counter that reports a lower length limit (the prefix's share taken off)."""

    def __init__(self, inner: WordPieceCounter, max_word_pieces: int) -> None:
        self._inner, self.max_word_pieces = inner, max_word_pieces

    def count_word_pieces(self, texts: Sequence[str]) -> list[int]:
        return self._inner.count_word_pieces(texts)
