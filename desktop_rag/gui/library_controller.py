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
from desktop_rag.gui.facade import GuiServices
from desktop_rag.gui.folder_watcher import FolderWatcher
from desktop_rag.gui.folders_dialog import FoldersDialog
from desktop_rag.gui.library_model import merge_rows
from desktop_rag.gui.library_panel import LibraryPanel
from desktop_rag.gui.progress_bar import TaskProgress
from desktop_rag.gui.workers import Job, SerialWorker
from desktop_rag.progress import ProgressEvent

log = logging.getLogger(__name__)
IndexingJob = Job[IngestReport, ProgressEvent]  # an ingestion or a sync
CHANGES = frozenset({Outcome.INDEXED, Outcome.UPDATED, Outcome.MOVED, Outcome.REMOVED})


def summarize(report: IngestReport) -> str:
    parts = [f"{report.count(o)} {o.value}" for o in Outcome if report.count(o)]
    text = "Library: " + (", ".join(parts) if parts else "nothing to do")
    unavailable = unavailable_folders(report)
    if unavailable:
        text += " \u2014 folders not found, their documents kept: " + ", ".join(unavailable)
    return text


def with_missing(docs: list[Document]) -> tuple[list[Document], frozenset[str]]:
    """The documents and the paths among them with no file there now (on the reader thread:
    one stat per document)."""
    return docs, frozenset(d.path for d in docs if not os.path.lexists(d.path))


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
        self.reader.submit("list", lambda _job: with_missing(self.services.list_documents()),
                           on_done=self._show_documents)

    def _show_documents(self, listed: tuple[list[Document], frozenset[str]]) -> None:
        docs, missing = listed
        self.documents = docs
        self.panel.set_rows(merge_rows(self.documents, list(self.failures.values()), missing))
        self.changed.emit()

    def ingest(self, paths: Sequence[str]) -> IndexingJob | None:
        paths = [str(Path(p)) for p in paths]
        if not paths:
            return None
        self.progress.start(f"Adding {len(paths)} item{'s' if len(paths) > 1 else ''}\u2026")
        return self._submit_indexing(
            "ingest", lambda j: self.services.ingest(paths, progress=j.report, cancel=j.cancel)
        )

    def sync(self, quiet: bool = False) -> IndexingJob:
        """Catches up with the followed folders in the background. `quiet` (the check at start,
        a watched change): the progress strip shows only once files are read, and the status
        bar says only what is news."""
        if not quiet:
            self.progress.start("Checking the library's folders\u2026")
        return self._submit_indexing(
            "sync", lambda j: self.services.sync(progress=j.report, cancel=j.cancel), quiet
        )

    def _submit_indexing(
        self, name: str, work: Callable[[IndexingJob], IngestReport], quiet: bool = False
    ) -> IndexingJob:
        """Runs an ingestion or sync on the index writer; the progress strip stays until the
        last of them ends, and Cancel stops them all."""
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
        return bool(news) or any(
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
        self.writer.submit("remove", lambda _j: self.services.remove(paths),
                           on_done=lambda _r: self.refresh())

    def rename(self, path: str, title: str) -> None:
        """The user's title for a document, written on the index writer like other changes."""
        self.writer.submit("rename", lambda _j: self.services.rename(path, title),
                           on_done=lambda _r: self.refresh())

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
        self.writer.submit("unfollow", lambda _j: self.services.unfollow(folders),
                           on_done=lambda _r: self.refresh())

    def save_note(self, title: str, text: str) -> None:
        self.writer.submit("note", lambda _j: self.services.save_note(title, text),
                           on_done=self._ingested)
