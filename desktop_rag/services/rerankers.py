"""Which re-ranker a name stands for, and building it once per context.

The choice needs the settings, the model registry and the engine, so it lives here, above
retrieval and llm: the re-rankers themselves take a model path or an engine, never the context.
"""

from __future__ import annotations

import logging
from pathlib import Path

from desktop_rag.bootstrap import AppContext
from desktop_rag.domain.errors import ConfigError, DesktopRagError
from desktop_rag.domain.protocols import Reranker
from desktop_rag.retrieval.rerank import AUTO, CROSS, LLM, NAMES, NONE

log = logging.getLogger(__name__)


class Rerankers:
    """The re-rankers of one context; built ones are kept in `ctx.rerankers`, which the context
    clears when it resets the engine or the embedder they hold."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx

    def cross_encoder_available(self) -> bool:
        """Configured and usable without an unasked-for download."""
        models = self.ctx.settings.models
        if not models.cross_encoder.strip():
            return False
        if models.allow_downloads:
            return True
        try:
            self.ctx.registry.cross_encoder_path()  # never downloads while downloads are off
        except DesktopRagError:
            return False
        return True

    def llm_practical(self) -> bool:
        """`auto` picks the LLM only where its chat model runs on a GPU (a prompt per
        candidate is too slow on a CPU)."""
        if self.ctx.loaded("engine"):
            return bool(self.ctx.engine.gpu_offload)
        from desktop_rag.llm.llama_loading import gpu_offload_supported

        return bool(gpu_offload_supported())

    def available(self) -> list[str]:
        return [NONE, CROSS, LLM] if self.cross_encoder_available() else [NONE, LLM]

    def resolve(self, name: str | None) -> str:
        """The concrete re-ranker `name` stands for (`auto` and unset pick the best one)."""
        name = name or self.ctx.settings.retrieval.reranker
        if name not in NAMES:
            raise ConfigError(f"Unknown re-ranker {name!r}", f"use one of: {', '.join(NAMES)}")
        if name != AUTO:
            return name
        if self.cross_encoder_available():
            return CROSS
        return LLM if self.llm_practical() else NONE

    def build(self, name: str) -> Reranker | None:
        """A new re-ranker called `name` (after `resolve`); None for `none`."""
        if name == NONE:
            return None
        if name == CROSS:
            return self._cross_encoder()
        if name == LLM:
            from desktop_rag.llm.rerank_llm import LlmReranker

            return LlmReranker(self.ctx.engine)
        raise ConfigError(f"Unknown re-ranker {name!r}", f"use one of: {', '.join(NAMES[1:])}")

    def get(self, name: str | None = None) -> tuple[str, Reranker | None]:
        """The re-ranker `name` stands for, loaded once per context; `auto` falls back to none
        when the one it picks cannot load."""
        resolved = self.resolve(name)
        cache = self.ctx.rerankers
        if resolved not in cache:
            try:
                cache[resolved] = self.build(resolved)
            except DesktopRagError:
                if (name or self.ctx.settings.retrieval.reranker) != AUTO:
                    raise
                log.warning("re-ranker %s is unavailable; searching without one", resolved)
                return NONE, None
        return resolved, cache[resolved]

    def _cross_encoder(self) -> Reranker:
        from desktop_rag.llm.compute_thread import ComputeReranker
        from desktop_rag.retrieval.st_cross_encoder import CrossEncoderReranker

        path, compute = Path(self.ctx.registry.cross_encoder_path()), self.ctx.compute
        return ComputeReranker(compute.run(lambda: CrossEncoderReranker(path)), compute)
