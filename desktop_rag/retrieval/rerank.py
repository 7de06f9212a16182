"""Re-ranking: a re-ranker only reorders the candidates retrieval returned.

The names: `none`, `cross-encoder` (st_cross_encoder.py), `llm` (desktop_rag.llm.rerank_llm)
and `auto` (the best available); which one a name stands for is chosen by
desktop_rag.services.rerankers, which knows the settings and the models.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import replace

from desktop_rag.domain import ScoredChunk
from desktop_rag.domain.protocols import Reranker

log = logging.getLogger(__name__)

NONE, CROSS, LLM, AUTO = "none", "cross-encoder", "llm", "auto"
NAMES = (AUTO, NONE, CROSS, LLM)


def rerank(
    reranker: Reranker, query: str, candidates: Sequence[ScoredChunk], top_n: int
) -> list[ScoredChunk]:
    """Re-scores the first `top_n` candidates and sorts them; the rest keep their order after."""
    head, tail = list(candidates[:top_n]), list(candidates[top_n:])
    if not head:
        return tail
    start = time.perf_counter()
    scores = reranker.score(query, [c.chunk.text for c in head])
    log.debug(
        "%s scored %d in %.1f ms", reranker.name, len(head), (time.perf_counter() - start) * 1e3
    )
    rescored = [replace(c, score=float(s)) for c, s in zip(head, scores, strict=True)]
    order = sorted(range(len(head)), key=lambda i: (-rescored[i].score, i))
    return [rescored[i] for i in order] + tail
