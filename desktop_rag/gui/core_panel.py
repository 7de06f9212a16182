"""Core panel: pinned documents, their tokens against the budget, cache state, rebuild."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_rag.domain.progress import ProgressEvent
from desktop_rag.services.core import CoreDoc, CoreState, CoreStatus

STATE_TEXT = {
    CoreState.READY: "ready",
    CoreState.STALE: "stale \u2014 rebuild to use the pinned documents",
    CoreState.BUILDING: "building\u2026",
    CoreState.EMPTY: "no documents pinned",
    CoreState.MISSING: "not built yet",
    CoreState.SERVER_CACHE: "kept by the LLM server (its prompt cache)",
    CoreState.UNCACHED: "not cached (this model keeps no saved state)",
}


class CorePanel(QWidget):
    rebuild_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.docs = QListWidget()
        self.usage = QProgressBar()
        self.usage.setFormat("%v / %m tokens")
        self.state_label = QLabel()
        self.rebuild_button = QPushButton("Rebuild cache")
        self.rebuild_button.clicked.connect(self.rebuild_requested)
        top = QHBoxLayout()
        top.addWidget(QLabel("<b>Core</b> (always in context)"), 1)
        top.addWidget(self.rebuild_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.docs, 1)
        layout.addWidget(self.usage)
        layout.addWidget(self.state_label)
        self._show_docs(())
        self._show_usage(0, 0)
        self._show_state(CoreState.EMPTY, pinned=False)

    def show_status(self, status: CoreStatus) -> None:
        """The facade's core status, as it is: pinned documents, tokens, cache state."""
        self._show_docs(status.docs)
        self._show_usage(status.total_tokens, status.budget)
        self._show_state(status.state, pinned=bool(status.docs))

    def _show_docs(self, docs: tuple[CoreDoc, ...]) -> None:
        self.docs.clear()
        for doc in docs:
            self.docs.addItem(f"{doc.title} \u2014 {doc.tokens:,} tokens")

    def _show_usage(self, total: int, budget: int) -> None:
        """The token bar, red when the pinned documents exceed the budget."""
        self.usage.setRange(0, max(budget, 1))
        self.usage.setValue(min(total, max(budget, 1)))
        over = budget and total > budget
        self.usage.setStyleSheet("QProgressBar::chunk { background: #c62828; }" if over else "")

    def _show_state(self, state: CoreState, pinned: bool) -> None:
        self.state_label.setText(f"Cache: {STATE_TEXT[state]}")
        self.rebuild_button.setEnabled(pinned and state is not CoreState.BUILDING)

    def show_progress(self, event: ProgressEvent) -> None:
        done = f" {event.done}/{event.total}" if event.total else ""
        self.state_label.setText(f"Cache: building\u2026{done}")
        self.rebuild_button.setEnabled(False)
