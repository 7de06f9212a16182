"""The comparison route: each side of the comparison (routes/compare_sides.py) is searched on its
own, with an equal share of the context, and the model answers from the passages of every
side, told which are whose. The answer says how many sides it cites; a side with no passage is
named to the model, which is asked to say so, rather than left out in silence."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from desktop_rag.domain import Answer, DocScope, Passage, SearchResult
from desktop_rag.domain.focused import DocFocus
from desktop_rag.domain.routed import RouteInfo, RouteName
from desktop_rag.routes.base import Route, RouteRequest
from desktop_rag.routes.compare_sides import Side, side_note, side_query, sides_of

GivenAnswer = Callable[[RouteRequest, list[Passage], str, SearchResult], Answer]


@dataclass(frozen=True, slots=True)
class CompareParts:
    """What the route calls: search and packing, the named-document finder, document titles,
    the context budget, and the answer step over given passages (the lookup's own)."""

    search: Callable[[str, DocScope], SearchResult]
    pack: Callable[[SearchResult, int], list[Passage]]
    named: Callable[[str, DocScope], DocFocus | None]
    titles: Callable[[str], str]
    budget: Callable[[], int]
    answer: GivenAnswer


@dataclass(frozen=True, slots=True)
class SidePassages:
    side: Side
    passages: tuple[Passage, ...]


class CompareRoute:
    """Answers a comparison from balanced passages; one side or none found: lookup answers."""

    def __init__(self, parts: CompareParts, fallback: Route) -> None:
        self.parts = parts
        self.fallback = fallback

    def answer(self, request: RouteRequest) -> Answer:
        sides = sides_of(request.query, request.scope, self.parts.named, self.parts.titles)
        if len(sides) < 2:
            info = dataclasses.replace(request.info, handled_by=RouteName.LOOKUP,
                                       reason="no two sides to compare were found")  # fmt: skip
            return self.fallback.answer(dataclasses.replace(request, info=info))
        groups, first = self._gather(request, sides)
        passages = [p for g in groups for p in g.passages]
        empty = [g.side for g in groups if not g.passages]
        note = side_note(sides, empty) + _membership(groups)
        answer = self.parts.answer(request, passages, note, first)
        return dataclasses.replace(answer, route=self._info(request, groups, answer))

    def _gather(
        self, request: RouteRequest, sides: Sequence[Side]
    ) -> tuple[list[SidePassages], SearchResult]:
        """Each side's passages, numbered in one sequence. A chunk two sides found goes to the
        one side whose words it names (the 2021 figure to 2021), else to the first."""
        share = max(self.parts.budget() // len(sides), 1)
        found: list[list[Passage]] = []
        results: list[SearchResult] = []
        for side in sides:
            if request.cancel is not None:
                request.cancel.raise_if_cancelled()
            results.append(self.parts.search(side_query(request.query, side, sides), side.scope))
            found.append(self.parts.pack(results[-1], share))
        owner = _owners(sides, found)
        groups: list[SidePassages] = []
        for i, (side, packed) in enumerate(zip(sides, found, strict=True)):
            mine = [p for p in packed if owner[p.chunk.chunk_id] == i]
            start = sum(len(g.passages) for g in groups)
            numbered = tuple(dataclasses.replace(p, n=start + j + 1) for j, p in enumerate(mine))
            groups.append(SidePassages(side, numbered))
        return groups, results[0]

    @staticmethod
    def _info(request: RouteRequest, groups: Sequence[SidePassages], answer: Answer) -> RouteInfo:
        cited = {c.n for c in answer.citations}
        sides_cited = [g for g in groups if cited & {p.n for p in g.passages}]
        labels = ", ".join(g.side.label for g in groups)
        reason = (f"compared {labels} ({groups[0].side.kind}s), each searched on its own; "
                  f"the answer cites {len(sides_cited)} of {len(groups)}")  # fmt: skip
        details = {"sides": len(groups), "sides_cited": len(sides_cited),
                   "passages": sum(len(g.passages) for g in groups)}  # fmt: skip
        return dataclasses.replace(request.info, reason=reason, details=details)


def _owners(sides: Sequence[Side], found: Sequence[Sequence[Passage]]) -> dict[str, int]:
    """The side each chunk is shown under: the only side whose words its text names among the
    sides that found it, else the first side that found it."""
    finders: dict[str, list[int]] = {}
    texts: dict[str, str] = {}
    for i, packed in enumerate(found):
        for p in packed:
            finders.setdefault(p.chunk.chunk_id, []).append(i)
            texts[p.chunk.chunk_id] = p.text.lower()
    owner: dict[str, int] = {}
    for cid, which in finders.items():
        naming = [i for i in which if any(w.lower() in texts[cid] for w in sides[i].words)]
        owner[cid] = naming[0] if len(naming) == 1 else which[0]
    return owner


def _membership(groups: Sequence[SidePassages]) -> str:
    """ "Sources 1-3 are about 2019; sources 4-6 are about 2021." for the model."""
    parts = []
    for g in groups:
        if g.passages:
            first, last = g.passages[0].n, g.passages[-1].n
            span = f"Source {first} is" if first == last else f"Sources {first}-{last} are"
            parts.append(f"{span} about {g.side.label}")
    return (" " + "; ".join(parts) + ".") if parts else ""
