"""The one interface every route implements, and the table that picks the component for a
question: the router names the route, the table finds who answers it. A route not built yet is
answered by lookup, and the answer's route info says so, so that no answer claims a reading it
did not do."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from desktop_rag.domain import EVERYWHERE, Answer, AnswerStage, DocScope, Passage, SearchResult
from desktop_rag.domain.progress import CancelToken
from desktop_rag.domain.protocols import TokenCallback
from desktop_rag.domain.routed import RouteInfo, RouteName
from desktop_rag.routes.router import RouteDecision, decide

StageSink = Callable[[AnswerStage], None]
NOT_BUILT = "not built yet"


@dataclass(frozen=True, slots=True)
class RouteRequest:
    """One question on its way to a route: the user's words, the standalone query (a follow-up
    rewritten), the scope the user chose, and the callbacks of the answer being prepared.
    `on_token` gets the answer's text (it also begins the writing stage); `on_stage` hears a
    route's own stages (scanning, judging) with their progress; `started` is when `ask` began
    (a perf_counter reading), so that the timings cover the whole answer."""

    question: str
    query: str
    chat_id: str
    info: RouteInfo
    scope: DocScope = EVERYWHERE
    k: int | None = None
    on_token: TokenCallback | None = None
    on_stage: StageSink | None = None
    cancel: CancelToken | None = None
    started: float = field(default_factory=time.perf_counter)


class SearchPort(Protocol):
    """What answering needs of search: the best chunks, and them packed into passages."""

    def search(
        self,
        query: str,
        k: int | None = None,
        mode: str = "hybrid",
        rerank: str | None = None,
        scope: DocScope = EVERYWHERE,
    ) -> SearchResult: ...

    def pack_context(
        self, result: SearchResult, budget_tokens: int, first_n: int = 1
    ) -> list[Passage]: ...


class Route(Protocol):
    """A component that answers one kind of question. The answer it returns carries
    `request.info`, completed with its own counts."""

    def answer(self, request: RouteRequest) -> Answer: ...


def parse_route(name: str | None) -> RouteName | None:
    """The route a user forces (`ask --route summary`), or None to let the router decide;
    "comparison" is accepted for "compare"."""
    if not name:
        return None
    cleaned = name.strip().lower()
    return RouteName("compare" if cleaned in ("comparison", "comparisons") else cleaned)


class RouteTable:
    """The built routes by name; lookup must be one of them (it answers every other)."""

    def __init__(
        self,
        routes: Mapping[RouteName, Route],
        router: Callable[[str], RouteDecision] = decide,
    ) -> None:
        if RouteName.LOOKUP not in routes:
            raise ValueError("a route table needs the lookup route")
        self.routes = dict(routes)
        self.router = router

    def choose(self, query: str, forced: RouteName | None = None) -> tuple[Route, RouteInfo]:
        """The component for `query` and the route info its answer will carry."""
        start = time.perf_counter()
        decision = RouteDecision(forced, "forced") if forced else self.router(query)
        spent = round((time.perf_counter() - start) * 1000, 3)
        chosen = self.routes.get(decision.route)
        if chosen is None:
            reason = f"{NOT_BUILT} (router: {decision.rule})"
            info = RouteInfo(decision.route, RouteName.LOOKUP, reason, bool(forced), spent)
            return self.routes[RouteName.LOOKUP], info
        info = RouteInfo(decision.route, decision.route, decision.rule, bool(forced), spent)
        return chosen, info
