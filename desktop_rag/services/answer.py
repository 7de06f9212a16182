"""Service facade: questions answered by the route the router chooses (services/routing.py
builds the routes and the answer pipeline over the context), chats kept, the engine described."""

from __future__ import annotations

import time
from collections.abc import Callable

from desktop_rag.answering.follow_up import needs_rewrite, standalone_query
from desktop_rag.answering.premise import Term, held_elsewhere, missing_terms, premise_refusal
from desktop_rag.answering.stages import StageReporter, StageSink, check
from desktop_rag.bootstrap import AppContext
from desktop_rag.domain import EVERYWHERE, Answer, DocScope
from desktop_rag.domain.progress import CancelToken
from desktop_rag.routes.base import RouteRequest, SearchPort, parse_route
from desktop_rag.services.core import CoreService
from desktop_rag.services.ports import EngineInfo
from desktop_rag.services.preload import EnginePreloader
from desktop_rag.services.routing import Named, route_table
from desktop_rag.store.chats import ChatSummary, ChatTurn

TokenSink = Callable[[str], None]


class AnswerService:
    """Answers questions with checked citations: search and the core are its collaborators."""

    def __init__(
        self, ctx: AppContext, search: SearchPort, core: CoreService, named: Named | None = None
    ) -> None:
        """`named` finds the documents a question names (the search service's finder)."""
        self.ctx = ctx
        self.searcher = search
        self.core = core
        self.named = named
        self._preload = EnginePreloader(ctx)

    # ---- chats -----------------------------------------------------------------------------
    def new_chat(self) -> str:
        return self.ctx.chats.new_chat()

    def list_chats(self) -> list[ChatSummary]:
        return self.ctx.chats.list_chats()

    def chat_history(self, chat_id: str) -> list[ChatTurn]:
        return self.ctx.chats.history(chat_id)

    def delete_chat(self, chat_id: str) -> None:
        self.ctx.chats.delete_chat(chat_id)

    def engine_info(self) -> EngineInfo:
        engine = self.ctx.engine
        return {
            "model": engine.name,
            "gpu_offload": bool(engine.gpu_offload),
            "backend": self.ctx.settings.llm.backend,
            "context_size": engine.context_size,
        }

    # ---- asking ----------------------------------------------------------------------------
    def ask(
        self,
        question: str,
        chat_id: str | None = None,
        k: int | None = None,
        on_token: TokenSink | None = None,
        cancel: CancelToken | None = None,
        scope: DocScope = EVERYWHERE,
        on_stage: StageSink | None = None,
        route: str | None = None,
    ) -> Answer:
        """Answers from the documents `scope` allows, by the route the router chooses for the
        question (or `route`, when the user forces one: lookup, summary, exhaustive, compare).
        The answer's `route` says which route was chosen and which component answered.

        `on_stage` hears each stage as it begins (searching, restoring the core, reading the
        prompt with its progress, writing; a list or count: scanning, judging). A Stop before
        the first word raises CancelledError."""
        start = time.perf_counter()
        self._preload.start()  # the model loads while the library is searched
        stages = StageReporter(on_token, on_stage)
        stages.searching()
        chat_id = chat_id or self.new_chat()
        query = self._standalone(chat_id, question, cancel)
        check(cancel)
        table = route_table(self.ctx, self.searcher, self.core, self.named)
        component, info = table.choose(query, parse_route(route))
        request = RouteRequest(question, query, chat_id, info, scope, k, stages, on_stage, cancel,
                               start)  # fmt: skip
        index = self.ctx.catalog.sparse_index()
        missing = missing_terms(query, lambda found, exact: index.mentions(found, scope, exact))
        if missing:
            answer = premise_refusal(question, chat_id, missing, info, self._on_gpu(), start,
                                     self._elsewhere(missing, scope))  # fmt: skip
        else:
            answer = component.answer(request)
        self.ctx.chats.add_exchange(chat_id, query, answer)
        return answer

    def _elsewhere(self, missing: list[Term], scope: DocScope) -> list[str]:
        """The titles of the library's other documents that hold what the chosen ones lack
        (none when the whole library was searched)."""
        others = scope.rest
        if others is None:
            return []
        index = self.ctx.catalog.sparse_index()
        found = held_elsewhere(missing, lambda words: index.documents_mentioning(words, others))
        docs = (self.ctx.catalog.get_document(doc_id) for doc_id in found)
        return sorted(doc.title for doc in docs if doc is not None)

    def _on_gpu(self) -> bool:
        return self.ctx.loaded("engine") and bool(self.ctx.engine.gpu_offload)

    def _standalone(self, chat_id: str, question: str, cancel: CancelToken | None) -> str:
        """The question as a standalone query; the model is loaded only to rewrite a follow-up
        (a count that matching decides needs no model at all)."""
        history = [(t.role, t.query or t.content) for t in self.ctx.chats.history(chat_id)]
        if not history or not needs_rewrite(question):
            return question
        return standalone_query(self.ctx.engine, history, question, cancel)
