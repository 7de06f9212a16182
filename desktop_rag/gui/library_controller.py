"""Library work: ingest, remove, notes and refreshes, run on the workers; results to widgets."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from desktop_rag.domain import Document, FileOutcome, IngestReport, Outcome
from desktop_rag.gui.facade import GuiServices
from desktop_rag.gui.library_model import merge_rows
from desktop_rag.gui.library_panel import LibraryPanel
from desktop_rag.gui.progress_bar import TaskProgress
from desktop_rag.gui.workers import Job, SerialWorker
from desktop_rag.progress import ProgressEvent

log = logging.getLogger(__name__)


def summarize(report: IngestReport) -> str:
    parts = [f"{report.count(o)} {o.value}" for o in Outcome if report.count(o)]
    return "Library: " + (", ".join(parts) if parts else "nothing to do")


class LibraryController(QObject):
    changed = Signal()  # the library list was refreshed
    ingest_finished = Signal(object)  # IngestReport
    message = Signal(str)

    def __init__(
        self,
        services: GuiServices,
        panel: LibraryPanel,
        progress: TaskProgress,
        writer: SerialWorker,
        reader: SerialWorker,
    ) -> None:
        super().__init__(panel)
        self.services = services
        self.panel = panel
        self.progress = progress
        self.writer = writer
        self.reader = reader
        self.failures: dict[str, FileOutcome] = {}
        self.documents: list[Document] = []
        self._ingest_job: Job | None = None
        self._refresh_timer = QTimer(self, singleShot=True, interval=250)
        self._refresh_timer.timeout.connect(self.refresh)
        progress.cancel_requested.connect(self.cancel_ingest)
        panel.reindex_requested.connect(self.ingest)
        panel.remove_requested.connect(self.remove)

    def refresh(self) -> None:
        self.reader.submit("list", lambda _job: self.services.list_documents(),
                           on_done=self._show_documents)

    def _show_documents(self, docs: object) -> None:
        self.documents = list(docs) if isinstance(docs, list) else []
        self.panel.set_rows(merge_rows(self.documents, list(self.failures.values())))
        self.changed.emit()

    def ingest(self, paths: Sequence[str]) -> Job | None:
        paths = [str(Path(p)) for p in paths]
        if not paths:
            return None
        self.progress.start(f"Adding {len(paths)} item{'s' if len(paths) > 1 else ''}\u2026")
        job = self.writer.submit(
            "ingest",
            lambda j: self.services.ingest(paths, progress=j.report, cancel=j.cancel),
            on_done=self._ingested, on_progress=self._on_progress, on_error=self._ingest_failed,
        )
        self._ingest_job = job
        return job

    def cancel_ingest(self) -> None:
        if self._ingest_job is not None:
            self._ingest_job.cancel.cancel()

    def _on_progress(self, payload: object) -> None:
        if isinstance(payload, ProgressEvent):
            self.progress.update_progress(payload)
            if payload.stage == "file-done" and not self._refresh_timer.isActive():
                self._refresh_timer.start()

    def _ingested(self, report: object) -> None:
        self._ingest_job = None
        self.progress.finish()
        if isinstance(report, IngestReport):
            self._record(report.outcomes)
            self.message.emit(summarize(report))
            self.ingest_finished.emit(report)
        self.refresh()

    def _ingest_failed(self, exc: Exception) -> None:
        self._ingest_job = None
        self.progress.finish()
        self.writer.error.emit(exc)
        self.refresh()

    def _record(self, outcomes: Sequence[FileOutcome]) -> None:
        for outcome in outcomes:
            if outcome.outcome is Outcome.FAILED:
                self.failures[outcome.path] = outcome
            else:
                self.failures.pop(outcome.path, None)

    def remove(self, paths: Sequence[str]) -> None:
        paths = list(paths)
        for path in paths:
            self.failures.pop(path, None)
        self.writer.submit("remove", lambda _j: self.services.remove(paths),
                           on_done=lambda _r: self.refresh())

    def save_note(self, title: str, text: str) -> None:
        self.writer.submit("note", lambda _j: self.services.save_note(title, text),
                           on_done=self._ingested)
