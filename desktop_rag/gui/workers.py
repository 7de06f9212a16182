"""Background workers: one QThread per heavy resource, jobs in, results out through signals.

The core takes callbacks and a CancelToken; a `Job` adapts them: the function runs on the
worker thread and may call `job.report(payload)`, which reaches `on_progress` on the GUI thread.
Two workers exist in the app: the LLM worker (answers, core) and the index writer (ingest,
remove, notes). Each runs one job at a time, in submission order.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal, Slot

from desktop_rag.errors import CancelledError
from desktop_rag.progress import CancelToken

log = logging.getLogger(__name__)

Handler = Callable[[Any], None]


@dataclass(eq=False)
class Job:
    """One unit of background work; `fn` receives the job itself (for report/cancel)."""

    name: str
    fn: Callable[[Job], object]
    on_done: Handler | None = None
    on_progress: Handler | None = None
    on_error: Handler | None = None
    cancel: CancelToken = field(default_factory=CancelToken)
    emitter: _Runner | None = None

    def report(self, payload: object) -> None:
        """Called on the worker thread; delivered to `on_progress` on the GUI thread."""
        if self.emitter is not None:
            self.emitter.progressed.emit(self, payload)


class _Runner(QObject):
    """Lives on the worker thread and runs jobs one after another."""

    progressed = Signal(object, object)
    finished = Signal(object, object)
    failed = Signal(object, object)

    @Slot(object)
    def run(self, job: Job) -> None:
        if job.cancel.cancelled:
            self.failed.emit(job, CancelledError())
            return
        try:
            result = job.fn(job)
        except Exception as exc:  # every failure is delivered to the GUI, never swallowed
            log.debug("job %s failed", job.name, exc_info=True)
            self.failed.emit(job, exc)
        else:
            self.finished.emit(job, result)


class SerialWorker(QObject):
    """A GUI-thread handle on one worker thread; `submit` queues a job."""

    error = Signal(object)  # exceptions of jobs without their own on_error
    busy_changed = Signal(bool)
    _dispatch = Signal(object)

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self._pending: list[Job] = []
        self._thread = QThread()
        self._thread.setObjectName(name)
        self._runner = _Runner()
        self._runner.moveToThread(self._thread)
        self._connect()
        self._thread.start()

    def _connect(self) -> None:
        self._dispatch.connect(self._runner.run)
        self._runner.progressed.connect(self._on_progress)
        self._runner.finished.connect(self._on_finished)
        self._runner.failed.connect(self._on_failed)

    @property
    def busy(self) -> bool:
        return bool(self._pending)

    def submit(
        self,
        name: str,
        fn: Callable[[Job], object],
        on_done: Handler | None = None,
        on_progress: Handler | None = None,
        on_error: Handler | None = None,
    ) -> Job:
        job = Job(name, fn, on_done, on_progress, on_error, emitter=self._runner)
        self._pending.append(job)
        if len(self._pending) == 1:
            self.busy_changed.emit(True)
        self._dispatch.emit(job)
        return job

    def cancel_all(self) -> None:
        for job in self._pending:
            job.cancel.cancel()

    def shutdown(self, wait_ms: int = 30000) -> bool:
        """Cancels everything, stops the thread and waits for it; True if it stopped in time."""
        self.cancel_all()
        self._thread.quit()
        stopped = self._thread.wait(wait_ms)
        if not stopped:
            log.warning("worker %s did not stop within %d ms", self.name, wait_ms)
        return bool(stopped)

    def _retire(self, job: Job) -> None:
        if job in self._pending:
            self._pending.remove(job)
            if not self._pending:
                self.busy_changed.emit(False)

    @Slot(object, object)
    def _on_progress(self, job: Job, payload: object) -> None:
        if job.on_progress is not None and not job.cancel.cancelled:
            job.on_progress(payload)

    @Slot(object, object)
    def _on_finished(self, job: Job, result: object) -> None:
        self._retire(job)
        if job.on_done is not None:
            job.on_done(result)

    @Slot(object, object)
    def _on_failed(self, job: Job, exc: Exception) -> None:
        self._retire(job)
        if job.on_error is not None:
            job.on_error(exc)
        elif not isinstance(exc, CancelledError):
            self.error.emit(exc)
