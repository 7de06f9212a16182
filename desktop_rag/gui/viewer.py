"""Viewer panel: PDFs in QtPdf, notes and text in a read-only text view; Ctrl+F finds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QDesktopServices,
    QKeySequence,
    QShortcut,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QStackedWidget,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_rag.domain import LineBox
from desktop_rag.gui.pdf_pane import PdfPane

PLACEHOLDER = "Click a citation or a source to open the passage here."
EVIDENCE_STRONG = QColor(255, 214, 0, 140)
EVIDENCE_CONTEXT = QColor(255, 214, 0, 40)


@dataclass(frozen=True, slots=True)
class Location:
    """What to show: a PDF page with line boxes, or a text with a character span."""

    title: str
    path: str
    page: int | None = None
    boxes: tuple[LineBox, ...] = ()  # highlighted strongly: the evidence, else the passage
    text: str | None = None  # for non-PDF documents: the text to show
    span: tuple[int, int] | None = None  # highlighted strongly
    context: tuple[LineBox, ...] = ()  # the rest of the passage, highlighted lightly
    context_span: tuple[int, int] | None = None


class NotePane(QPlainTextEdit):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)

    def show_span(
        self, text: str, span: tuple[int, int] | None, context: tuple[int, int] | None = None
    ) -> None:
        """Shows `text` with `span` highlighted (and `context` lightly), scrolled into view."""
        self.setPlainText(text)
        if span is None:
            self.setExtraSelections([])
            return
        cursor = self._selection_cursor(text, span)
        light = [] if context is None else [self._selection(text, context, EVIDENCE_CONTEXT)]
        self.setExtraSelections([self._selection(text, span, EVIDENCE_STRONG), *light])
        for position in (cursor.selectionEnd(), cursor.selectionStart()):
            moved = QTextCursor(cursor)
            moved.setPosition(position)
            self.setTextCursor(moved)
            self.ensureCursorVisible()

    def _selection_cursor(self, text: str, span: tuple[int, int]) -> QTextCursor:
        cursor = QTextCursor(self.document())
        cursor.setPosition(max(0, min(span[0], len(text))))
        cursor.setPosition(max(0, min(span[1], len(text))), QTextCursor.MoveMode.KeepAnchor)
        return cursor

    def _selection(
        self, text: str, span: tuple[int, int], colour: QColor
    ) -> QTextEdit.ExtraSelection:
        selection = QTextEdit.ExtraSelection()
        fmt = QTextCharFormat()
        fmt.setBackground(colour)
        selection.format = fmt
        selection.cursor = self._selection_cursor(text, span)
        return selection

    def highlighted_text(self) -> str:
        selections = self.extraSelections()
        return selections[0].cursor.selectedText() if selections else ""

    def find_text(self, text: str, forward: bool = True) -> bool:
        flag = QTextDocument.FindFlag
        flags = flag(0) if forward else flag.FindBackward
        if self.find(text, flags):
            return True
        op = QTextCursor.MoveOperation
        self.moveCursor(op.Start if forward else op.End)
        return bool(self.find(text, flags))


class FindBar(QWidget):
    def __init__(self, viewer: ViewerPanel) -> None:
        super().__init__(viewer)
        self._viewer = viewer
        self.edit = QLineEdit(placeholderText="Find in document\u2026")
        self.edit.returnPressed.connect(lambda: self.run(True))
        self.status = QLabel()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit)
        for label, forward in (("\u25b2", False), ("\u25bc", True)):
            button = _tool_button(label)
            button.clicked.connect(lambda _=False, f=forward: self.run(f))
            layout.addWidget(button)
        layout.addWidget(self.status)
        close = _tool_button("\u00d7")  # in every font, unlike the dingbat \u2715
        close.setToolTip("Close the find bar")
        close.clicked.connect(self.hide)
        layout.addWidget(close)

    def open(self) -> None:
        self.show()
        self.edit.setFocus()
        self.edit.selectAll()

    def run(self, forward: bool) -> bool:
        found = self._viewer.find_text(self.edit.text(), forward)
        self.status.setText("" if found else "not found")
        return found


class ViewerPanel(QWidget):
    ask_about_requested = Signal(str)  # the open document's path
    summarize_requested = Signal(str)  # the open document's path

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel("<b>Viewer</b>")
        self.ask_button = QPushButton("Ask about this")
        self.ask_button.setToolTip("Ask the next questions about this document only")
        self.ask_button.clicked.connect(self._ask_about)
        self.ask_button.hide()
        self.summarize_button = QPushButton("Summarize")
        self.summarize_button.setToolTip("Summarize the whole document, citing its sections")
        self.summarize_button.clicked.connect(self._summarize)
        self.summarize_button.hide()
        self.open_button = QPushButton("Open file")
        self.open_button.setToolTip("Open the file in your default application for it")
        self.open_button.clicked.connect(self._open_externally)
        self.open_button.hide()
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.pdf = PdfPane(owner=self)
        self.note = NotePane()
        self.placeholder = QLabel(PLACEHOLDER, alignment=Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.placeholder.setStyleSheet("color: #777;")
        self.stack = QStackedWidget()
        for widget in (self.placeholder, self.pdf, self.note):
            self.stack.addWidget(widget)
        self.find_bar = FindBar(self)
        self.find_bar.hide()
        self.page_box = QSpinBox(minimum=1, maximum=1, prefix="Page ")
        self.page_box.valueChanged.connect(self._page_box_changed)
        self.pdf.page_changed.connect(self._on_page_changed)
        self._build_layout()
        QShortcut(QKeySequence.StandardKey.Find, self, self.find_bar.open,
                  context=Qt.ShortcutContext.WindowShortcut)
        self.location: Location | None = None

    def _build_layout(self) -> None:
        bar = QHBoxLayout()
        bar.addWidget(self.title, 1)
        bar.addWidget(self.ask_button)
        bar.addWidget(self.summarize_button)
        bar.addWidget(self.open_button)
        bar.addWidget(self.page_box)
        for label, slot in (("\u2212", lambda: self.pdf.zoom_by(1 / 1.25)),
                            ("+", lambda: self.pdf.zoom_by(1.25)),
                            ("Fit", self.pdf.fit_width)):
            button = QPushButton(label)
            button.setFixedWidth(36)
            button.clicked.connect(slot)
            bar.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.find_bar)
        layout.addWidget(self.stack, 1)

    def _ask_about(self) -> None:
        if self.location is not None:
            self.ask_about_requested.emit(self.location.path)

    def _summarize(self) -> None:
        if self.location is not None:
            self.summarize_requested.emit(self.location.path)

    def _open_externally(self) -> None:
        """The file in the application the desktop opens it with (Word, a mail client ...)."""
        if self.location is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(self.location.path))

    def open_location(self, location: Location) -> None:
        self.location = location
        self.ask_button.show()
        self.summarize_button.show()
        self.open_button.show()
        page = f" \u2014 page {location.page}" if location.page else ""
        self.title.setText(f"<b>{_escape(location.title)}</b>{page}")
        if location.text is None:
            self._open_pdf(location.path, location.page or 1, location.boxes, location.context)
        else:
            self.stack.setCurrentWidget(self.note)
            self.page_box.setEnabled(False)
            self.note.show_span(location.text, location.span, location.context_span)

    def _open_pdf(
        self, path: str, page: int, boxes: Sequence[LineBox], context: Sequence[LineBox] = ()
    ) -> None:
        self.stack.setCurrentWidget(self.pdf)
        self.pdf.load(path)
        self.page_box.setEnabled(True)
        self.page_box.setMaximum(max(self.pdf.page_count(), 1))
        self.pdf.show_location(page, boxes, context)
        self.page_box.blockSignals(True)
        self.page_box.setValue(page)
        self.page_box.blockSignals(False)

    def find_text(self, text: str, forward: bool = True) -> bool:
        if not text:
            return False
        if self.stack.currentWidget() is self.pdf:
            return self.pdf.find_text(text, forward)
        if self.stack.currentWidget() is self.note:
            return self.note.find_text(text, forward)
        return False

    def _page_box_changed(self, page: int) -> None:
        if self.stack.currentWidget() is self.pdf:
            self.pdf.go_to_page(page)

    def _on_page_changed(self, page: int, count: int) -> None:
        self.page_box.blockSignals(True)
        self.page_box.setMaximum(max(count, 1))
        self.page_box.setValue(page)
        self.page_box.blockSignals(False)


def _escape(text: str) -> str:
    import html

    return html.escape(text)


def _tool_button(text: str) -> QToolButton:
    button = QToolButton()
    button.setText(text)
    return button
