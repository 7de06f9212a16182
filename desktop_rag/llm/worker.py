"""One thread owns the chat engine; every call is queued to it.

`EngineWorker` is itself a `ChatEngine`, so callers on any thread (CLI, GUI workers, the LLM
reranker) use it like the engine; `run(fn)` executes any other engine operation (core cache
build, state restore) on the owning thread too.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any, TypeVar

from desktop_rag.errors import LLMError
from desktop_rag.progress import CancelToken
from desktop_rag.protocols import ChatEngine, ChatMessage, Generation, TokenCallback

log = logging.getLogger(__name__)
T = TypeVar("T")
_Job = tuple[Callable[[Any], Any], Future[Any]]


class EngineWorker:
    """Builds the engine on its own thread with `factory` and serves queued calls in order."""

    def __init__(self, factory: Callable[[], Any], name: str = "llm-worker") -> None:
        self._jobs: queue.Queue[_Job | None] = queue.Queue()
        self._ready: Future[Any] = Future()
        self._thread = threading.Thread(target=self._serve, args=(factory,), name=name, daemon=True)
        self._thread.start()
        self._engine: Any = self._ready.result()  # re-raises a load failure here
        self.name: str = self._engine.name
        self.gpu_offload: bool = self._engine.gpu_offload
        self.context_size: int = self._engine.context_size

    @property
    def engine(self) -> Any:
        """The wrapped engine; touch it only through `run`."""
        return self._engine

    def _serve(self, factory: Callable[[], Any]) -> None:
        try:
            engine = factory()
        except BaseException as exc:  # handed to the constructor's caller
            self._ready.set_exception(exc)
            return
        self._ready.set_result(engine)
        while (job := self._jobs.get()) is not None:
            fn, future = job
            if future.set_running_or_notify_cancel():
                _complete(future, fn, engine)
        _close(engine)

    def submit(self, fn: Callable[[Any], T]) -> Future[T]:
        if not self._thread.is_alive():
            raise LLMError("The language model has been closed")
        future: Future[T] = Future()
        self._jobs.put((fn, future))
        return future

    def run(self, fn: Callable[[Any], T]) -> T:
        """Runs `fn(engine)` on the engine's thread and waits for its result."""
        if threading.current_thread() is self._thread:
            return fn(self._engine)
        return self.submit(fn).result()

    def generate(
        self,
        messages: Sequence[ChatMessage],
        max_tokens: int,
        on_token: TokenCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> Generation:
        result: Generation = self.run(lambda e: e.generate(messages, max_tokens, on_token, cancel))
        return result

    def count_tokens(self, text: str) -> int:
        return self.run(lambda e: int(e.count_tokens(text)))

    def close(self) -> None:
        if self._thread.is_alive():
            self._jobs.put(None)
            self._thread.join(timeout=30)


def run_on_engine(engine: ChatEngine, fn: Callable[[Any], T]) -> T:
    """Runs `fn` on the engine's owning thread (directly for engines without a worker)."""
    if isinstance(engine, EngineWorker):
        return engine.run(fn)
    return fn(engine)


def unwrap(engine: ChatEngine) -> Any:
    """The engine behind a worker (for capability checks only, never for calls)."""
    return engine.engine if isinstance(engine, EngineWorker) else engine


def _complete(future: Future[Any], fn: Callable[[Any], Any], engine: Any) -> None:
    try:
        future.set_result(fn(engine))
    except BaseException as exc:  # the caller re-raises it
        future.set_exception(exc)


def _close(engine: Any) -> None:
    closer = getattr(engine, "close", None)
    if callable(closer):
        try:
            closer()
        except Exception:
            log.exception("closing the chat engine failed")
