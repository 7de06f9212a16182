"""The worker processes that read pages beside the ingestion thread (OCR, tables)."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from desktop_rag.domain.errors import CancelledError

POLL_S = 0.1  # how often a wait for a page checks whether the ingestion was cancelled


class PageWorkers:
    """Processes that read pages side by side, one per core (PyMuPDF cannot share a process
    between threads): OCR of scanned pages and the table pass of tabular ones. Started at the
    first page that needs one, stopped by `close`."""

    def __init__(self, processes: int = 0, stopping: Callable[[], bool] = lambda: False) -> None:
        self.processes = processes or max(os.cpu_count() or 1, 1)
        self.stopping = stopping  # True once the ingestion is cancelled: waits end
        self._pool: ProcessPoolExecutor | None = None

    def result(self, future: Future[Any]) -> Any:
        """The future's result; CancelledError as soon as the ingestion is cancelled."""
        while True:
            try:
                return future.result(timeout=POLL_S)
            except TimeoutError:
                if self.stopping():
                    future.cancel()
                    raise CancelledError() from None

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        if self._pool is None:
            spawn = multiprocessing.get_context("spawn")  # never fork a process with threads
            self._pool = ProcessPoolExecutor(
                self.processes, mp_context=spawn, initializer=_start_worker
            )
        return self._pool.submit(fn, *args)

    def close(self) -> None:
        """Stops the workers; one busy with a page exits when that page is done."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def _start_worker() -> None:
    from desktop_rag.ingest.table_speedups import one_onnx_thread

    _quiet_stderr()
    one_onnx_thread()  # one worker per core already (ingest/table_speedups.py)


def _quiet_stderr() -> None:
    """In a worker: Tesseract prints a line per unreadable word ("Line cannot be recognized!!")
    straight to the stderr file; errors come back to the caller as exceptions instead."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)
