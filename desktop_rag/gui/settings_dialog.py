"""Settings dialog: builds new Settings from its fields (the shown ones are never changed:
worker threads read them), validates them with desktop_rag.config."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop_rag.config import RERANKERS, Settings
from desktop_rag.domain.errors import ConfigError

PACKAGED = "Packaged default"


class SettingsDialog(QDialog):
    def __init__(self, settings: Settings, data_dir: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setMinimumWidth(560)
        self.original = settings
        self.result_settings: Settings | None = None
        self.model_path = QLineEdit(settings.models.chat_model)
        self.model_path.setPlaceholderText(PACKAGED)
        self.gpu_layers = QComboBox(editable=True)
        self.gpu_layers.addItems(["auto", "0", "-1"])
        self.gpu_layers.setCurrentText(settings.llm.gpu_layers)
        self.context_size = _spin(512, 131072, settings.llm.context_size, 512)
        self.top_k = _spin(1, 100, settings.retrieval.top_k)
        self.reranker = QComboBox()
        self.reranker.addItems(list(RERANKERS))
        self.reranker.setCurrentText(settings.retrieval.reranker)
        self.data_dir = QLineEdit(data_dir)
        self.sync_on_start = QCheckBox("Check the library's folders for changes at start")
        self.sync_on_start.setChecked(settings.ingest.sync_on_start)
        self.watch_folders = QCheckBox("Watch them for changes while the app is open")
        self.watch_folders.setChecked(settings.ingest.watch_folders)
        self.error_label = QLabel()
        self.error_label.setStyleSheet("color: #b00020;")
        self.error_label.setWordWrap(True)
        self._build()

    def _build(self) -> None:
        form = QFormLayout()
        form.addRow("Chat model (GGUF):", _with_browse(self.model_path, self._browse_model))
        form.addRow("GPU layers:", self.gpu_layers)
        form.addRow("Context size (tokens):", self.context_size)
        form.addRow("Top-k passages:", self.top_k)
        form.addRow("Re-ranker:", self.reranker)
        form.addRow("Data folder:", _with_browse(self.data_dir, self._browse_data))
        form.addRow("", self.sync_on_start)
        form.addRow("", self.watch_folders)
        note = QLabel("Model changes reload the model; a new data folder applies on next start.")
        note.setStyleSheet("color: #666;")
        note.setWordWrap(True)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(self.error_label)
        layout.addWidget(buttons)

    def _browse_model(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Choose a GGUF model", "", "GGUF (*.gguf)")
        if path:
            self.model_path.setText(path)

    def _browse_data(self) -> None:
        current = self.data_dir.text()
        path = QFileDialog.getExistingDirectory(self, "Choose the data folder", current)
        if path:
            self.data_dir.setText(path)

    def edited(self) -> Settings:
        """New validated settings with the dialog's values; raises ConfigError. Each section
        is replaced, not changed: the original is what the running app still reads."""
        old = self.original
        settings = replace(
            old,
            models=replace(old.models, chat_model=self.model_path.text().strip()),
            llm=replace(old.llm, gpu_layers=self.gpu_layers.currentText().strip(),
                        context_size=self.context_size.value()),
            retrieval=replace(old.retrieval, top_k=self.top_k.value(),
                              reranker=RERANKERS[self.reranker.currentIndex()]),
            ingest=replace(old.ingest, sync_on_start=self.sync_on_start.isChecked(),
                           watch_folders=self.watch_folders.isChecked()),
        )
        _check_model_file(settings.models.chat_model)
        return settings.validate()

    def accept(self) -> None:
        try:
            self.result_settings = self.edited()
        except ConfigError as exc:
            hint = f" \u2014 {exc.hint}" if exc.hint else ""
            self.error_label.setText(exc.message + hint)
            return
        super().accept()


def _check_model_file(path: str) -> None:
    if path and not (Path(path).is_file() and path.lower().endswith(".gguf")):
        raise ConfigError(f"Chat model {path} is not a GGUF file",
                          "choose an existing .gguf file, or leave it empty for the packaged model")


def _spin(low: int, high: int, value: int, step: int = 1) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setSingleStep(step)
    box.setValue(value)
    return box


def _with_browse(edit: QLineEdit, slot: Callable[[], None]) -> QWidget:
    holder = QWidget()
    layout = QHBoxLayout(holder)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(edit, 1)
    button = QPushButton("Browse\u2026")
    button.clicked.connect(slot)
    layout.addWidget(button)
    return holder
