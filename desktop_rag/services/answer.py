"""Service facade: answers with verified citations, chats, and the cached core in the prompt."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Collection
from typing import Any

import numpy as np

from desktop_rag.bootstrap import AppContext
from desktop_rag.domain import (
    EVERYWHERE,
    Answer,
    DocScope,
    Passage,
    Reconsidered,
    SearchResult,
    SecondLook,
)
from desktop_rag.llm import prompts
from desktop_rag.llm.calc_questions import needs_calculation
from desktop_rag.llm.calc_support import unsupported
from desktop_rag.llm.calculations import check_calculations
from desktop_rag.llm.chat_store import ChatSummary, ChatTurn
from desktop_rag.llm.citations import CitationChecker
from desktop_rag.llm.rewrite import needs_rewrite, standalone_query
from desktop_rag.llm.stated_value import stated_value
from desktop_rag.llm.windows import tightened
from desktop_rag.progress import CancelToken
from desktop_rag.protocols import Generation
from desktop_rag.routes.base import RouteRequest, parse_route
from desktop_rag.services.answer_rules import (
    answer_refused,
    formula_shape,
    named,
    with_worked,
    worked_ratio,
)
from desktop_rag.services.answer_timings import generation_timings, since
from desktop_rag.services.core import CoreContext, CoreService
from desktop_rag.services.generation import AnswerGeneration
from desktop_rag.services.ports import EngineInfo, SearchPort
from desktop_rag.services.preload import EnginePreloader
from desktop_rag.services.ratio_lines import RatioLines
from desktop_rag.services.routing import route_table
from desktop_rag.services.second_look import SecondLooker
from desktop_rag.services.stages import (
    StageReporter,
    StageSink,
    check,
    reporter_of,
)
from desktop_rag.services.table_reading import NOTE as TABLE_NOTE
from desktop_rag.services.table_reading import cell_answer, read_cell
from desktop_rag.services.unsure_refusal import UnsureRefusals

TokenSink = Callable[[str], None]


class AnswerService:
    """Answers questions with checked citations: search and the core are its collaborators."""

    def __init__(self, ctx: AppContext, search: SearchPort, core: CoreService) -> None:
        self.ctx = ctx
        self.searcher = search
        self.core = core
        self._preload = EnginePreloader(ctx)
        self._generation = AnswerGeneration(ctx, core)
        self._looker = SecondLooker(ctx)
        self._unsure = UnsureRefusals(ctx)
        self._ratio_lines = RatioLines(lambda doc_id: ctx.catalog.chunks_of(doc_id))

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
        table = route_table(self.ctx, self._lookup, self.searcher, self._given)
        component, info = table.choose(query, parse_route(route))
        request = RouteRequest(question, query, chat_id, info, scope, k, stages, on_stage, cancel,
                               start)  # fmt: skip
        answer = component.answer(request)
        self.ctx.chats.add_exchange(chat_id, query, answer)
        return answer

    def _lookup(self, request: RouteRequest) -> Answer:
        """The lookup route: the cached core first over the whole library, retrieval for the
        rest (a narrower scope is searched alone), then the model answers from the passages."""
        question, query, chat_id, scope = (
            request.question, request.query, request.chat_id, request.scope)
        stages, cancel, start = reporter_of(request.on_token), request.cancel, request.started
        core = self.core.core_context(scope)
        timings: dict[str, float] = {}
        result = self.searcher.search(query, k=request.k, scope=scope.excluding(core.doc_ids))
        check(cancel)
        timings["retrieve_ms"] = since(start)
        timings["rerank_ms"] = float(result.timings_ms.get("rerank_ms", 0.0))
        if _refuse_unasked(result, scope, bool(core.passages)):
            answer = self._refusal(question, chat_id, result, timings, start)
        else:
            passages = self._retrieved(query, core, result)
            if self.ctx.settings.llm.ratio_worksheet:  # a ratio's statement lines, if missing
                passages = self._ratio_lines.completed(query, core.passages, passages)
            stages.found([*core.passages, *passages])
            answer = self._answer(
                question, query, chat_id, core, passages, result, timings, stages, cancel, start
            )
        return dataclasses.replace(answer, route=request.info, focus=result.focus)

    def _given(
        self, request: RouteRequest, passages: list[Passage], note: str, result: SearchResult
    ) -> Answer:
        """The answer step over passages a route gathered (a comparison's sides), no core."""
        stages = reporter_of(request.on_token)
        stages.found(passages)
        timings = {"retrieve_ms": since(request.started), "rerank_ms": 0.0}
        none = CoreContext(frozenset(), (), prompts.system_message(()), {})
        answer = self._answer(request.question, request.query, request.chat_id, none, passages,
                              result, timings, stages, request.cancel, request.started, note,
                              compared=True)
        return dataclasses.replace(answer, route=request.info)

    def _standalone(self, chat_id: str, question: str, cancel: CancelToken | None) -> str:
        """The question as a standalone query; the model is loaded only to rewrite a follow-up
        (a count that matching decides needs no model at all)."""
        history = [(t.role, t.query or t.content) for t in self.ctx.chats.history(chat_id)]
        if not history or not needs_rewrite(question):
            return question
        return standalone_query(self.ctx.engine, history, question, cancel)

    def _retrieved(self, query: str, core: CoreContext, result: SearchResult) -> list[Passage]:
        """Retrieved passages numbered after the core; none when the core answers better."""
        if core.passages and (result.insufficient_evidence or self._core_wins(query, core, result)):
            return []
        budget = self.ctx.settings.retrieval.context_tokens
        packed = self.searcher.pack_context(result, budget)
        offset = len(core.passages)
        numbered = [dataclasses.replace(p, n=offset + i + 1) for i, p in enumerate(packed)]
        return tightened(query, numbered, self.ctx.settings.retrieval.passage_sentences)

    def _core_wins(self, query: str, core: CoreContext, result: SearchResult) -> bool:
        """Routing: the best core chunk is closer to the query than the best library chunk."""
        if not result.results:
            return True
        q = self.ctx.embedder.embed_query(query)
        core_ids = [p.chunk.chunk_id for p in core.passages]
        lib_ids = [s.chunk.chunk_id for s in result.results]
        best_core = _best(q, self.ctx.vectors.get_embeddings(core_ids).values())
        return best_core >= _best(q, self.ctx.vectors.get_embeddings(lib_ids).values())

    def _answer(
        self,
        question: str,
        query: str,
        chat_id: str,
        core: CoreContext,
        passages: list[Passage],
        result: SearchResult,
        timings: dict[str, float],
        on_token: TokenSink | None,
        cancel: CancelToken | None,
        start: float,
        note: str = "",
        compared: bool = False,
    ) -> Answer:
        every = [*core.passages, *passages]
        shape = formula_shape(question, query, compared)
        if shape is not None and stated_value(query, every) is not None:
            shape = None  # the sources state the value asked: quoted, not recomputed (issue 38)
        worked = worked_ratio(query, every, self.ctx.settings.llm.ratio_worksheet)
        messages = prompts.build_messages(core.passages, passages, query, shape, note, worked)
        gen_start, stages = time.perf_counter(), reporter_of(on_token)
        if (self._looker.enabled or self._unsure.enabled or self._reads_cells) and every:
            stages.hold_while(prompts.NOT_FOUND)  # a refusal is shown once it is final
        generation = self._generation.generate(messages, core, stages, cancel)
        timings.update(generation_timings(generation, gen_start, start))
        text, weighed = self._reconsidered(query, every, generation, stages, cancel)
        text = self._read_from_table(query, every, text, stages)
        text, look = self._looked_again(query, every, text, stages, cancel)
        if weighed is not None:
            timings["reconsider_ms"] = weighed.ms
        if look is not None:
            timings["second_look_ms"] = look.ms
        checker = CitationChecker(self.ctx.embedder)
        sentences = checker.check(text, every)
        calculations = with_worked(check_calculations(text, every, question), worked, text, every,
                                   question)  # fmt: skip
        return Answer(
            question,
            text.strip(),
            chat_id,
            tuple(checker.citations(sentences, every)),
            tuple(every),
            tuple(s for s in unsupported(sentences, calculations, every, named=named(worked))
                  if s != TABLE_NOTE),  # the app's own line: no claim about the sources
            answer_refused(text, calculations),
            result.reranker,
            self.ctx.engine.gpu_offload,
            timings,
            calculations,
            second_look=look,
            reconsidered=weighed,
        )

    def _reconsidered(
        self,
        query: str,
        passages: list[Passage],
        generation: Generation,
        stages: StageReporter,
        cancel: CancelToken | None,
    ) -> tuple[str, Reconsidered | None]:
        """The answer after an unsure refusal was reconsidered (the first answer otherwise)."""
        text = generation.text
        if not answer_refused(text, check_calculations(text, passages, query)):
            return text, None
        answer, weighed = self._unsure.reconsider(query, generation, passages, stages, cancel)
        check(cancel)
        if answer is None:
            return text, weighed
        stages.discard()
        stages(answer)
        return answer, weighed

    @property
    def _reads_cells(self) -> bool:
        return self.ctx.settings.llm.read_table_cells

    def _read_from_table(
        self, query: str, passages: list[Passage], text: str, stages: StageReporter
    ) -> str:
        """A refusal replaced by the table cell the question names (services/table_reading)."""
        refused = answer_refused(text, check_calculations(text, passages, query))
        if not (self._reads_cells and refused) or needs_calculation(query):
            return text  # a cell is no change, share or sum
        cell = read_cell(query, passages)
        if cell is None:
            return text
        stages.discard()
        stages(answer := cell_answer(cell))
        return answer

    def _looked_again(
        self,
        query: str,
        passages: list[Passage],
        text: str,
        stages: StageReporter,
        cancel: CancelToken | None,
    ) -> tuple[str, SecondLook | None]:
        """The answer after a second look when the model refused (the refusal otherwise)."""
        refused = answer_refused(text, check_calculations(text, passages, query))
        if not (refused and self._looker.enabled and passages):
            stages.release()
            return text, None
        answer, look = self._looker.look(query, passages, text, stages, cancel)
        check(cancel)
        if answer is None:
            stages.release()
            return text, look
        stages.discard()
        stages(answer)
        return answer, look

    def _refusal(
        self,
        question: str,
        chat_id: str,
        result: SearchResult,
        timings: dict[str, float],
        start: float,
    ) -> Answer:
        """Insufficient evidence: say so and show the nearest passages; the model is not asked."""
        nearest = [
            Passage(i + 1, s.chunk, s.chunk.text, s.score) for i, s in enumerate(result.results[:3])
        ]
        timings.update(
            ttft_ms=0.0,
            total_ms=since(start),
            prompt_tokens=0,
            cached_tokens=0,
            generated_tokens=0,
        )
        return Answer(
            question,
            prompts.refusal_text(nearest),
            chat_id,
            (),
            tuple(nearest),
            (),
            True,
            result.reranker,
            self.ctx.engine.gpu_offload,
            timings,
        )


def _refuse_unasked(result: SearchResult, scope: DocScope, has_core: bool) -> bool:
    """Weak evidence over the whole library is refused without asking the model. Within
    documents the user chose, the model reads their best passages and may refuse itself: the
    user asked about these documents, and a weak match there is still the best there is. So
    do the documents the question names ("Netflix's revenue in 2015"): it asked about them."""
    if has_core or not result.insufficient_evidence:
        return False
    return (scope.whole_library and result.focus is None) or not result.results


def _best(query: Any, vectors: Collection[Any]) -> float:
    return max((float(np.dot(query, v)) for v in vectors), default=-1.0)
