"""One thread owns the chat engine (the compute thread, see desktop_rag.llm.compute_thread);
every call is queued to it.

`EngineWorker` is itself a `ChatEngine`, so callers on any thread (CLI, GUI workers, the LLM
reranker) use it like the engine; `run(fn)` executes any other engine operation (core cache
build, state restore) on the owning thread too.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import TypeVar

from desktop_rag.domain.errors import DesktopRagError, LLMError
from desktop_rag.domain.progress import CancelToken
from desktop_rag.domain.protocols import (
    ChatEngine,
    ChatMessage,
    Closeable,
    Generation,
    SteppedPrefill,
    TokenCallback,
    TokenGenerating,
)
from desktop_rag.llm.compute_thread import ComputeThread

log = logging.getLogger(__name__)
T = TypeVar("T")


class EngineWorker:
    """Builds the engine with `factory` on the compute thread and runs every call there.

    Given no compute thread it makes one of its own (and closes it with the engine)."""

    def __init__(
        self,
        factory: Callable[[], ChatEngine],
        compute: ComputeThread | None = None,
        name: str = "llm-worker",
        load_here: bool = False,
    ) -> None:
        """`load_here`: the engine is built on the calling thread, every call after that runs
        on the compute thread. Loading a model file computes nothing on OpenMP's threads, and
        it takes a second or more, so a cold `ask` loads it on a thread of its own while the
        compute thread embeds the query (AnswerService preloads it)."""
        self._owned = compute is None
        self._compute = compute or ComputeThread(name)
        self._closed = False
        # a load failure is raised here
        self._engine: ChatEngine = factory() if load_here else self._compute.run(factory)
        if isinstance(self._engine, SteppedPrefill):  # long prompt evaluations let light calls in
            self._engine.between_steps = self._compute.run_light
        self.name: str = self._engine.name
        self.gpu_offload: bool = self._engine.gpu_offload
        self.context_size: int = self._engine.context_size

    @property
    def engine(self) -> ChatEngine:
        """The wrapped engine; touch it only through `run`."""
        return self._engine

    def submit(self, fn: Callable[[ChatEngine], T]) -> Future[T]:
        if self._closed:
            raise LLMError("The language model has been closed")
        return self._compute.submit(lambda: fn(self._engine))

    def run(self, fn: Callable[[ChatEngine], T]) -> T:
        """Runs `fn(engine)` on the engine's thread and waits for its result."""
        if self._compute.on_thread:
            return fn(self._engine)
        return self.submit(fn).result()

    def generate(
        self,
        messages: Sequence[ChatMessage],
        max_tokens: int,
        on_token: TokenCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> Generation:
        token = self.interleaving(on_token)
        result: Generation = self.run(lambda e: e.generate(messages, max_tokens, token, cancel))
        return result

    def interleaving(self, on_token: TokenCallback | None) -> TokenCallback:
        """`on_token`, then the light calls (searches, embedding batches) queued meanwhile."""
        compute = self._compute

        def token(piece: str) -> None:
            if on_token is not None:
                on_token(piece)
            compute.run_light()

        return token

    def count_tokens(self, text: str) -> int:
        return self.run(lambda e: int(e.count_tokens(text)))

    def close(self) -> None:
        if self._closed:
            return
        try:
            self._compute.run(lambda: _close(self._engine))
        except DesktopRagError:
            log.warning("the compute thread was closed before the chat engine")
        self._closed = True
        if self._owned:
            self._compute.close()


def run_on_engine(engine: ChatEngine, fn: Callable[[ChatEngine], T]) -> T:
    """Runs `fn` on the engine's owning thread (directly for engines without a worker)."""
    if isinstance(engine, EngineWorker):
        return engine.run(fn)
    return fn(engine)


def token_generating(engine: object) -> TokenGenerating:
    """`engine` typed as TokenGenerating, for a caller that checked it through `unwrap`."""
    if not isinstance(engine, TokenGenerating):
        raise LLMError("The chat model gives no token access (an LLM server does not)")
    return engine


def interleaving(engine: ChatEngine, on_token: TokenCallback | None) -> TokenCallback | None:
    """A token callback that lets light calls run between tokens (engines with a worker)."""
    return engine.interleaving(on_token) if isinstance(engine, EngineWorker) else on_token


def unwrap(engine: ChatEngine) -> object:
    """The engine behind a worker, for capability checks only (`isinstance` against a Protocol
    such as `PrefixEngine` or `TokenGenerating`); calls go through `run_on_engine`."""
    return engine.engine if isinstance(engine, EngineWorker) else engine


def _close(engine: object) -> None:
    if isinstance(engine, Closeable):
        try:
            engine.close()
        except Exception:
            log.exception("closing the chat engine failed")
