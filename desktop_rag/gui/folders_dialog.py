"""The followed folders: which folders the library keeps up with, and a way to stop that."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_rag.domain import FollowedFolder

EXPLANATION = (
    "The library follows these folders: at start, while the app is open and with Sync (F5), it "
    "indexes the files added to them or changed, and drops the ones deleted. Stop following "
    "keeps a folder's documents; Remove from library removes them (the files stay on disk)."
)
MISSING_TIP = "Moved, or on a drive not mounted: its documents are kept until you remove it."


class FoldersDialog(QDialog):
    add_requested = Signal()
    sync_requested = Signal()
    remove_requested = Signal(list)  # the chosen folders' paths
    unfollow_requested = Signal(list)  # the chosen folders' paths

    def __init__(self, parent: QWidget | None, load: Callable[[], object]) -> None:
        """`load` asks for the folders in the background; they arrive through `set_folders`."""
        super().__init__(parent)
        self._load = load
        self.setWindowTitle("Followed folders")
        self.resize(720, 360)
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Folder", "Documents", "State"])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.empty_label = QLabel("No folder is followed yet: add one, or drop it on the window.")
        self.remove_button = QPushButton("Remove from library")
        self.remove_button.setToolTip("Removes the folder's documents from the library and stops "
                                      "following it; the files stay on disk")
        self.unfollow_button = QPushButton("Stop following")
        self.unfollow_button.setToolTip("Keeps the folder's documents; new files in it are no "
                                        "longer added")
        for button, signal in ((self.remove_button, self.remove_requested),
                               (self.unfollow_button, self.unfollow_requested)):
            button.setEnabled(False)
            button.clicked.connect(lambda _c=False, s=signal: s.emit(self.selected_paths()))
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self._layout()

    def _layout(self) -> None:
        explanation = QLabel(EXPLANATION)
        explanation.setWordWrap(True)
        add, close = QPushButton("Add folder\u2026"), QPushButton("Close")
        self.sync_button = QPushButton("Sync now")
        add.clicked.connect(self.add_requested.emit)
        self.sync_button.clicked.connect(self.sync_requested.emit)
        close.clicked.connect(self.accept)
        buttons = QHBoxLayout()
        for button in (add, self.sync_button, self.unfollow_button, self.remove_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(explanation)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.empty_label)
        layout.addLayout(buttons)

    def _selection_changed(self) -> None:
        chosen = bool(self.selected_paths())
        self.remove_button.setEnabled(chosen)
        self.unfollow_button.setEnabled(chosen)

    def reload(self) -> None:
        self._load()

    def set_folders(self, rows: Sequence[FollowedFolder]) -> None:
        self.table.setRowCount(len(rows))
        for n, folder in enumerate(rows):
            self._set_row(n, folder)
        self.table.resizeColumnToContents(1)
        self.table.resizeColumnToContents(2)
        self.empty_label.setVisible(not rows)

    def _set_row(self, row: int, folder: FollowedFolder) -> None:
        count = QTableWidgetItem(str(folder.documents))
        count.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        state = QTableWidgetItem("present" if folder.present else "missing")
        if not folder.present:
            state.setForeground(QColor("#b00020"))
            state.setToolTip(MISSING_TIP)
        path = QTableWidgetItem(folder.path)
        path.setToolTip(folder.path)
        for column, item in enumerate((path, count, state)):
            self.table.setItem(row, column, item)

    def folders_shown(self) -> list[str]:
        return [self._path(n) for n in range(self.table.rowCount())]

    def selected_paths(self) -> list[str]:
        rows = sorted({index.row() for index in self.table.selectedIndexes()})
        return [self._path(n) for n in rows]

    def select(self, paths: Sequence[str]) -> None:
        self.table.clearSelection()
        for n in range(self.table.rowCount()):
            if self._path(n) in paths:
                self.table.selectRow(n)

    def _path(self, row: int) -> str:
        item = self.table.item(row, 0)
        return item.text() if item is not None else ""
