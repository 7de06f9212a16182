"""How a question was answered: the route the router chose, the component that answered, and
the items of a list or count answer. Plain data, so that every layer (and the JSON of `ask`) can
carry it; `domain` re-exports it with the answer it belongs to."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class RouteName(StrEnum):
    """The kinds of question the router tells apart."""

    LOOKUP = "lookup"  # a fact in a few passages: retrieval, then the model answers
    SUMMARY = "summary"  # the whole of a document, summarised
    EXHAUSTIVE = "exhaustive"  # every item in scope: lists and counts
    COMPARE = "compare"  # two or more documents, years or entities side by side


@dataclass(frozen=True, slots=True)
class RouteInfo:
    """The route of one answer. `route` is what the router (or the user) chose; `handled_by` the
    component that answered, which differs when the chosen one is not built yet, so that an
    answer never claims a reading it did not do. `details` are the route's own counts (passages
    read, candidates the model judged, model calls); `count` the number a count answer states."""

    route: RouteName
    handled_by: RouteName
    reason: str
    forced: bool = False
    router_ms: float = 0.0
    count: int | None = None
    details: dict[str, int] = field(default_factory=dict)

    @classmethod
    def default(cls) -> RouteInfo:
        """An answer made before routing existed (or by a caller that did not route)."""
        return cls(RouteName.LOOKUP, RouteName.LOOKUP, "default")

    def to_record(self) -> dict[str, Any]:
        """JSON-ready values: what `ask --json` prints as `route`."""
        return {"route": self.route.value, "handled_by": self.handled_by.value,
                "reason": self.reason, "forced": self.forced, "router_ms": self.router_ms,
                "count": self.count, "details": dict(self.details)}  # fmt: skip


@dataclass(frozen=True, slots=True)
class ListedItem:
    """One item of a list or count answer: its sentence or line, where it is, and how it was
    found (`phrase`, `terms`, `identifier`: by matching; `model`: the chat model judged it).
    `n` is the number of the passage (and citation) that holds it."""

    n: int
    text: str
    doc_id: str
    title: str
    path: str
    page: int | None
    chunk_id: str
    char_span: tuple[int, int]  # in the chunk's text
    matched_by: str

    def to_record(self) -> dict[str, Any]:
        return {"n": self.n, "text": self.text, "doc_id": self.doc_id, "title": self.title,
                "path": self.path, "page": self.page, "chunk_id": self.chunk_id,
                "char_span": list(self.char_span), "matched_by": self.matched_by}  # fmt: skip
