"""Chat pane: chat picker, conversation view with streaming Markdown, question box, Stop.

The pane only renders and emits intents; the main window runs the work on the LLM worker.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from desktop_rag.domain import Answer, Chunk
from desktop_rag.gui.render import TurnView, chat_html, parse_cite_link

RENDER_INTERVAL_MS = 60


def turn_from_answer(answer: Answer, note: str = "") -> TurnView:
    return TurnView(answer.question, answer.answer, refused=answer.refused,
                    unsupported=answer.unsupported_sentences,
                    citations=tuple(c.n for c in answer.citations), note=note,
                    inferred=tuple(c.n for c in answer.citations if c.inferred),
                    calculations=answer.calculations,
                    focus=_notes(answer))


def _notes(answer: Answer) -> str:
    """The lines under an answer: the document searched first, the sides of a comparison."""
    focus = answer.focus.describe() if answer.focus else ""
    compared = answer.route.reason.capitalize() if answer.route.handled_by == "compare" else ""
    return ". ".join(text for text in (focus, compared) if text)


class QuestionBox(QPlainTextEdit):
    """Enter sends, Shift+Enter adds a line."""

    submitted = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if enter and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            self.submitted.emit()
            return
        super().keyPressEvent(event)


class ChatPane(QWidget):
    ask_requested = Signal(str)
    stop_requested = Signal()
    new_chat_requested = Signal()
    chat_selected = Signal(str)
    citation_clicked = Signal(int, int)  # turn index, citation number
    scope_cleared = Signal()  # back to asking the whole library

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.turns: list[TurnView] = []
        self.answers: dict[int, Answer] = {}
        self.restored_citations: dict[int, dict[int, Chunk]] = {}  # past turns of a chat
        self.view = QTextBrowser()
        self.view.setOpenLinks(False)
        self.view.anchorClicked.connect(self._link_clicked)
        self.chats = QComboBox()
        self.chats.activated.connect(self._chat_activated)
        self.state_label = QLabel()
        self.state_label.setStyleSheet("color: #555;")
        self.question = QuestionBox()
        self.question.setPlaceholderText("Ask about your documents\u2026 (Enter to send)")
        self.question.setFixedHeight(64)
        self.question.submitted.connect(self._submit)
        self.ask_button = QPushButton("Ask")
        self.ask_button.clicked.connect(self._submit)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop generating (Esc)")
        self.stop_button.clicked.connect(self.stop_requested)
        self.stop_button.setEnabled(False)
        self.scope_label = QLabel(wordWrap=True)
        self.scope_label.setObjectName("chatScope")
        self.scope_button = QPushButton("Whole library")
        self.scope_button.setToolTip("Ask about every document in the library again")
        self.scope_button.clicked.connect(self.scope_cleared)
        self._render_timer = QTimer(self, singleShot=True, interval=RENDER_INTERVAL_MS)
        self._render_timer.timeout.connect(self.refresh)
        self._build_layout()
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self._escape,
                  context=Qt.ShortcutContext.WindowShortcut)
        self.refresh()

    def _build_layout(self) -> None:
        top = QHBoxLayout()
        top.addWidget(QLabel("Chat:"))
        top.addWidget(self.chats, 1)
        new = QPushButton("New chat")
        new.setToolTip("Start a new conversation (Ctrl+N)")
        new.clicked.connect(self.new_chat_requested)
        top.addWidget(new)
        scope = QHBoxLayout()
        scope.addWidget(self.scope_label, 1)
        scope.addWidget(self.scope_button)
        bottom = QHBoxLayout()
        bottom.addWidget(self.question, 1)
        buttons = QVBoxLayout()
        buttons.addWidget(self.ask_button)
        buttons.addWidget(self.stop_button)
        bottom.addLayout(buttons)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.state_label)
        layout.addLayout(scope)
        layout.addLayout(bottom)
        self.set_scope([])

    # ---- chats ------------------------------------------------------------------------
    def set_chats(self, chats: list[tuple[str, str]], current: str | None) -> None:
        """`chats` as (chat_id, title) pairs, newest first."""
        self.chats.blockSignals(True)
        self.chats.clear()
        for chat_id, title in chats:
            self.chats.addItem(title or "Untitled chat", chat_id)
        index = self.chats.findData(current) if current else -1
        if current and index < 0:
            self.chats.insertItem(0, "New chat", current)
            index = 0
        self.chats.setCurrentIndex(index)
        self.chats.blockSignals(False)

    def _chat_activated(self, index: int) -> None:
        chat_id = self.chats.itemData(index)
        if isinstance(chat_id, str):
            self.chat_selected.emit(chat_id)

    def show_turns(
        self, turns: list[TurnView], cited: dict[int, dict[int, Chunk]] | None = None
    ) -> None:
        """Shows past turns (`cited`: their citations' chunks by turn and number); an answer
        still streaming stays at the end."""
        streaming = [t for t in self.turns[-1:] if t.streaming]
        self.turns = list(turns) + streaming
        self.answers.clear()
        self.restored_citations = dict(cited or {})
        self.refresh()

    # ---- asking and streaming ------------------------------------------------------------
    def _submit(self) -> None:
        text = self.question.toPlainText().strip()
        if text and not self.busy:
            self.ask_requested.emit(text)

    @property
    def busy(self) -> bool:
        return self.stop_button.isEnabled()

    def begin_answer(self, question: str) -> None:
        self.question.clear()
        self.turns.append(TurnView(question, "", streaming=True))
        self._set_busy(True)
        self.refresh()

    def show_stage(self, text: str) -> None:
        """What the pending answer waits on (searching, reading...); its first words replace it."""
        if self.turns and self.turns[-1].streaming:
            self.turns[-1] = replace(self.turns[-1], stage=text)
            self._render_soon()

    def append_token(self, token: str) -> None:
        if self.turns and self.turns[-1].streaming:
            last = self.turns[-1]
            self.turns[-1] = replace(last, answer=last.answer + token)
            self._render_soon()

    def _render_soon(self) -> None:
        """At most one render per RENDER_INTERVAL_MS: tokens and progress come faster."""
        if not self._render_timer.isActive():
            self._render_timer.start()

    def finish_answer(self, answer: Answer, note: str = "") -> None:
        self._render_timer.stop()
        if self.turns and self.turns[-1].streaming:
            self.turns.pop()
        self.answers[len(self.turns)] = answer
        self.turns.append(turn_from_answer(answer, note))
        self._set_busy(False)
        self.refresh()

    def fail_answer(self, note: str) -> None:
        self._render_timer.stop()
        if self.turns and self.turns[-1].streaming:
            last = self.turns[-1]
            self.turns[-1] = replace(last, streaming=False, note=note)
        self._set_busy(False)
        self.refresh()

    def _set_busy(self, busy: bool) -> None:
        self.stop_button.setEnabled(busy)
        self.ask_button.setEnabled(not busy)

    def _escape(self) -> None:
        if self.busy:
            self.stop_requested.emit()

    def refresh(self) -> None:
        bar = self.view.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() - 4
        self.view.setHtml(chat_html(self.turns))
        if at_end:
            bar.setValue(bar.maximum())

    def _link_clicked(self, url: QUrl) -> None:
        target = parse_cite_link(url.toString())
        if target is not None:
            self.citation_clicked.emit(*target)

    def set_state(self, text: str) -> None:
        self.state_label.setText(text)

    def set_scope(self, names: list[str]) -> None:
        """Shows which documents the next questions are asked about (none: the whole library)."""
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        self.scope_label.setText(f"Asking about: {shown}" if names else "")
        self.scope_label.setToolTip("\n".join(names))
        self.scope_label.setVisible(bool(names))
        self.scope_button.setVisible(bool(names))
