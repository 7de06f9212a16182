"""The Models dialog: the catalog, what is on disk, how each model fits this machine, downloads
with progress and Cancel, and "Use this model".

Nothing here blocks the GUI thread: listing (it probes the hardware) and downloads run on the
dialog's own worker; an embedder switch (it re-embeds the library) runs on the index writer it
is given. Closing the dialog cancels a download; its `.part` files stay and the next download
resumes them. Choosing a chat model or a re-ranker is handed to the window as settings changes
(`settings_chosen`), which it applies like the Settings dialog does.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_rag.catalog.describe import hardware_text, progress_text
from desktop_rag.catalog.downloads import DownloadProgress
from desktop_rag.catalog.fit import Verdict
from desktop_rag.catalog.installed import InstallState
from desktop_rag.catalog.service import ModelRow, ModelsService
from desktop_rag.domain.errors import DesktopRagError
from desktop_rag.domain.progress import ProgressEvent
from desktop_rag.gui.gui_gc import hold_gui_thread_gc, release_gui_thread_gc
from desktop_rag.gui.models_table import details_html, entry_id_at, fill, new_table
from desktop_rag.gui.workers import Job, SerialWorker

TABS = (("chat", "Chat models"), ("embedder", "Embedders"), ("cross-encoder", "Re-rankers"))
COLUMNS = ("Model", "Size", "On disk", "Fit on this machine", "Languages", "Licence")
FIT_COLOURS = {Verdict.RUNS_WELL: "#1b7a2e", Verdict.RUNS_SLOWLY: "#a15c00",
               Verdict.DOES_NOT_FIT: "#b3261e"}
SwitchRunner = Callable[[Path, str, Job[object, ProgressEvent]], object]
ErrorSink = Callable[[BaseException], None]


class ModelsDialog(QDialog):
    settings_chosen = Signal(dict)  # {"models.chat_model": "/path/x.gguf", ...}
    embedder_switched = Signal(str)  # the entry id, once the library is re-embedded

    def __init__(self, parent: QWidget | None, make_service: Callable[[], ModelsService],
                 errors: ErrorSink, writer: SerialWorker | None = None,
                 switch: SwitchRunner | None = None) -> None:
        super().__init__(parent)
        # its worker allocates too: a Qt object in a cycle must not die in that thread, also
        # where no window holds the collector (the dialog on its own, as in its tests)
        hold_gui_thread_gc()
        self._gc_held = True
        self.make_service, self.errors = make_service, errors
        self.writer, self.switch = writer, switch
        self.worker = SerialWorker("model-downloads", self)
        self.rows: dict[str, ModelRow] = {}
        self.job: Job[Any, Any] | None = None
        self.setWindowTitle("Models")
        self.resize(1060, 620)
        self._build()

    # ---- construction -------------------------------------------------------------------
    def _build(self) -> None:
        self.machine = QLabel("Looking at this machine\u2026")
        self.advice = QLabel()
        self.advice.setWordWrap(True)
        self.tabs = QTabWidget()
        self.tables: dict[str, QTableWidget] = {}
        for kind, title in TABS:
            self.tables[kind] = table = new_table()
            table.itemSelectionChanged.connect(self._selection_changed)
            self.tabs.addTab(table, title)
        self.tabs.currentChanged.connect(lambda _i: self._selection_changed())
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.bar, self.status = QProgressBar(), QLabel()
        self.bar.hide()
        layout = QVBoxLayout(self)
        for widget in (self.machine, self.advice, self.tabs, self.details):
            layout.addWidget(widget)
        layout.addLayout(self._progress_row())
        layout.addLayout(self._buttons())

    def _progress_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addWidget(self.status, 1)
        row.addWidget(self.bar)
        self.bar.setFixedWidth(260)
        return row

    def _buttons(self) -> QHBoxLayout:
        self.download_button = QPushButton("Download")
        self.cancel_button = QPushButton("Cancel download")
        self.use_button = QPushButton("Use this model")
        self.remove_button = QPushButton("Remove")
        close = QPushButton("Close")
        self.download_button.clicked.connect(self.download_selected)
        self.cancel_button.clicked.connect(self.cancel)
        self.use_button.clicked.connect(self.use_selected)
        self.remove_button.clicked.connect(self.remove_selected)
        close.clicked.connect(self.close)
        row = QHBoxLayout()
        for button in (self.download_button, self.cancel_button, self.use_button,
                       self.remove_button):
            button.setEnabled(False)
            row.addWidget(button)
        row.addStretch(1)
        row.addWidget(close)
        return row

    # ---- listing ------------------------------------------------------------------------
    def refresh(self) -> None:
        def listing(_job: Job[Any, Any]) -> tuple[list[ModelRow], str]:
            service = self.make_service()
            return service.rows(), hardware_text(service.hardware)

        self.worker.submit("models-list", listing, on_done=self._show, on_error=self.errors)

    def _show(self, result: tuple[list[ModelRow], str]) -> None:
        rows, machine = result
        self.rows = {r.entry.id: r for r in rows}
        self.machine.setText(f"<b>This machine:</b> {machine}")
        best = next((r for r in rows if r.recommended), None)
        self.advice.setText(
            f"<b>Recommended chat model:</b> {best.entry.name} \u2014 {best.fit.verdict.value}: "
            f"{best.fit.reason}" if best else "No chat model in the catalog fits this machine.")
        for kind, table in self.tables.items():
            fill(table, [r for r in rows if r.entry.kind == kind])
        self._selection_changed()

    def selected(self) -> ModelRow | None:
        table = self.tables[TABS[self.tabs.currentIndex()][0]]
        items = table.selectedItems()
        if not items:
            return None
        return self.rows.get(entry_id_at(table, items[0].row()) or "")

    def select(self, entry_id: str) -> None:
        row = self.rows[entry_id]
        self.tabs.setCurrentIndex([k for k, _t in TABS].index(row.entry.kind))
        table = self.tables[row.entry.kind]
        for n in range(table.rowCount()):
            if entry_id_at(table, n) == entry_id:
                table.selectRow(n)

    def _selection_changed(self) -> None:
        row, busy = self.selected(), self.job is not None
        self.details.setText(details_html(row) if row else "Choose a model to see more.")
        downloadable = row is not None and row.entry.packaged is None and not row.on_disk
        self.download_button.setEnabled(downloadable and not busy)
        partial = row is not None and row.installed.state is InstallState.PARTIAL
        self.download_button.setText("Resume download" if partial else "Download")
        self.use_button.setEnabled(row is not None and row.on_disk and not row.in_use and not busy)
        self.remove_button.setEnabled(row is not None and row.entry.packaged is None and not busy
                                      and row.installed.path is not None and not row.in_use)
        self.cancel_button.setEnabled(busy)

    # ---- actions ------------------------------------------------------------------------
    def download_selected(self) -> None:
        row = self.selected()
        if row is None:
            return
        entry_id = row.entry.id
        self._busy(f"Downloading {row.entry.name}\u2026")
        self.job = self.worker.submit(
            "model-download",
            lambda job: self.make_service().download(entry_id, job.report, job.cancel),
            on_done=lambda path: self._finished(f"{entry_id} is ready at {path}", entry_id),
            on_progress=self.show_progress, on_error=self._failed)

    def show_progress(self, report: DownloadProgress) -> None:
        self.bar.setRange(0, 1000)
        self.bar.setValue(int(report.fraction * 1000))
        self.status.setText(progress_text(report))
        self.cancel_button.setEnabled(report.phase == "download")  # hashing runs to its end

    def use_selected(self) -> None:
        row = self.selected()
        if row is None:
            return
        choice = self.make_service().choose(row.entry.id)
        if choice.embedder_dir is None:
            self.settings_chosen.emit(choice.changes)
            self._finished(f"{row.entry.name} is used from the next question", row.entry.id)
        elif self.writer is not None and self.switch is not None:
            self._switch(choice.embedder_dir, row.entry.id)

    def _switch(self, folder: Path, entry_id: str) -> None:
        assert self.writer is not None and self.switch is not None
        switch = self.switch
        self._busy(f"Re-embedding the library with {entry_id}; search uses the old one "
                   "until it is done\u2026")

        def done(_outcome: object) -> None:
            self.embedder_switched.emit(entry_id)
            self._finished(f"The library is now searched with {entry_id}", entry_id)

        self.job = self.writer.submit("embedder-switch", lambda j: switch(folder, entry_id, j),
                                      on_done=done, on_progress=self._switch_progress,
                                      on_error=self._switch_failed)

    def _switch_progress(self, event: ProgressEvent) -> None:
        if event.total:
            self.bar.setRange(0, event.total)
            self.bar.setValue(min(event.done, event.total))
        self.status.setText(f"{event.stage}: {event.done:,}/{event.total:,} {event.message}")

    def remove_selected(self) -> None:
        row = self.selected()
        if row is not None:
            entry_id = row.entry.id
            self.worker.submit("model-remove", lambda _j: self.make_service().remove(entry_id),
                               on_done=lambda p: self._finished(f"Removed {p}", entry_id),
                               on_error=self.errors)

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel.cancel()
            self.status.setText("Cancelling\u2026 (what was downloaded is kept for next time)")

    # ---- states -------------------------------------------------------------------------
    def _busy(self, text: str) -> None:
        self.status.setText(text)
        self.bar.setRange(0, 0)
        self.bar.show()
        self.job = None  # set by the caller right after
        self.cancel_button.setEnabled(True)
        for button in (self.download_button, self.use_button, self.remove_button):
            button.setEnabled(False)

    def _finished(self, text: str, entry_id: str | None = None) -> None:
        self.job = None
        self.bar.hide()
        self.status.setText(text)
        self.refresh()
        if entry_id is not None:
            self.worker.submit("select", lambda _j: entry_id, on_done=self._select_later)

    def _select_later(self, entry_id: str) -> None:
        if entry_id in self.rows:
            self.select(entry_id)

    def _failed(self, exc: BaseException) -> None:
        self._finished("Stopped: the next download resumes where this one stopped")
        self.errors(exc)

    def _switch_failed(self, exc: BaseException) -> None:
        self._finished("Switch stopped: search keeps using the current embedder until a switch "
                       "completes")
        self.errors(exc)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.cancel()
        self.worker.shutdown()
        super().closeEvent(event)
        self._release_gc()

    def done(self, result: int) -> None:
        super().done(result)
        self._release_gc()

    def _release_gc(self) -> None:
        if self._gc_held:
            self._gc_held = False
            release_gui_thread_gc()


def models_service(services: object) -> ModelsService:
    """The models service for the window's services (their context's folders and settings)."""
    ctx = getattr(services, "ctx", None)
    if ctx is None:
        raise DesktopRagError("The Models dialog needs the app's own services",
                              "start the app normally (desktop-rag-gui)")
    return ModelsService(ctx.paths, ctx.settings)


def switch_runner(services: object) -> SwitchRunner | None:
    """Runs the embedder switch on the context of `services` (None without one)."""
    ctx = getattr(services, "ctx", None)
    if ctx is None:
        return None

    def run(folder: Path, name: str, job: Job[object, ProgressEvent]) -> object:
        from desktop_rag.catalog.service import load_switch

        return load_switch()(ctx, folder, name, job.report, job.cancel)

    return run
