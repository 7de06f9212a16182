"""Progress reporting and cancellation as plain callbacks; the GUI adapts them to signals."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from desktop_rag.errors import CancelledError


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    stage: str  # "scan", "extract", "embed", "file-done", "build", "download", ...
    done: int = 0
    total: int = 0
    message: str = ""
    files_done: int = 0
    files_total: int = 0
    pages_done: int = 0
    chunks_done: int = 0
    eta_s: float | None = None


ProgressCallback = Callable[[ProgressEvent], None]


def no_progress(_event: ProgressEvent) -> None:
    """A progress callback that ignores everything."""


class CancelToken:
    """Thread-safe cancellation flag checked by long-running core operations."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise CancelledError()
