"""Background workers: one QThread per heavy resource, jobs in, results out through signals.

The core takes callbacks and a CancelToken; a `Job[T, P]` adapts them: its function runs on the
worker thread and may call `job.report(payload)` with a `P` (a ProgressEvent, a piece of text),
which reaches `on_progress` on the GUI thread; the `T` it returns reaches `on_done`, and what it
raises reaches `on_error`, both on the GUI thread. Neither travels as a bare `object`: the worker
thread hands the GUI thread a delivery closure made inside the typed job, so a handler gets
exactly the type the function returns or reports and needs no re-check.

Three workers exist in the app: the LLM worker (answers, core), the index writer (ingest,
remove, notes) and a reader for quick lists. Each runs one job at a time, in submission order.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QObject, QThread, Signal, Slot

from desktop_rag.domain.errors import CancelledError
from desktop_rag.domain.progress import CancelToken

log = logging.getLogger(__name__)

T = TypeVar("T")  # what the job's function returns
P = TypeVar("P")  # what it reports as progress
ErrorHandler = Callable[[BaseException], None]
Delivery = Callable[[], None]


@dataclass(eq=False)
class Job(Generic[T, P]):
    """One unit of background work; `fn` receives the job itself (for report/cancel)."""

    name: str
    fn: Callable[[Job[T, P]], T]
    on_done: Callable[[T], None] | None = None
    on_progress: Callable[[P], None] | None = None
    on_error: ErrorHandler | None = None
    cancel: CancelToken = field(default_factory=CancelToken)
    emitter: _Runner | None = None

    def report(self, payload: P) -> None:
        """Called on the worker thread; delivered to `on_progress` on the GUI thread."""
        if self.emitter is not None:
            self.emitter.progressed.emit(self, lambda: self._progressed(payload))

    def _progressed(self, payload: P) -> None:
        if self.on_progress is not None and not self.cancel.cancelled:
            self.on_progress(payload)

    def execute(self) -> Delivery:
        """Runs `fn` (on the worker thread) and returns the call that hands its result to
        `on_done`; the caller makes that call on the GUI thread."""
        result = self.fn(self)
        return lambda: self._done(result)

    def _done(self, result: T) -> None:
        if self.on_done is not None:
            self.on_done(result)


class _Runner(QObject):
    """Lives on the worker thread and runs jobs one after another."""

    progressed = Signal(object, object)  # Job, Delivery
    finished = Signal(object, object)  # Job, Delivery
    failed = Signal(object, object)  # Job, BaseException

    @Slot(object)
    def run(self, job: Job[Any, Any]) -> None:
        if job.cancel.cancelled:
            self.failed.emit(job, CancelledError())
            return
        try:
            delivery = job.execute()
        except Exception as exc:  # every failure is delivered to the GUI, never swallowed
            log.debug("job %s failed", job.name, exc_info=True)
            self.failed.emit(job, exc)
        else:
            self.finished.emit(job, delivery)


class SerialWorker(QObject):
    """A GUI-thread handle on one worker thread; `submit` queues a job."""

    error = Signal(object)  # exceptions of jobs without their own on_error
    busy_changed = Signal(bool)
    _dispatch = Signal(object)

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self._pending: list[Job[Any, Any]] = []
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
        fn: Callable[[Job[T, P]], T],
        on_done: Callable[[T], None] | None = None,
        on_progress: Callable[[P], None] | None = None,
        on_error: ErrorHandler | None = None,
    ) -> Job[T, P]:
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

    def _retire(self, job: Job[Any, Any]) -> None:
        if job in self._pending:
            self._pending.remove(job)
            if not self._pending:
                self.busy_changed.emit(False)

    @Slot(object, object)
    def _on_progress(self, _job: Job[Any, Any], delivery: Delivery) -> None:
        delivery()

    @Slot(object, object)
    def _on_finished(self, job: Job[Any, Any], delivery: Delivery) -> None:
        self._retire(job)
        delivery()

    @Slot(object, object)
    def _on_failed(self, job: Job[Any, Any], exc: BaseException) -> None:
        self._retire(job)
        if job.on_error is not None:
            job.on_error(exc)
        elif not isinstance(exc, CancelledError):
            self.error.emit(exc)
