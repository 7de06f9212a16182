"""Library panel: filter box, document table, context menu; emits intents, does no work."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop_rag.gui.library_model import LibraryFilter, LibraryModel, LibraryRow

EMPTY_TEXT = "Drop PDFs or notes here\n\nor use File \u203a Add files\u2026 (Ctrl+O)"


class LibraryPanel(QWidget):
    open_requested = Signal(object)  # LibraryRow
    reindex_requested = Signal(list)  # paths
    remove_requested = Signal(list)  # paths
    core_requested = Signal(list, bool)  # paths, pin?
    scope_requested = Signal(list)  # LibraryRows to ask about, alone
    summary_requested = Signal(list)  # LibraryRows to summarize (the summary route)
    rename_requested = Signal(str, str)  # path, the title the user typed

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = LibraryModel()
        self.proxy = LibraryFilter()
        self.proxy.setSourceModel(self.model)
        self.filter_box = QLineEdit(placeholderText="Filter documents\u2026")
        self.filter_box.setClearButtonEnabled(True)
        self.filter_box.textChanged.connect(self.proxy.set_needle)
        self.table = self._make_table()
        self.empty_label = QLabel(EMPTY_TEXT, alignment=Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setObjectName("emptyLibrary")
        self.empty_label.setStyleSheet("color: #666; font-size: 14pt; border: 2px dashed #aaa;")
        self._stack = QStackedWidget()
        self._stack.addWidget(self.empty_label)
        self._stack.addWidget(self.table)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.filter_box)
        layout.addWidget(self._stack)
        self.detail = QLabel(wordWrap=True)
        self.detail.setStyleSheet("color: #b00020;")
        self.detail.hide()
        layout.addWidget(self.detail)
        self.table.selectionModel().selectionChanged.connect(self._show_detail)

    def _make_table(self) -> QTableView:
        table = QTableView()
        table.setModel(self.proxy)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        table.customContextMenuRequested.connect(self._show_menu)
        table.doubleClicked.connect(lambda idx: self.open_requested.emit(self._row(idx.row())))
        table.verticalHeader().hide()
        rename = QAction("Rename\u2026", table, shortcut=QKeySequence(Qt.Key.Key_F2))
        rename.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        rename.triggered.connect(self.rename_selected)
        table.addAction(rename)
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        header.resizeSection(0, 120)
        table.setTextElideMode(Qt.TextElideMode.ElideRight)
        return table

    def _show_detail(self) -> None:
        """The full reason of a selected file that failed (the table cell may be elided)."""
        failed = [r for r in self.selected_rows() if r.failed]
        self.detail.setText("\n".join(f"{Path(r.path).name}: {r.error}" for r in failed))
        self.detail.setVisible(bool(failed))

    def set_rows(self, rows: list[LibraryRow]) -> None:
        self.model.set_rows(rows)
        self._stack.setCurrentWidget(self.table if rows else self.empty_label)

    def _row(self, proxy_row: int) -> LibraryRow:
        source = self.proxy.mapToSource(self.proxy.index(proxy_row, 0))
        return self.model.row_at(source.row())

    def selected_rows(self) -> list[LibraryRow]:
        rows = {i.row() for i in self.table.selectionModel().selectedRows()}
        return [self._row(r) for r in sorted(rows)]

    def build_menu(self, rows: list[LibraryRow]) -> QMenu:
        menu = QMenu(self)
        paths = [r.path for r in rows]
        indexed = [r for r in rows if r.doc_id is not None]
        if len(rows) == 1 and indexed:
            menu.addAction("Open", lambda: self.open_requested.emit(rows[0]))
            rename = menu.addAction("Rename\u2026", lambda: self.ask_title(rows[0]))
            rename.setShortcut(QKeySequence(Qt.Key.Key_F2))  # shown; the table's action acts
        menu.addAction("Re-index", lambda: self.reindex_requested.emit(paths))
        menu.addAction("Remove from library", lambda: self.remove_requested.emit(paths))
        if indexed:
            label = "Ask about this document only" if len(indexed) == 1 else (
                f"Ask about these {len(indexed)} documents only"
            )
            menu.addAction(label, lambda: self.scope_requested.emit(indexed))
            pin = not all(r.is_core for r in indexed)
            label = "Pin as core" if pin else "Unpin from core"
            menu.addAction(label, lambda: self.core_requested.emit([r.path for r in indexed], pin))
            menu.addAction("Summarize", lambda: self.summary_requested.emit(indexed))
        return menu

    def rename_selected(self) -> QInputDialog | None:
        """F2: renames the one document selected (not a file that failed outside the catalog)."""
        rows = self.selected_rows()
        if len(rows) != 1 or rows[0].doc_id is None:
            return None
        return self.ask_title(rows[0])

    def ask_title(self, row: LibraryRow) -> QInputDialog:
        """Asks for a document's new title (window-modal); a changed, non-blank one is emitted."""
        dialog = QInputDialog(self)
        dialog.setWindowTitle("Rename document")
        dialog.setLabelText(f"New title for {Path(row.path).name}:")
        dialog.setTextValue(row.title)
        dialog.setMinimumWidth(420)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.textValueSelected.connect(lambda text: self._title_typed(row, text))
        dialog.open()
        return dialog

    def _title_typed(self, row: LibraryRow, text: str) -> None:
        title = " ".join(text.split())
        if title and title != row.title:
            self.rename_requested.emit(row.path, title)

    def _show_menu(self, pos: QPoint) -> None:
        rows = self.selected_rows()
        if rows:
            self.build_menu(rows).popup(self.table.viewport().mapToGlobal(pos))
