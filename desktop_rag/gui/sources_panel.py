"""Sources panel: the passages given to the model for the last answer, cited ones marked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

from desktop_rag.domain import Answer, Evidence, Passage

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
        self._evidence: dict[int, Evidence] = {}  # passage number -> its best evidence

    def evidence_of(self, n: int) -> Evidence | None:
        return self._evidence.get(n)

    def show_answer(self, answer: Answer | None) -> None:
        """The answer's passages, cited ones marked at the page of their evidence."""
        if answer is None:
            self.show_passages(())
            return
        self._evidence = {c.n: c.evidence[0] for c in answer.citations if c.evidence}
        self.show_passages(answer.passages, {c.n: c.page for c in answer.citations})

    def show_passages(
        self, passages: Sequence[Passage], cited: Mapping[int, int | None] | None = None
    ) -> None:
        """The passages given to the model, shown as soon as retrieval has found them; the
        final answer shows them again with its citations marked."""
        self.clear()
        cited = cited or {}
        if not cited:
            self._evidence = {}
        self._passages = list(passages)
        for passage in self._passages:
            page = cited.get(passage.n, passage.chunk.page)
            self.addTopLevelItem(_item(passage, passage.n in cited, page))
        for column in range(len(HEADERS)):
            self.resizeColumnToContents(column)
        self.header().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)

    def passages(self) -> list[Passage]:
        return list(self._passages)

    def _activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        index = self.indexOfTopLevelItem(item)
        if 0 <= index < len(self._passages):
            self.open_requested.emit(self._passages[index])


def _item(passage: Passage, cited: bool, at: int | None) -> QTreeWidgetItem:
    chunk = passage.chunk
    page = str(at) if at is not None else ""
    core = " (core)" if passage.is_core else ""
    added = f" (added: {passage.added_for})" if passage.added_for else ""
    score = "—" if passage.added_for else f"{passage.score:.3f}"  # not ranked: read by the app
    item = QTreeWidgetItem([str(passage.n), chunk.title + core + added, page, score,
                            "yes" if cited else ""])  # fmt: skip
    item.setToolTip(1, passage.text[:600])
    if cited:
        font = QFont()
        font.setBold(True)
        for column in range(len(HEADERS)):
            item.setFont(column, font)
    item.setTextAlignment(4, Qt.AlignmentFlag.AlignCenter)
    return item
