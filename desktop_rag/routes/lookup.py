"""The lookup route, the one most questions take: the pinned core first over the whole library,
retrieval for the rest (a narrower scope is searched alone), the statement lines a named ratio
needs, then the answer pipeline (answering/pipeline.py) over the passages.

Weak evidence over the whole library is refused without asking the model (`refuse_unasked`).
`answer_given` is the same pipeline over passages another route gathered (a comparison's
sides), with no core."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

import numpy as np

from desktop_rag.answering import prompts
from desktop_rag.answering.draft import CoreContext, Draft
from desktop_rag.answering.pipeline import AnswerPipeline, refusal_answer
from desktop_rag.answering.ratio_lines import RatioLines
from desktop_rag.answering.stages import check, reporter_of
from desktop_rag.answering.timings import since
from desktop_rag.domain import Answer, DocScope, Passage, SearchResult
from desktop_rag.routes.base import RouteRequest, SearchPort

Vector = Any  # a numpy vector of the embedder's dimension


@dataclass(frozen=True, slots=True)
class LookupParts:
    """What the lookup route calls: search, the core for a scope, the query's and the chunks'
    vectors (to choose between core and library), the context budget, the ratio lines (None:
    off), the answer pipeline, and whether the model runs on a GPU (a refusal's record)."""

    search: SearchPort
    core: Callable[[DocScope], CoreContext]
    embed_query: Callable[[str], Vector]
    embeddings: Callable[[list[str]], dict[str, Vector]]
    budget: Callable[[], int]
    ratio_lines: RatioLines | None
    pipeline: AnswerPipeline
    gpu_offload: Callable[[], bool]


class LookupRoute:
    """Retrieve, pack, and the pipeline answers with checked citations (see the module text)."""

    def __init__(self, parts: LookupParts) -> None:
        self.parts = parts

    def answer(self, request: RouteRequest) -> Answer:
        parts, scope, started = self.parts, request.scope, request.started
        core = parts.core(scope)
        result = parts.search.search(request.query, k=request.k,
                                     scope=scope.excluding(core.doc_ids))  # fmt: skip
        check(request.cancel)
        timings = {"retrieve_ms": since(started),
                   "rerank_ms": float(result.timings_ms.get("rerank_ms", 0.0))}  # fmt: skip
        if refuse_unasked(result, scope, bool(core.passages)):
            answer = refusal_answer(request.question, request.chat_id, result, timings, started,
                                    parts.gpu_offload())  # fmt: skip
        else:
            passages = self._retrieved(request.query, core, result)
            if parts.ratio_lines is not None:  # a ratio's statement lines, if missing
                passages = parts.ratio_lines.completed(request.query, core.passages, passages)
            reporter_of(request.on_token).found([*core.passages, *passages])
            draft = Draft(request.question, request.query, request.chat_id, core,
                          tuple(passages), result, timings)  # fmt: skip
            answer = parts.pipeline.run(draft, request.on_token, request.cancel, started)
        return dataclasses.replace(answer, route=request.info, focus=result.focus)

    def answer_given(
        self, request: RouteRequest, passages: list[Passage], note: str, result: SearchResult
    ) -> Answer:
        """The pipeline over passages a route gathered (a comparison's sides), no core."""
        reporter_of(request.on_token).found(passages)
        timings = {"retrieve_ms": since(request.started), "rerank_ms": 0.0}
        none = CoreContext(frozenset(), (), prompts.system_message(()), {})
        draft = Draft(request.question, request.query, request.chat_id, none, tuple(passages),
                      result, timings, note=note, compared=True)  # fmt: skip
        answer = self.parts.pipeline.run(draft, request.on_token, request.cancel,
                                         request.started)  # fmt: skip
        return dataclasses.replace(answer, route=request.info)

    def _retrieved(self, query: str, core: CoreContext, result: SearchResult) -> list[Passage]:
        """Retrieved passages numbered after the core; none when the core answers better."""
        if core.passages and (result.insufficient_evidence or self._core_wins(query, core, result)):
            return []
        packed = self.parts.search.pack_context(result, self.parts.budget())
        offset = len(core.passages)
        return [dataclasses.replace(p, n=offset + i + 1) for i, p in enumerate(packed)]

    def _core_wins(self, query: str, core: CoreContext, result: SearchResult) -> bool:
        """The best core chunk is closer to the query than the best library chunk."""
        if not result.results:
            return True
        q = self.parts.embed_query(query)
        core_ids = [p.chunk.chunk_id for p in core.passages]
        lib_ids = [s.chunk.chunk_id for s in result.results]
        best_core = _best(q, self.parts.embeddings(core_ids).values())
        return best_core >= _best(q, self.parts.embeddings(lib_ids).values())


def refuse_unasked(result: SearchResult, scope: DocScope, has_core: bool) -> bool:
    """Weak evidence over the whole library is refused without asking the model. Within
    documents the user chose, the model reads their best passages and may refuse itself: the
    user asked about these documents, and a weak match there is still the best there is. So
    do the documents the question names ("Netflix's revenue in 2015"): it asked about them."""
    if has_core or not result.insufficient_evidence:
        return False
    return (scope.whole_library and result.focus is None) or not result.results


def _best(query: Vector, vectors: Collection[Vector]) -> float:
    return max((float(np.dot(query, v)) for v in vectors), default=-1.0)
