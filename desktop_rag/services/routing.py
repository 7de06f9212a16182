"""The routes an answer service offers, built over one context: lookup (retrieval and the answer
pipeline, routes/lookup.py), the exhaustive route for lists and counts over the catalog, the
stored vectors and the chat model as judge, and the summary route over the catalog, the chat
model and the kept section summaries, and the comparison route over per-side searches and the
lookup's answer pipeline."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from desktop_rag.answering.generation import AnswerGeneration
from desktop_rag.answering.pipeline import (
    AnswerPipeline,
    CheckStep,
    Generator,
    PostStep,
    PromptStep,
    TableCellStep,
)
from desktop_rag.answering.ratio_lines import RatioLines
from desktop_rag.bootstrap import AppContext
from desktop_rag.domain import Answer, DocFocus, DocScope
from desktop_rag.domain.routed import RouteName
from desktop_rag.routes.base import Route, RouteRequest, RouteTable, SearchPort
from desktop_rag.routes.compare import CompareParts, CompareRoute, GivenAnswer
from desktop_rag.routes.count_evidence import CountEvidence, CountWhenListed
from desktop_rag.routes.dense import Paraphrases
from desktop_rag.routes.exhaustive import ExhaustiveRoute, ExhaustiveSettings
from desktop_rag.routes.judge import ModelJudge
from desktop_rag.routes.lookup import LookupParts, LookupRoute
from desktop_rag.routes.summary import Parts, SummaryRoute, SummarySettings
from desktop_rag.routes.summary_prompts import PROMPT_VERSION
from desktop_rag.routes.summary_store import Identity, SummaryStore
from desktop_rag.routes.units import ChunkSource
from desktop_rag.services.core import CoreService

SUMMARIES_DB = "summaries.sqlite3"


def exhaustive_route(
    ctx: AppContext, settings: ExhaustiveSettings | None = None
) -> ExhaustiveRoute:
    """The list and count route over the context's parts; the chat model loads only when a
    candidate needs judging."""
    return ExhaustiveRoute(
        ctx.catalog,
        lambda: Paraphrases(ctx.embedder, ctx.vectors),
        ModelJudge(lambda: ctx.engine),
        settings or ExhaustiveSettings(),
        gpu_offload=lambda: ctx.loaded("engine") and bool(ctx.engine.gpu_offload),
    )


class LookupWhenNoneFound:
    """A count the router chose that matches nothing is answered by lookup instead.

    Matching reads words; "How many tables include F1 as a metric?" or "List the chapters"
    need reading, and on MMLongBench's table questions the route answered "Found no matching
    items" to two that lookup had answered right. A user forcing the route keeps its answer.
    The route's text is held back until it is known to stand, so nothing streams twice."""

    def __init__(self, route: Route, lookup: Route) -> None:
        self.route = route
        self.lookup = lookup

    def answer(self, request: RouteRequest) -> Answer:
        held: list[str] = []
        found = self.route.answer(dataclasses.replace(request, on_token=held.append))
        if found.route.count != 0 or request.info.forced:
            for piece in held:
                if request.on_token is not None:
                    request.on_token(piece)
            return found
        info = dataclasses.replace(
            request.info, handled_by=RouteName.LOOKUP,
            reason=f"no item matched, so answered from the best passages ({request.info.reason})",
        )  # fmt: skip
        return self.lookup.answer(dataclasses.replace(request, info=info))


def model_identity(ctx: AppContext) -> Identity:
    """The chat model a kept summary was written by, from the settings (so that a summary kept
    from before answers without loading the model), with the summary prompt's version."""
    s = ctx.settings
    chosen = s.models.chat_model or "packaged"
    where = s.llm.server_url if s.llm.backend == "server" else s.llm.backend
    return Identity(f"{s.profile}:{chosen}:{where}:t{s.llm.temperature}", PROMPT_VERSION)


def summary_settings(ctx: AppContext) -> SummarySettings:
    """The budgets of a summary: the loaded model's context, else the configured one."""
    size = ctx.engine.context_size if ctx.loaded("engine") else ctx.settings.llm.context_size
    llm = ctx.settings.llm
    quick = None if _on_gpu(ctx) else llm.summary_whole_cpu_tokens
    return SummarySettings(context_tokens=size, answer_tokens=llm.max_tokens, map=llm.summary_map,
                           quick_whole_tokens=quick)  # fmt: skip


def _on_gpu(ctx: AppContext) -> bool:
    """Whether the chat model runs (or, not loaded yet, will run) with GPU offload."""
    if ctx.loaded("engine"):
        return bool(ctx.engine.gpu_offload)
    from desktop_rag.llm.llama_loading import gpu_offload_supported

    return ctx.settings.llm.gpu_layers != "0" and gpu_offload_supported()


Named = Callable[[str, DocScope], DocFocus | None]  # the documents a question names


def summary_route(
    ctx: AppContext, fallback: Route | None = None, source: ChunkSource | None = None,
    named: Named | None = None, **kw: Any,
) -> SummaryRoute:  # fmt: skip
    """The summary route over the context's parts; `source` stands in for the catalog (an
    evaluation holds a paper's abstract out of what the route reads)."""
    from desktop_rag.answering.citations import CitationChecker

    finder = named or focus_finder(ctx)

    def focus(query: str, scope: DocScope) -> tuple[str, ...]:
        found = finder(query, scope)
        return found.doc_ids if found is not None else ()

    parts = Parts(
        source or ctx.catalog, lambda: ctx.engine,
        SummaryStore(ctx.paths.data_dir / SUMMARIES_DB), lambda: model_identity(ctx),
        ctx.token_counter.count, lambda: CitationChecker(ctx.embedder),
        lambda: summary_settings(ctx), focus,
        lambda: ctx.loaded("engine") and bool(ctx.engine.gpu_offload), lambda: ctx.embedder,
    )  # fmt: skip
    return SummaryRoute(parts, fallback, **kw)


class Deferred:
    """A route built when it first answers: a lookup question pays nothing for the others."""

    def __init__(self, build: Callable[[], Route]) -> None:
        self.build = build

    def answer(self, request: RouteRequest) -> Answer:
        return self.build().answer(request)


def compare_route(
    ctx: AppContext, search: SearchPort, given: GivenAnswer, fallback: Route, named: Named
) -> CompareRoute:
    """The comparison route over the search service and the lookup's answer pipeline."""

    def title(doc_id: str) -> str:
        doc = ctx.catalog.get_document(doc_id)
        return doc.title if doc is not None else doc_id

    parts = CompareParts(
        lambda query, scope: search.search(query, scope=scope), search.pack_context,
        named, title, lambda: ctx.settings.retrieval.context_tokens, given,
    )  # fmt: skip
    return CompareRoute(parts, fallback)


def answer_pipeline(ctx: AppContext, generator: Generator) -> AnswerPipeline:
    """The answer step's pipeline as the settings have it: the prompt, the model, the optional
    post-steps in order (a refusal a table cell answers), and the check."""
    from desktop_rag.answering.citations import CitationChecker

    llm = ctx.settings.llm
    post: list[PostStep] = [TableCellStep()] if llm.read_table_cells else []
    check = CheckStep(lambda: CitationChecker(ctx.embedder), lambda: bool(ctx.engine.gpu_offload))
    return AnswerPipeline(PromptStep(llm.ratio_worksheet), generator, post, check)


def lookup_route(ctx: AppContext, search: SearchPort, core: CoreService) -> LookupRoute:
    """The lookup route over the context's parts, the search service and the core."""
    ratio_lines = (RatioLines(ctx.catalog.chunks_of) if ctx.settings.llm.ratio_worksheet
                   else None)  # fmt: skip
    return LookupRoute(LookupParts(
        search, core.core_context, lambda q: ctx.embedder.embed_query(q),
        lambda ids: ctx.vectors.get_embeddings(ids), lambda: ctx.settings.retrieval.context_tokens,
        ratio_lines, answer_pipeline(ctx, AnswerGeneration(
            ctx, lambda cancel: core.core_build(cancel=cancel), core.engine_identity)),
        lambda: bool(ctx.engine.gpu_offload),
    ))  # fmt: skip


def focus_finder(ctx: AppContext) -> Named:
    """The documents a question names, from the library's kept document profiles."""
    from desktop_rag.retrieval.doc_focus import FocusFinder

    return FocusFinder(ctx.catalog, ctx.paths.doc_profiles_file).focus


def route_table(
    ctx: AppContext, search: SearchPort, core: CoreService, named: Named | None = None
) -> RouteTable:
    """Every route, built over the context as the settings have them now: the composition
    root of answering (the GUI and the CLI reach it through AnswerService.ask). `named` finds
    the documents a question names (the search service's own finder, so that it is one)."""
    plain = lookup_route(ctx, search, core)
    finder = named or focus_finder(ctx)
    count = LookupWhenNoneFound(exhaustive_route(ctx), plain)
    return RouteTable({
        RouteName.LOOKUP: CountWhenListed(plain, count, CountEvidence(ctx.catalog)),
        RouteName.EXHAUSTIVE: count,
        RouteName.SUMMARY: Deferred(lambda: summary_route(ctx, plain, named=finder)),
        RouteName.COMPARE: Deferred(
            lambda: compare_route(ctx, search, plain.answer_given, plain, finder)),
    })  # fmt: skip
