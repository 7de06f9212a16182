"""Loading the chat model while retrieval runs. On a cold `ask` both take a second or more (the
model file is mapped and its weights repacked for the CPU kernels; the query embedder starts and
the library is searched), and on two cores they need not wait for each other: the model is
built on a thread of its own (llm.worker: `load_here`), and the answer, which needs it only
after retrieval, waits for whatever is left of the load."""

from __future__ import annotations

import threading

from desktop_rag.bootstrap import AppContext


class EnginePreloader:
    """`start()` begins loading the chat model in the background unless it is loaded or loading.
    A failure is only logged here: the answer's own use of the engine raises it with its hint."""

    def __init__(self, ctx: AppContext) -> None:
        self._ctx = ctx
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        self._thread = self._ctx.preload("engine")

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)
