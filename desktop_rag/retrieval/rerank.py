"""Re-rankers: pluggable, and they only reorder the candidates retrieval returned.

`build_reranker(name, ctx)` is the registry: `none`, `cross-encoder` (st_cross_encoder.py),
`llm` (desktop_rag.llm.rerank_llm, imported lazily) and `auto` (the best available).
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from desktop_rag.domain import ScoredChunk
from desktop_rag.errors import ConfigError, DesktopRagError
from desktop_rag.protocols import Reranker

if TYPE_CHECKING:
    from desktop_rag.bootstrap import AppContext

log = logging.getLogger(__name__)

NONE, CROSS, LLM, AUTO = "none", "cross-encoder", "llm", "auto"
NAMES = (AUTO, NONE, CROSS, LLM)


def cross_encoder_available(ctx: AppContext) -> bool:
    """Configured and usable without an unasked-for download."""
    value = ctx.settings.models.cross_encoder.strip()
    if not value:
        return False
    if ctx.settings.models.allow_downloads:
        return True
    try:
        ctx.registry.cross_encoder_path()  # never downloads while downloads are off
    except DesktopRagError:
        return False
    return True


def llm_available(ctx: AppContext) -> bool:
    return importlib.util.find_spec("desktop_rag.llm.rerank_llm") is not None


def llm_practical(ctx: AppContext) -> bool:
    """`auto` picks the LLM only where its chat model runs on a GPU (one prompt per candidate)."""
    if not llm_available(ctx):
        return False
    if ctx.loaded("engine"):
        return bool(ctx.engine.gpu_offload)
    try:
        from desktop_rag.llm.llama_adapter import gpu_offload_supported
    except ImportError:
        return False
    return bool(gpu_offload_supported())


def available_rerankers(ctx: AppContext) -> list[str]:
    names = [NONE]
    if cross_encoder_available(ctx):
        names.append(CROSS)
    if llm_available(ctx):
        names.append(LLM)
    return names


def resolve_name(name: str | None, ctx: AppContext) -> str:
    """The concrete re-ranker `name` stands for (`auto` and unset pick the best available)."""
    name = name or ctx.settings.retrieval.reranker
    if name not in NAMES:
        raise ConfigError(f"Unknown re-ranker {name!r}", f"use one of: {', '.join(NAMES)}")
    if name != AUTO:
        return name
    if cross_encoder_available(ctx):
        return CROSS
    return LLM if llm_practical(ctx) else NONE


def build_reranker(name: str, ctx: AppContext) -> Reranker | None:
    """The re-ranker called `name` (after `resolve_name`); None for `none`."""
    if name == NONE:
        return None
    if name == CROSS:
        from desktop_rag.compute import ComputeReranker
        from desktop_rag.retrieval.st_cross_encoder import CrossEncoderReranker

        path = Path(ctx.registry.cross_encoder_path())
        return ComputeReranker(ctx.compute.run(lambda: CrossEncoderReranker(path)), ctx.compute)
    if name == LLM:
        module = importlib.import_module("desktop_rag.llm.rerank_llm")  # the LLM helper's module
        reranker: Reranker = module.build_llm_reranker(ctx)
        return reranker
    raise ConfigError(f"Unknown re-ranker {name!r}", f"use one of: {', '.join(NAMES[1:])}")


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
