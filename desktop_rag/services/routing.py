"""The routes an answer service offers, built over one context: lookup (the answer service's
own path through retrieval), and the exhaustive route for lists and counts over the catalog, the
stored vectors and the chat model as judge. Summary and comparison are not built yet: the
router still names them and lookup answers, saying so in the answer's route info."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from desktop_rag.bootstrap import AppContext
from desktop_rag.domain import Answer
from desktop_rag.routed import RouteName
from desktop_rag.routes.base import Route, RouteRequest, RouteTable
from desktop_rag.routes.dense import Paraphrases
from desktop_rag.routes.exhaustive import ExhaustiveRoute, ExhaustiveSettings
from desktop_rag.routes.judge import ModelJudge


class LookupRoute:
    """Today's answer path (retrieve, pack, the model answers with checked citations) as a
    route: `answer` is the answer service's lookup."""

    def __init__(self, lookup: Callable[[RouteRequest], Answer]) -> None:
        self.lookup = lookup

    def answer(self, request: RouteRequest) -> Answer:
        return self.lookup(request)


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


def route_table(ctx: AppContext, lookup: Callable[[RouteRequest], Answer]) -> RouteTable:
    plain = LookupRoute(lookup)
    routes: dict[RouteName, Route] = {
        RouteName.LOOKUP: plain,
        RouteName.EXHAUSTIVE: LookupWhenNoneFound(exhaustive_route(ctx), plain),
    }
    return RouteTable(routes)
