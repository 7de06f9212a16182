"""New-note dialog: a title and Markdown text, saved to the notes folder and indexed."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)


class NoteDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New note")
        self.resize(560, 420)
        self.title_edit = QLineEdit(placeholderText="Title")
        self.text_edit = QPlainTextEdit()
        self.text_edit.setPlaceholderText("Write Markdown here\u2026")
        self.error_label = QLabel()
        self.error_label.setStyleSheet("color: #b00020;")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title_edit)
        layout.addWidget(self.text_edit, 1)
        layout.addWidget(self.error_label)
        layout.addWidget(buttons)

    def note(self) -> tuple[str, str]:
        return self.title_edit.text().strip(), self.text_edit.toPlainText()

    def accept(self) -> None:
        title, text = self.note()
        if not title or not text.strip():
            self.error_label.setText("A note needs a title and some text.")
            return
        super().accept()
