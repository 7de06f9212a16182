"""One thread runs all of the process's OpenMP work: the torch embedder (and cross-encoder) and
llama.cpp.

torch and llama.cpp share one libgomp. Every thread that starts parallel work gets a pool of
OpenMP threads of its own, and once the process has more OpenMP threads than cores, libgomp
stops spinning at barriers and parks threads in the kernel instead: llama.cpp's CPU backend
meets a barrier after every operation, so token generation on a second thread ran at 27-28
tokens/s instead of 66-70 (SmolLM2, 2 cores) and 9.7 instead of 13.2 (Qwen2.5 1.5B) once the
embedder had run on another thread. With both on this thread there is a single pool.

Calls from any thread are queued and run in order; a call made on the thread itself runs at once
(no deadlock when, say, code running here embeds). Short "light" calls (embedding, re-ranking) do
not wait for a whole answer: a long generation runs the light calls queued meanwhile between two
tokens (`run_light`), so a search or an ingestion batch waits one token, not one answer.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any, TypeVar

import numpy as np

from desktop_rag.domain.errors import DesktopRagError
from desktop_rag.domain.protocols import (
    Embedder,
    Reranker,
    ThreadCounting,
    Vector,
    WordPieceCounter,
)

T = TypeVar("T")
_Job = tuple[Callable[[], Any], Future[Any], bool]  # call, its future, light


class ComputeThread:
    """A long-lived thread that runs submitted calls one at a time, in order."""

    def __init__(self, name: str = "compute") -> None:
        self._jobs: deque[_Job | None] = deque()
        self._wake = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    @property
    def on_thread(self) -> bool:
        return threading.current_thread() is self._thread

    def _next(self) -> _Job | None:
        with self._wake:
            self._wake.wait_for(lambda: bool(self._jobs))
            return self._jobs.popleft()

    def _serve(self) -> None:
        while (job := self._next()) is not None:
            _execute(job)

    def run_light(self) -> int:
        """On the thread, between steps of a long call: runs the light calls waiting now."""
        with self._wake:
            light = [job for job in self._jobs if job is not None and job[2]]
            for job in light:
                self._jobs.remove(job)
        for job in light:
            _execute(job)
        return len(light)

    def submit(self, fn: Callable[[], T], light: bool = False) -> Future[T]:
        future: Future[T] = Future()
        with self._wake:
            if self._closed:
                raise DesktopRagError("The compute thread has been closed")
            self._jobs.append((fn, future, light))
            self._wake.notify()
        return future

    def run(self, fn: Callable[[], T], light: bool = False) -> T:
        """Runs `fn()` on the thread and waits for its result (at once when already there)."""
        if self.on_thread:
            return fn()
        return self.submit(fn, light).result()

    def close(self, timeout: float = 30.0) -> None:
        with self._wake:
            if self._closed:
                return
            self._closed = True
            self._jobs.append(None)
            self._wake.notify()
        if not self.on_thread:
            self._thread.join(timeout=timeout)


def _execute(job: _Job) -> None:
    fn, future, _ = job
    if future.set_running_or_notify_cancel():
        try:
            future.set_result(fn())
        except BaseException as exc:  # the caller re-raises it
            future.set_exception(exc)


class ComputeEmbedder:
    """An Embedder whose model runs on the compute thread (loaded there too)."""

    def __init__(self, load: Callable[[], Embedder], compute: ComputeThread) -> None:
        self._compute = compute
        self._inner = compute.run(load)
        self.name = self._inner.name
        self.dim = self._inner.dim
        self.max_word_pieces = self._inner.max_word_pieces

    @property
    def inner(self) -> Embedder:
        return self._inner

    def embed_documents(self, texts: Sequence[str]) -> Vector:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._compute.run(lambda: self._inner.embed_documents(texts), light=True)

    def embed_query(self, text: str) -> Vector:
        return self._compute.run(lambda: self._inner.embed_query(text), light=True)

    def count_word_pieces(self, texts: Sequence[str]) -> list[int]:
        return self._compute.run(lambda: self._inner.count_word_pieces(texts), light=True)

    def thread_counter(self) -> WordPieceCounter:
        """The inner embedder's counter for other threads (made here: it copies the tokenizer)."""
        inner = self._inner
        if not isinstance(inner, ThreadCounting):
            return self
        return self._compute.run(inner.thread_counter, light=True)


class ComputeReranker:
    """A Reranker whose model runs on the compute thread."""

    def __init__(self, inner: Reranker, compute: ComputeThread) -> None:
        self._inner = inner
        self._compute = compute
        self.name = inner.name

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        return self._compute.run(lambda: self._inner.score(query, passages), light=True)
