"""Chat work on the LLM worker: ask with streaming and Stop, chats, engine state, citations."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from desktop_rag.domain import EVERYWHERE, Answer, AnswerStage, Chunk, DocScope, Evidence
from desktop_rag.domain.errors import CancelledError
from desktop_rag.gui.chat_pane import ChatPane
from desktop_rag.gui.error_presenter import describe
from desktop_rag.gui.facade import GuiServices
from desktop_rag.gui.library_model import LibraryRow
from desktop_rag.gui.render import CITE, TurnView
from desktop_rag.gui.workers import Job, SerialWorker
from desktop_rag.services.ports import EngineInfo
from desktop_rag.store.chats import ChatSummary, ChatTurn

log = logging.getLogger(__name__)


def chat_pairs(chats: Sequence[ChatSummary]) -> list[tuple[str, str]]:
    """(chat_id, title) of the facade's chat summaries, for the chat picker."""
    return [(c.chat_id, c.title) for c in chats]


def turn_views(history: Sequence[ChatTurn]) -> list[TurnView]:
    """Past turns as TurnViews: each assistant message answers the user message before it."""
    turns: list[TurnView] = []
    pending = ""
    for item in history:
        if item.role == "user":
            pending = item.content
        elif item.role == "assistant":
            turns.append(_restored_answer(pending, item))
            pending = ""
    return turns


def _restored_answer(question: str, item: ChatTurn) -> TurnView:
    """A stored answer; a citation without its [n] in the text counts as inferred (chat files
    from before the flag was stored do not say)."""
    marked = {int(n) for group in CITE.findall(item.content) for n in group.split(",")}
    cited = item.citations
    return TurnView(question, item.content, refused=item.refused,
                    citations=tuple(int(c["n"]) for c in cited),
                    inferred=tuple(int(c["n"]) for c in cited
                                   if c.get("inferred") or int(c["n"]) not in marked),
                    calculations=item.calculations)  # fmt: skip


def _answers(history: Sequence[ChatTurn]) -> list[ChatTurn]:
    """The assistant messages, in order: turn n of the chat pane is the n-th of them."""
    return [item for item in history if item.role == "assistant"]


def cited_chunks(
    history: Sequence[ChatTurn], chunks: dict[str, Chunk]
) -> dict[int, dict[int, Chunk]]:
    """Turn index -> citation number -> chunk, for the stored citations of past answers whose
    chunks are still in the library (what a click on [n] in a restored chat opens)."""
    out: dict[int, dict[int, Chunk]] = {}
    for turn, item in enumerate(_answers(history)):
        found = {int(c["n"]): chunks[c["chunk_id"]] for c in item.citations
                 if c.get("chunk_id") in chunks}  # fmt: skip
        if found:
            out[turn] = found
    return out


def stored_evidence(history: Sequence[ChatTurn]) -> dict[int, dict[int, Evidence]]:
    """Turn index -> citation number -> its best stored evidence (chats saved before evidence
    was stored have none; a click then shows the whole passage)."""
    out: dict[int, dict[int, Evidence]] = {}
    for turn, item in enumerate(_answers(history)):
        for c in item.citations:
            if c.get("evidence"):
                out.setdefault(turn, {})[int(c["n"])] = Evidence.from_record(c["evidence"][0])
    return out


History = tuple[list[ChatTurn], dict[int, dict[int, Chunk]]]  # turns, cited chunks by turn and n
AskJob = Job[Answer, str | AnswerStage]  # reports pieces of the answer and its stages


class ChatController(QObject):
    answered = Signal(object)  # Answer
    engine_state = Signal(dict)  # EngineInfo
    ttft = Signal(float)  # ms, measured at the GUI from question to first token
    retrieved = Signal(object)  # tuple[Passage, ...] of the pending answer, once retrieved
    open_chunk = Signal(object, object)  # Chunk, Evidence | None
    scope_changed = Signal(frozenset)  # doc ids the questions are about (empty: whole library)

    def __init__(self, services: GuiServices, pane: ChatPane, llm: SerialWorker) -> None:
        super().__init__(pane)
        self.services = services
        self.pane = pane
        self.llm = llm
        self.chat_id: str | None = None
        self.job: AskJob | None = None
        self._asked_at = 0.0
        self.restored_evidence: dict[int, dict[int, Evidence]] = {}
        self._first_token_at: float | None = None
        self._retrieved_shown = False
        self.scope = EVERYWHERE
        pane.ask_requested.connect(self.ask)
        pane.scope_cleared.connect(lambda: self.set_scope([]))
        pane.stop_requested.connect(self.stop)
        pane.new_chat_requested.connect(self.new_chat)
        pane.chat_selected.connect(self.select_chat)
        pane.citation_clicked.connect(self._citation_clicked)

    # ---- start-up -----------------------------------------------------------------------
    def restore(self) -> None:
        """Loads the chat list and opens the newest chat (on the LLM worker)."""
        self.llm.submit("chats", lambda _j: self.services.list_chats(),
                        on_done=self._chats_loaded)

    def _chats_loaded(self, chats: list[ChatSummary]) -> None:
        pairs = chat_pairs(chats)
        if pairs and self.chat_id is None:
            self.select_chat(pairs[0][0])
        self.pane.set_chats(pairs, self.chat_id)

    def load_engine_info(self) -> None:
        self.llm.submit("engine", lambda _j: self.services.engine_info(),
                        on_done=self._engine_loaded)

    def _engine_loaded(self, info: EngineInfo) -> None:
        self.engine_state.emit(info)

    # ---- chats --------------------------------------------------------------------------
    def new_chat(self) -> None:
        if self.pane.busy:
            self.stop()
        self.llm.submit("new-chat", lambda _j: self.services.new_chat(), on_done=self._opened)

    def _opened(self, chat_id: str) -> None:
        self.chat_id = chat_id
        self.pane.show_turns([])
        self.restore()

    def select_chat(self, chat_id: str) -> None:
        self.chat_id = chat_id
        self.llm.submit("history", lambda _j: self._history(chat_id),
                        on_done=lambda h: self._show_history(chat_id, h))

    def _history(self, chat_id: str) -> History:
        """The chat's turns and the chunks their citations point at (on the worker)."""
        history = self.services.chat_history(chat_id)
        ids = [str(c["chunk_id"]) for t in history for c in t.citations]
        return history, cited_chunks(history, self.services.get_chunks(ids) if ids else {})

    def _show_history(self, chat_id: str, loaded: History) -> None:
        if chat_id != self.chat_id:
            return  # a history that arrives after a switch
        history, cited = loaded
        self.pane.show_turns(turn_views(history), cited)
        self.restored_evidence = stored_evidence(history)

    # ---- asking -------------------------------------------------------------------------
    def set_scope(self, rows: Sequence[LibraryRow]) -> None:
        """The next questions are asked about these documents only (none: the whole library)."""
        doc_ids = frozenset(r.doc_id for r in rows if r.doc_id)
        self.scope = DocScope(only=doc_ids) if doc_ids else EVERYWHERE
        self.pane.set_scope([Path(r.path).name for r in rows if r.doc_id])
        self.scope_changed.emit(doc_ids)

    def keep_scope_within(self, rows: Sequence[LibraryRow]) -> None:
        """After the library changed: documents removed from it leave the scope."""
        if self.scope.only is not None:
            self.set_scope([r for r in rows if r.doc_id in self.scope.only])

    def summarize(self, rows: Sequence[LibraryRow]) -> AskJob | None:
        """The "Summarize" action: the next questions are about these documents, and the first
        is their summary, on the summary route whatever the router would say (it reads the
        whole of the documents in scope)."""
        if not any(r.doc_id for r in rows) or self.pane.busy:
            return None
        self.set_scope(rows)
        n = sum(1 for r in rows if r.doc_id)
        question = "Summarize this document." if n == 1 else f"Summarize these {n} documents."
        return self.ask(question, route="summary")

    def ask(self, question: str, route: str | None = None) -> AskJob:
        """Asks on the model's worker; `route` forces one (lookup, summary, exhaustive,
        compare) where the router would choose."""
        self.pane.begin_answer(question)
        if self.llm.busy:  # queued behind the model's loading (at start) or a chat's switch
            self.pane.show_stage("Waiting for the chat model to be ready\u2026")
        self._asked_at, self._first_token_at = time.perf_counter(), None
        self._retrieved_shown = False
        chat_id, scope = self.chat_id, self.scope
        self.job = self.llm.submit(
            "ask",
            lambda j: self.services.ask(
                question, chat_id, on_token=j.report, cancel=j.cancel, scope=scope,
                on_stage=j.report, route=route,
            ),
            on_done=self._answered, on_progress=self._progress, on_error=self._failed,
        )
        return self.job

    def stop(self) -> None:
        if self.job is not None:
            self.job.cancel.cancel()

    def _progress(self, payload: str | AnswerStage) -> None:
        """Stages and pieces of text share the job's report channel, in the order they came."""
        if isinstance(payload, AnswerStage):
            self._stage(payload)
        else:
            self._token(payload)

    def _stage(self, stage: AnswerStage) -> None:
        self.pane.show_stage(stage.describe())
        if stage.passages and not self._retrieved_shown:
            self._retrieved_shown = True
            self.retrieved.emit(stage.passages)

    def _token(self, token: str) -> None:
        if self._first_token_at is None:
            self._first_token_at = time.perf_counter()
            self.ttft.emit((self._first_token_at - self._asked_at) * 1000)
        self.pane.append_token(token)

    def _answered(self, answer: Answer) -> None:
        stopped = self.job is not None and self.job.cancel.cancelled
        self.job = None
        new_chat = answer.chat_id is not None and answer.chat_id != self.chat_id
        self.chat_id = answer.chat_id or self.chat_id
        self.pane.finish_answer(answer, "Stopped." if stopped else "")
        self.answered.emit(answer)
        if new_chat:
            self.restore()

    def _failed(self, exc: BaseException) -> None:
        self.job = None
        if isinstance(exc, CancelledError):
            self.pane.fail_answer("Stopped.")
            return
        self.pane.fail_answer(f"Failed: {describe(exc).message}")
        self.llm.error.emit(exc)

    def _citation_clicked(self, turn: int, n: int) -> None:
        chunk = self.cited_chunk(turn, n)
        if chunk is not None:
            self.open_chunk.emit(chunk, self.cited_evidence(turn, n))

    def cited_evidence(self, turn: int, n: int) -> Evidence | None:
        """The best evidence of citation `n` of an answer (of this session or stored)."""
        answer = self.pane.answers.get(turn)
        if answer is None:
            return self.restored_evidence.get(turn, {}).get(n)
        found = [c for c in answer.citations if c.n == n]
        return found[0].evidence[0] if found and found[0].evidence else None

    def cited_chunk(self, turn: int, n: int) -> Chunk | None:
        answer = self.pane.answers.get(turn)
        if answer is None:
            return self.pane.restored_citations.get(turn, {}).get(n)
        for citation in answer.citations:
            if citation.n == n:
                return citation.chunk
        passages = [p for p in answer.passages if p.n == n]
        return passages[0].chunk if passages else None
