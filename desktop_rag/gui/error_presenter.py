"""The one place where errors from any worker reach the user: message plus hint."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop_rag.domain.errors import CancelledError, DesktopRagError

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class UserError:
    message: str
    hint: str


def describe(exc: BaseException) -> UserError:
    """The user-facing message and hint of any exception."""
    if isinstance(exc, DesktopRagError):
        return UserError(exc.message, exc.hint)
    return UserError(
        f"Unexpected error: {type(exc).__name__}: {exc}",
        "see the log for details; please report it if it keeps happening",
    )


class ErrorPresenter(QObject):
    """Shows errors in a message box (or only records them when `interactive` is False)."""

    shown = Signal(str, str)

    def __init__(self, parent_widget: QWidget | None, interactive: bool = True) -> None:
        super().__init__(parent_widget)
        self._parent_widget = parent_widget
        self.interactive = interactive
        self.history: list[UserError] = []

    @Slot(object)
    def present(self, exc: BaseException) -> None:
        if isinstance(exc, CancelledError):
            return
        if not isinstance(exc, DesktopRagError):
            log.error("unexpected error", exc_info=exc)
        error = describe(exc)
        self.history.append(error)
        self.shown.emit(error.message, error.hint)
        if self.interactive:
            self._show_box(error)

    def _show_box(self, error: UserError) -> None:
        box = QMessageBox(self._parent_widget)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("Desktop RAG")
        box.setText(error.message)
        box.setInformativeText(error.hint)
        box.setModal(False)
        box.show()
