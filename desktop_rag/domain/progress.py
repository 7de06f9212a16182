"""Progress reporting and cancellation as plain callbacks; the GUI adapts them to signals."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from desktop_rag.domain.errors import CancelledError

# What a long operation is doing: ingestion (scan, embed, file-done), the table pass after it
# (tables), a core build, a model's download, verification or assembly, and an evaluation (query,
# answer). Shown as the progress bar's label and compared by the CLI and the GUI; the strings
# stay as they are for both.
ProgressStage = Literal[
    "scan", "embed", "file-done", "tables", "build", "download", "verify", "assemble", "query",
    "answer",
]


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    stage: ProgressStage
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
