"""Library work: ingest, sync, remove, rename, notes and refreshes, run on the workers; results
to widgets."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QWidget
from shiboken6 import isValid

from desktop_rag.domain import (
    Document,
    FileOutcome,
    FollowedFolder,
    IngestReport,
    Outcome,
    Reason,
)
from desktop_rag.domain.errors import CancelledError
from desktop_rag.domain.outcomes import TablesReport
from desktop_rag.domain.progress import ProgressEvent
from desktop_rag.gui.facade import GuiServices
from desktop_rag.gui.folder_watcher import FolderWatcher
from desktop_rag.gui.folders_dialog import FoldersDialog
from desktop_rag.gui.library_model import merge_rows
from desktop_rag.gui.library_panel import LibraryPanel
from desktop_rag.gui.progress_bar import TaskProgress
from desktop_rag.gui.workers import Job, SerialWorker

log = logging.getLogger(__name__)
IndexingJob = Job[IngestReport, ProgressEvent]  # an ingestion or a sync
TablesJob = Job[TablesReport, ProgressEvent]  # the table pass after them
Listed = tuple[list[Document], frozenset[str], frozenset[str]]  # docs, missing, tables pending
CHANGES = frozenset({Outcome.INDEXED, Outcome.UPDATED, Outcome.MOVED, Outcome.REMOVED})


def summarize(report: IngestReport) -> str:
    parts = [f"{report.count(o)} {o.value}" for o in Outcome if report.count(o)]
    text = "Library: " + (", ".join(parts) if parts else "nothing to do")
    unavailable = unavailable_folders(report)
    if unavailable:
        text += " \u2014 folders not found, their documents kept: " + ", ".join(unavailable)
    if report.caught_up is not None and report.caught_up.queued:
        n = report.caught_up.queued
        text += (f" \u2014 {n} document{'s' if n > 1 else ''} read by an earlier version: "
                 f"reading {'their' if n > 1 else 'its'} tables and pictures again")
    return text


def with_missing(docs: list[Document]) -> tuple[list[Document], frozenset[str]]:
    """The documents and the paths among them with no file there now (on the reader thread:
    one stat per document)."""
    return docs, frozenset(d.path for d in docs if not os.path.lexists(d.path))


def tables_summary(report: TablesReport) -> str:
    text = f"Tables read: {report.tables} in {report.documents} document(s)"
    if report.failures:
        text += f"; {len(report.failures)} could not be read (their text is searchable)"
    return text


def unavailable_folders(report: IngestReport) -> list[str]:
    """The followed folders a sync found missing or empty (a drive not mounted?)."""
    return [o.path for o in report.outcomes
            if o.code in (Reason.FOLDER_MISSING, Reason.FOLDER_EMPTY)]


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
        self._indexing: list[IndexingJob] = []  # ingestions and syncs not yet ended
        self._tables: TablesJob | None = None  # the table pass queued or running
        self._told_unavailable: set[str] = set()  # followed folders said to be missing
        self._refresh_timer = QTimer(self, singleShot=True, interval=250)
        self._refresh_timer.timeout.connect(self.refresh)
        self.watcher = FolderWatcher(self)
        self.watcher.settled.connect(lambda: self.sync(quiet=True))
        progress.cancel_requested.connect(self.cancel_ingest)
        panel.reindex_requested.connect(self.ingest)
        panel.remove_requested.connect(self.remove)
        panel.rename_requested.connect(self.rename)

    def refresh(self) -> None:
        self.reader.submit("list", lambda _job: self._listed(), on_done=self._show_documents)

    def _listed(self) -> Listed:
        """The documents, the paths without their file, and the documents whose tables are
        still to be read (on the reader thread)."""
        docs, missing = with_missing(self.services.list_documents())
        return docs, missing, frozenset(self.services.tables_pending())

    def _show_documents(self, listed: Listed) -> None:
        docs, missing, tables = listed
        self.documents = docs
        failures = list(self.failures.values())
        self.panel.set_rows(merge_rows(self.documents, failures, missing, tables))
        self.changed.emit()

    def ingest(self, paths: Sequence[str]) -> IndexingJob | None:
        paths = [str(Path(p)) for p in paths]
        if not paths:
            return None
        self.progress.start(f"Adding {len(paths)} item{'s' if len(paths) > 1 else ''}\u2026")
        return self._submit_indexing("ingest", lambda j: self.services.ingest(
            paths, progress=j.report, cancel=j.cancel, tables_now=False
        ))

    def sync(self, quiet: bool = False) -> IndexingJob:
        """Catches up with the followed folders in the background. `quiet` (the check at start,
        a watched change): the progress strip shows only once files are read, and the status
        bar says only what is news."""
        if not quiet:
            self.progress.start("Checking the library's folders\u2026")
        return self._submit_indexing("sync", lambda j: self.services.sync(
            progress=j.report, cancel=j.cancel, tables_now=False
        ), quiet)

    def _submit_indexing(
        self, name: str, work: Callable[[IndexingJob], IngestReport], quiet: bool = False
    ) -> IndexingJob:
        """Runs an ingestion or sync on the index writer; the progress strip stays until the
        last of them ends, and Cancel stops them all. Text goes first: a table pass running
        is cancelled (what it has not done stays queued, and is read after this job)."""
        self._pause_tables()
        job = self.writer.submit(
            name, work, on_done=lambda report: self._ingested(report, job, quiet),
            on_progress=self._on_progress, on_error=lambda exc: self._ingest_failed(exc, job),
        )
        self._indexing.append(job)
        return job

    def watch_folders(self) -> None:
        """Starts (or updates) watching the followed folders and the folders below them, when
        the settings allow it (`ingest.watch_folders`)."""
        if not self.services.settings.ingest.watch_folders:
            self.watcher.watch([])
            return
        self.reader.submit("watch-list", lambda _j: self.services.folders_to_watch(),
                           on_done=self.watcher.watch)

    def cancel_ingest(self) -> None:
        for job in self._indexing:
            job.cancel.cancel()

    def _indexing_ended(self, job: IndexingJob | None) -> None:
        if job in self._indexing:
            self._indexing.remove(job)
        if not self._indexing:
            self.progress.finish()

    def _on_progress(self, event: ProgressEvent) -> None:
        if event.stage == "embed" and self.progress.isHidden():  # a quiet sync has work
            self.progress.start("Updating the library from its folders\u2026")
        self.progress.update_progress(event)
        if event.stage == "file-done" and not self._refresh_timer.isActive():
            self._refresh_timer.start()

    def _ingested(
        self, report: IngestReport, job: IndexingJob | None = None, quiet: bool = False
    ) -> None:
        self._indexing_ended(job)
        if not quiet or self._news_in(report):
            self.message.emit(summarize(report))
        self._record(report.outcomes)
        self.ingest_finished.emit(report)
        self.watch_folders()  # a new folder, or new sub-folders
        if any(o.code is Reason.BEING_WRITTEN for o in report.outcomes):
            self.watcher.poke()  # read it once it has been left alone
        self.refresh()
        self.read_tables()

    def read_tables(self) -> TablesJob | None:
        """The table pass on the index writer, in the background: the documents just ingested
        are searchable from their text already, and get their tables' rows within seconds to
        minutes (those a closed app or the CLI left queued too)."""
        if self._tables is not None and not self._tables.cancel.cancelled:
            return None  # the pass does nothing while tables and picture text are both off
        job = self.writer.submit(
            "tables", lambda j: self.services.enrich_tables(progress=j.report, cancel=j.cancel),
            on_done=lambda report: self._tables_read(report, job),
            on_progress=self._on_tables_progress,
            on_error=lambda exc: self._tables_read(None, job, exc),
        )
        self._tables = job
        return job

    def _on_tables_progress(self, event: ProgressEvent) -> None:
        done = f" ({event.files_done} of {event.files_total} documents)" if event.files_done else ""
        self.message.emit(f"Reading tables{done}: {event.message}")
        if event.files_done and not self._refresh_timer.isActive():
            self._refresh_timer.start()  # a document done: its row is no longer pending

    def _tables_read(
        self, report: TablesReport | None, job: TablesJob, exc: BaseException | None = None
    ) -> None:
        if self._tables is job:
            self._tables = None
        if report is not None and report.documents:
            self.message.emit(tables_summary(report))
        elif exc is not None and not isinstance(exc, CancelledError):
            self.writer.error.emit(exc)
        self.refresh()

    def _ingest_failed(self, exc: BaseException, job: IndexingJob) -> None:
        self._indexing_ended(job)
        self.writer.error.emit(exc)
        self.refresh()

    def _news_in(self, report: IngestReport) -> bool:
        """Whether a quiet sync has something to say: a document added, changed, moved or
        removed, a failure not shown yet, or a followed folder newly missing (unchanged and
        skipped files are not news)."""
        unavailable = set(unavailable_folders(report))
        news = unavailable - self._told_unavailable
        self._told_unavailable = unavailable  # said again if it comes back and goes again
        caught_up = report.caught_up is not None and report.caught_up.queued > 0
        return bool(news) or caught_up or any(
            o.outcome in CHANGES or (o.outcome is Outcome.FAILED and o.path not in self.failures)
            for o in report.outcomes
        )

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
        self._change("remove", lambda: self.services.remove(paths))

    def rename(self, path: str, title: str) -> None:
        """The user's title for a document, written on the index writer like other changes."""
        self._change("rename", lambda: self.services.rename(path, title))

    def _change(self, name: str, work: Callable[[], object]) -> None:
        """A quick change on the index writer, before a table pass running (which resumes)."""
        self._pause_tables()
        self.writer.submit(name, lambda _j: work(), on_done=lambda _r: self._changed())

    def _changed(self) -> None:
        self.refresh()
        self.read_tables()

    def _pause_tables(self) -> None:
        """Cancels a table pass queued or running, so that a change asked for waits for
        nothing: what it had not done stays queued, and `read_tables` picks it up after."""
        if self._tables is not None:
            self._tables.cancel.cancel()

    def show_folders(self, parent: QWidget, add_folder: Callable[[], None]) -> FoldersDialog:
        """The followed folders (non-modal; its list follows the library's changes)."""
        def show(folders: list[FollowedFolder]) -> None:
            if isValid(dialog):  # it may have been closed while the list was read
                dialog.set_folders(folders)

        dialog = FoldersDialog(parent, lambda: self.reader.submit(
            "folders", lambda _j: self.services.followed_folders(), on_done=show
        ))
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.add_requested.connect(add_folder)
        dialog.sync_requested.connect(self.sync)
        dialog.remove_requested.connect(self.remove)
        dialog.unfollow_requested.connect(self.unfollow)
        self.changed.connect(dialog.reload)  # a method of the dialog: gone with it
        dialog.reload()
        dialog.show()
        return dialog

    def unfollow(self, folders: Sequence[str]) -> None:
        folders = list(folders)
        self._change("unfollow", lambda: self.services.unfollow(folders))

    def save_note(self, title: str, text: str) -> None:
        self._pause_tables()
        self.writer.submit("note", lambda _j: self.services.save_note(title, text),
                           on_done=self._ingested)
