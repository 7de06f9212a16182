"""Background-task progress strip: bar, files/pages/ETA text and a Cancel button."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from desktop_rag.domain.progress import ProgressEvent


def describe_progress(event: ProgressEvent) -> str:
    parts = [event.stage.replace("-", " ").capitalize()]
    if event.files_total:
        parts.append(f"file {min(event.files_done + 1, event.files_total)} of {event.files_total}")
    if event.pages_done:
        parts.append(_plural(event.pages_done, "page"))
    if event.chunks_done:
        parts.append(_plural(event.chunks_done, "chunk"))
    if event.eta_s is not None and event.eta_s >= 0:
        parts.append(f"about {format_eta(event.eta_s)} left")
    if event.message:
        parts.append(event.message)
    return " \u00b7 ".join(parts)


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def format_eta(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def fraction(event: ProgressEvent) -> tuple[int, int]:
    """(value, maximum) for the bar; files when known, else the stage's own counter."""
    if event.files_total:
        partial = event.done / event.total if event.total else 0.0
        return int((event.files_done + min(partial, 1.0)) * 100), event.files_total * 100
    return event.done, event.total


class TaskProgress(QWidget):
    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bar = QProgressBar()
        self.bar.setTextVisible(False)
        self.bar.setFixedWidth(160)
        self.label = QLabel()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self._cancel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel_button)
        self.hide()

    def start(self, title: str) -> None:
        self.label.setText(title)
        self.bar.setRange(0, 0)
        self.cancel_button.setEnabled(True)
        self.show()

    def update_progress(self, event: ProgressEvent) -> None:
        value, maximum = fraction(event)
        if maximum > 0:
            self.bar.setRange(0, maximum)
            self.bar.setValue(min(value, maximum))
        self.label.setText(describe_progress(event))

    def finish(self) -> None:
        self.hide()

    def _cancel(self) -> None:
        self.cancel_button.setEnabled(False)
        self.label.setText("Cancelling\u2026")
        self.cancel_requested.emit()
