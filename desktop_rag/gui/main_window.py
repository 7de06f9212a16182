"""The main window: builds the panels, menus and status bar and wires them together."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import QFileDialog, QLabel, QMainWindow, QSplitter, QWidget

from desktop_rag.domain import Answer, Chunk, Evidence
from desktop_rag.gui.chat_controller import ChatController
from desktop_rag.gui.chat_pane import ChatPane
from desktop_rag.gui.core_panel import CorePanel
from desktop_rag.gui.error_presenter import ErrorPresenter
from desktop_rag.gui.facade import GuiServices
from desktop_rag.gui.folders_dialog import FoldersDialog
from desktop_rag.gui.gui_gc import hold_gui_thread_gc, release_gui_thread_gc
from desktop_rag.gui.launch import warm_up
from desktop_rag.gui.library_controller import LibraryController
from desktop_rag.gui.library_model import LibraryRow
from desktop_rag.gui.library_panel import LibraryPanel
from desktop_rag.gui.locations import chunk_location, row_location
from desktop_rag.gui.models_dialog import ModelsDialog, models_service, switch_runner
from desktop_rag.gui.note_dialog import NoteDialog
from desktop_rag.gui.progress_bar import TaskProgress
from desktop_rag.gui.qt_workarounds import keep_none_alive, keep_true_alive
from desktop_rag.gui.settings_dialog import SettingsDialog
from desktop_rag.gui.sources_panel import SourcesPanel
from desktop_rag.gui.viewer import Location, ViewerPanel
from desktop_rag.gui.workers import SerialWorker
from desktop_rag.services.core import CoreStatus
from desktop_rag.services.ports import EngineInfo


def dropped_paths(event: QDropEvent | QDragEnterEvent) -> list[str]:
    mime = event.mimeData()
    return [u.toLocalFile() for u in mime.urls() if u.isLocalFile()] if mime.hasUrls() else []


class MainWindow(QMainWindow):
    warmed = Signal()  # the warm-up after start is done: the first search pays for nothing

    def __init__(self, services: GuiServices, interactive: bool = True) -> None:
        super().__init__()
        keep_true_alive()  # before any signal is emitted (once per process)
        keep_none_alive()
        hold_gui_thread_gc()  # Qt objects in cycles die in this thread (gui/gui_gc.py)
        self.services = services
        self.setWindowTitle("Desktop RAG")
        self.resize(1400, 860)
        self.setAcceptDrops(True)
        self.errors = ErrorPresenter(self, interactive)
        self.llm = SerialWorker("llm-worker", self)
        self.writer = SerialWorker("index-writer", self)
        self.reader = SerialWorker("reader", self)
        for worker in (self.llm, self.writer, self.reader):
            worker.error.connect(self.errors.present)
        self._build_panels()
        self._build_status_bar()
        self.library = LibraryController(services, self.library_panel, self.task_progress,
                                         self.writer, self.reader)
        self.chat = ChatController(services, self.chat_pane, self.llm)
        self._wire()
        self._build_menus()
        self._closed = False

    # ---- construction -------------------------------------------------------------------
    def _build_panels(self) -> None:
        self.library_panel = LibraryPanel()
        self.core_panel = CorePanel()
        self.chat_pane = ChatPane()
        self.sources = SourcesPanel()
        self.viewer = ViewerPanel()
        self.chat_pane.question.setAcceptDrops(False)
        self.library_panel.filter_box.setAcceptDrops(False)
        left = _splitter(Qt.Orientation.Vertical, self.library_panel, self.core_panel, (3, 1))
        center = _splitter(Qt.Orientation.Vertical, self.chat_pane, self.sources, (3, 1))
        main = _splitter(Qt.Orientation.Horizontal, left, center, (1, 2))
        main.addWidget(self.viewer)
        main.setSizes([430, 520, 450])
        self.setCentralWidget(main)

    def _build_status_bar(self) -> None:
        self.task_progress = TaskProgress()
        self.model_label, self.gpu_label, self.ttft_label = QLabel(), QLabel(), QLabel()
        bar = self.statusBar()
        bar.addWidget(self.task_progress, 1)
        for label in (self.model_label, self.gpu_label, self.ttft_label):
            bar.addPermanentWidget(label)
        self.model_label.setText("Model: not loaded")
        self.ttft_label.setText("TTFT: \u2013")

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        _action(file_menu, "&Add files\u2026", self.add_files, QKeySequence.StandardKey.Open)
        _action(file_menu, "Add &folder\u2026", self.add_folder, QKeySequence("Ctrl+Shift+O"))
        _action(file_menu, "New &note\u2026", self.new_note, QKeySequence("Ctrl+Shift+N"))
        _action(file_menu, "S&ync folders", self.library.sync, QKeySequence.StandardKey.Refresh)
        _action(file_menu, "Followed fol&ders\u2026", self.show_folders, None)
        file_menu.addSeparator()
        _action(file_menu, "&Settings\u2026", self.open_settings, QKeySequence("Ctrl+,"))
        _action(file_menu, "&Models\u2026", self.open_models, QKeySequence("Ctrl+Shift+M"))
        _action(file_menu, "&Quit", self.close, QKeySequence.StandardKey.Quit)
        chat_menu = self.menuBar().addMenu("&Chat")
        _action(chat_menu, "&New chat", self.chat.new_chat, QKeySequence.StandardKey.New)
        _action(chat_menu, "&Stop", self.chat.stop, None)
        _action(chat_menu, "&Find in document", self.viewer.find_bar.open, None)

    def _wire(self) -> None:
        self.library.message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.library_panel.open_requested.connect(self.open_row)
        self.library_panel.core_requested.connect(self.set_core)
        self.library_panel.scope_requested.connect(self.chat.set_scope)
        self.library_panel.summary_requested.connect(self.chat.summarize)
        self.viewer.summarize_requested.connect(
            lambda path: self.chat.summarize(
                [r for r in self.library_panel.model.rows() if r.path == path])
        )
        self.chat.scope_changed.connect(self.library_panel.model.set_asked_about)
        self.viewer.ask_about_requested.connect(
            lambda path: self.chat.set_scope(
                [r for r in self.library_panel.model.rows() if r.path == path]
            )
        )
        self.library.changed.connect(
            lambda: self.chat.keep_scope_within(self.library_panel.model.rows())
        )
        self.chat.answered.connect(self._on_answer)
        self.chat.retrieved.connect(self.sources.show_passages)
        self.chat.open_chunk.connect(self.open_chunk)
        self.chat.engine_state.connect(self._show_engine)
        self.chat.ttft.connect(lambda ms: self.ttft_label.setText(f"TTFT: {ms:,.0f} ms"))
        self.sources.open_requested.connect(
            lambda p: self.open_chunk(p.chunk, self.sources.evidence_of(p.n))
        )
        self.core_panel.rebuild_requested.connect(self.rebuild_core)

    def start(self) -> None:
        """Loads the library, the chats, the core state and the engine info in the background,
        and warms the embedder and the vector store on the index writer: loading them holds
        Python's GIL for up to ~0.6 s, better spent right after start than during a drop."""
        self.chat_pane.question.setFocus()  # typing at once asks, rather than filters the list
        self.library.refresh()
        self.chat.restore()
        self.refresh_core()
        self.chat.load_engine_info()
        self.writer.submit("warm-up", lambda _j: warm_up(self.services),
                           on_done=lambda _r: self.warmed.emit())  # fmt: skip
        if self.services.settings.ingest.sync_on_start:
            self.library.sync(quiet=True)  # files added, changed or deleted while it was closed
        else:
            self.library.watch_folders()  # (a sync starts watching when it ends)
            self.library.read_tables()  # tables a closed app or the CLI left (a sync reads them)

    # ---- library ------------------------------------------------------------------------
    def add_files(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Add files to the library")
        self.library.ingest(paths)

    def add_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a folder to the library")
        if folder:
            self.library.ingest([folder])

    def show_folders(self) -> FoldersDialog:
        return self.library.show_folders(self, self.add_folder)

    def new_note(self) -> None:
        dialog = NoteDialog(self)
        if dialog.exec():
            self.library.save_note(*dialog.note())

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dropped_paths(event):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = dropped_paths(event)
        if paths:
            event.acceptProposedAction()
            self.library.ingest(paths)

    # ---- viewer -------------------------------------------------------------------------
    def open_chunk(self, chunk: Chunk, evidence: Evidence | None = None) -> None:
        self.reader.submit("locate", lambda _j: chunk_location(self.services, chunk, evidence),
                           on_done=self._show_location)

    def open_row(self, row: LibraryRow) -> None:
        self.reader.submit("locate", lambda _j: row_location(self.services, row),
                           on_done=self._show_location)

    def _show_location(self, location: Location) -> None:
        try:
            self.viewer.open_location(location)
        except Exception as exc:  # the presenter shows message + hint
            self.errors.present(exc)

    # ---- answers, engine, core ----------------------------------------------------------
    def _on_answer(self, answer: Answer) -> None:
        self.sources.show_answer(answer)
        offload = "on" if answer.gpu_offload else "off"
        self.chat_pane.set_state(f"Re-ranker: {answer.reranker} \u00b7 GPU offload: {offload}")
        ttft = answer.timings.get("ttft_ms")
        if ttft:
            self.ttft_label.setText(f"TTFT: {ttft:,.0f} ms")

    def _show_engine(self, info: EngineInfo) -> None:
        offload = "on" if info["gpu_offload"] else "off"
        self.model_label.setText(f"Model: {info['model']}")
        self.gpu_label.setText(f"GPU offload: {offload}")
        reranker = self.services.settings.retrieval.reranker
        self.chat_pane.set_state(f"Re-ranker: {reranker} \u00b7 GPU offload: {offload}")

    def refresh_core(self) -> None:
        self.llm.submit("core-status", lambda _j: self.services.core_status(),
                        on_done=self.core_panel.show_status)

    def set_core(self, paths: list[str], pin: bool) -> None:
        call = self.services.core_add if pin else self.services.core_remove
        self.llm.submit("core", lambda _j: call(paths), on_done=self._core_changed)

    def _core_changed(self, status: CoreStatus) -> None:
        self.core_panel.show_status(status)
        self.library.refresh()

    def rebuild_core(self) -> None:
        self.llm.submit(
            "core-build",
            lambda j: self.services.core_build(progress=j.report, cancel=j.cancel),
            on_done=self.core_panel.show_status,
            on_progress=self.core_panel.show_progress,
        )

    # ---- settings -----------------------------------------------------------------------
    def open_settings(self) -> SettingsDialog:
        dialog = SettingsDialog(self.services.settings, str(self.services.data_dir), self)
        dialog.accepted.connect(lambda: self.apply_settings(dialog))
        dialog.open()
        return dialog

    def apply_settings(self, dialog: SettingsDialog) -> None:
        new = dialog.result_settings
        if new is None:
            return
        reload = self.services.apply_settings(new)  # saved, and read by the next job
        QSettings().setValue("data_dir", dialog.data_dir.text().strip())
        if reload:  # the old model is closed on the thread that uses it, then the new loads
            self.llm.submit("reload", lambda _j: self.services.reset_engine())
            self.chat.load_engine_info()
        self.library.watch_folders()
        self.statusBar().showMessage("Settings saved", 5000)

    def open_models(self) -> ModelsDialog:
        dialog = ModelsDialog(self, lambda: models_service(self.services), self.errors.present,
                              self.writer, switch_runner(self.services))
        dialog.settings_chosen.connect(self.use_model)
        dialog.open()
        dialog.refresh()
        return dialog

    def use_model(self, changes: dict[str, str]) -> None:
        """A model chosen in the Models dialog: saved, and used from the next question."""
        if self.services.apply_settings(self.services.settings.updated(changes)):
            self.llm.submit("reload", lambda _j: self.services.reset_engine())
            self.chat.load_engine_info()
        self.statusBar().showMessage("Model changed: it answers the next question", 5000)

    # ---- shutdown -----------------------------------------------------------------------
    def shutdown(self) -> bool:
        """Cancels all background work and waits for the worker threads to stop."""
        if self._closed:
            return True
        self._closed = True
        stopped = all([w.shutdown() for w in (self.llm, self.writer, self.reader)])
        release_gui_thread_gc()
        return stopped

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)


def _splitter(
    orientation: Qt.Orientation, first: QWidget, second: QWidget, stretch: tuple[int, int]
) -> QSplitter:
    splitter = QSplitter(orientation)
    splitter.addWidget(first)
    splitter.addWidget(second)
    splitter.setStretchFactor(0, stretch[0])
    splitter.setStretchFactor(1, stretch[1])
    splitter.setChildrenCollapsible(False)
    return splitter


def _action(menu: Any, text: str, slot: Any, shortcut: Any) -> QAction:
    action = QAction(text, menu)
    if shortcut is not None:
        action.setShortcut(shortcut)
    action.triggered.connect(lambda _checked=False: slot())
    menu.addAction(action)
    return action


