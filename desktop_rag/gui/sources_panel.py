"""Sources panel: the passages given to the model for the last answer, cited ones marked."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

from desktop_rag.domain import Answer, Passage

HEADERS = ("#", "Source", "Page", "Score", "Cited")


class SourcesPanel(QTreeWidget):
    open_requested = Signal(object)  # Passage

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderLabels(list(HEADERS))
        self.setRootIsDecorated(False)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.header().setStretchLastSection(False)
        self.itemActivated.connect(self._activated)
        self.itemClicked.connect(self._activated)
        self._passages: list[Passage] = []

    def show_answer(self, answer: Answer | None) -> None:
        if answer is None:
            self.show_passages(())
        else:
            self.show_passages(answer.passages, {c.n for c in answer.citations})

    def show_passages(self, passages: Sequence[Passage], cited: Collection[int] = ()) -> None:
        """The passages given to the model, shown as soon as retrieval has found them; the
        final answer shows them again with its citations marked."""
        self.clear()
        self._passages = list(passages)
        for passage in self._passages:
            self.addTopLevelItem(_item(passage, passage.n in cited))
        for column in range(len(HEADERS)):
            self.resizeColumnToContents(column)
        self.header().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)

    def passages(self) -> list[Passage]:
        return list(self._passages)

    def _activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        index = self.indexOfTopLevelItem(item)
        if 0 <= index < len(self._passages):
            self.open_requested.emit(self._passages[index])


def _item(passage: Passage, cited: bool) -> QTreeWidgetItem:
    chunk = passage.chunk
    page = str(chunk.page) if chunk.page is not None else ""
    core = " (core)" if passage.is_core else ""
    item = QTreeWidgetItem([str(passage.n), chunk.title + core, page,
                            f"{passage.score:.3f}", "yes" if cited else ""])
    item.setToolTip(1, passage.text[:600])
    if cited:
        font = QFont()
        font.setBold(True)
        for column in range(len(HEADERS)):
            item.setFont(column, font)
    item.setTextAlignment(4, Qt.AlignmentFlag.AlignCenter)
    return item
