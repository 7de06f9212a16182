"""Core panel: pinned documents, their tokens against the budget, cache state, rebuild."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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

from desktop_rag.progress import ProgressEvent

STATE_TEXT = {
    "ready": "ready",
    "stale": "stale \u2014 rebuild to use the pinned documents",
    "building": "building\u2026",
    "empty": "no documents pinned",
    "missing": "not built yet",
    "server-cache": "kept by the LLM server (its prompt cache)",
    "uncached": "not cached (this model keeps no saved state)",
}


@dataclass(frozen=True, slots=True)
class CoreView:
    docs: tuple[tuple[str, int], ...] = field(default=())  # (title, tokens)
    total: int = 0
    budget: int = 0
    state: str = "empty"


def core_view(status: Any) -> CoreView:
    """Reads the facade's CoreStatus into what the panel shows."""
    docs = tuple((_title(d), int(_first(d, "tokens", "token_count", default=0)))
                 for d in _first(status, "docs", "documents", default=()))
    total = int(_first(status, "total_tokens", "total", default=sum(t for _, t in docs)))
    budget = int(_first(status, "budget_tokens", "budget", default=0))
    state = str(getattr(_first(status, "state", default="empty"), "value",
                        _first(status, "state", default="empty")))
    return CoreView(docs, total, budget, state)


def _first(obj: Any, *names: str, default: Any) -> Any:
    for name in names:
        if isinstance(obj, dict) and name in obj:
            return obj[name]
        if hasattr(obj, name):
            return getattr(obj, name)
    return default


def _title(doc: Any) -> str:
    return str(_first(doc, "title", "path", "doc_id", default="?"))


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
        self.show_status(CoreView())

    def show_status(self, view: CoreView) -> None:
        self.docs.clear()
        for title, tokens in view.docs:
            self.docs.addItem(f"{title} \u2014 {tokens:,} tokens")
        self.usage.setRange(0, max(view.budget, 1))
        self.usage.setValue(min(view.total, max(view.budget, 1)))
        over = view.budget and view.total > view.budget
        self.usage.setStyleSheet("QProgressBar::chunk { background: #c62828; }" if over else "")
        self.state_label.setText(f"Cache: {STATE_TEXT.get(view.state, view.state)}")
        self.rebuild_button.setEnabled(bool(view.docs) and view.state != "building")

    def show_progress(self, event: object) -> None:
        if not isinstance(event, ProgressEvent):
            return
        done = f" {event.done}/{event.total}" if event.total else ""
        self.state_label.setText(f"Cache: building\u2026{done}")
        self.rebuild_button.setEnabled(False)
