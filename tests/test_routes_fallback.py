"""A count the router chose that matches nothing is answered by lookup, without streaming twice;
a forced route keeps its own answer."""

from __future__ import annotations

import dataclasses

from desktop_rag.domain import Answer
from desktop_rag.domain.routed import RouteInfo, RouteName
from desktop_rag.routes.base import RouteRequest
from desktop_rag.services.routing import LookupWhenNoneFound


class Canned:
    """A route that streams `text` and states `count`."""

    def __init__(self, text: str, count: int | None) -> None:
        self.text, self.count = text, count

    def answer(self, request: RouteRequest) -> Answer:
        if request.on_token is not None:
            request.on_token(self.text)
        info = dataclasses.replace(request.info, count=self.count)
        return Answer(request.question, self.text, None, (), (), (), False, "none", False,
                      route=info)  # fmt: skip


def ask(count: int, forced: bool = False) -> tuple[Answer, list[str]]:
    streamed: list[str] = []
    info = RouteInfo(RouteName.EXHAUSTIVE, RouteName.EXHAUSTIVE, "rule how-many", forced=forced)
    request = RouteRequest("How many tables use F1?", "q", "c", info, on_token=streamed.append)
    route = LookupWhenNoneFound(Canned("Found 3 items.", count), Canned("Two tables [1].", None))
    return route.answer(request), streamed


def test_nothing_found_is_answered_by_lookup_and_says_so() -> None:
    answer, streamed = ask(0)
    assert answer.answer == "Two tables [1]." and streamed == ["Two tables [1]."]
    assert answer.route.route is RouteName.EXHAUSTIVE
    assert answer.route.handled_by is RouteName.LOOKUP
    assert "no item matched" in answer.route.reason


def test_a_count_that_found_items_stands_and_streams_once() -> None:
    answer, streamed = ask(3)
    assert answer.answer == "Found 3 items." and streamed == ["Found 3 items."]
    assert answer.route.handled_by is RouteName.EXHAUSTIVE


def test_a_forced_route_keeps_its_answer_even_when_empty() -> None:
    answer, streamed = ask(0, forced=True)
    assert answer.answer == "Found 3 items." and answer.route.handled_by is RouteName.EXHAUSTIVE
    assert streamed == ["Found 3 items."]
