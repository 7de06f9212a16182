"""How an answer's prompt reaches the model: after the cached core's restored state, after the
instructions' saved state (services/instructions_cache.py), or, for an engine that keeps no
state (an LLM server), as one call. Every path reports its stages (reading N tokens, the prefill's
progress) and lets a Stop end it; a Stop before the first word leaves nothing to keep."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from desktop_rag.answering.draft import CoreContext
from desktop_rag.answering.instructions_cache import (
    generate_after_instructions,
    instruction_files,
    instructions_key,
)
from desktop_rag.answering.stages import (
    StageReporter,
    generate_in_steps,
    prompt_size,
    reporter_of,
)
from desktop_rag.answering.timings import since
from desktop_rag.bootstrap import AppContext
from desktop_rag.domain.errors import CancelledError
from desktop_rag.domain.progress import CancelToken
from desktop_rag.domain.protocols import ChatEngine, ChatMessage, Generation, TokenGenerating
from desktop_rag.llm.core_cache import (
    CoreCacheFiles,
    as_prefix_engine,
    restore,
    split_prompt,
    supports_prefix_cache,
)
from desktop_rag.llm.worker import interleaving, run_on_engine, token_generating, unwrap

TokenSink = Callable[[str], None]


class AnswerGeneration:
    """Runs an answer's prompt on the chat model (see the module text)."""

    def __init__(
        self,
        ctx: AppContext,
        build_core: Callable[[CancelToken | None], object],
        engine_identity: Callable[[], dict[str, Any]],
    ) -> None:
        """`build_core` prefills and saves the core's state when it is missing (the core
        service's); `engine_identity` is every part of the model's set-up a saved state
        depends on."""
        self.ctx = ctx
        self.build_core = build_core
        self.engine_identity = engine_identity

    def generate(
        self,
        messages: list[ChatMessage],
        core: CoreContext,
        on_token: TokenSink | None,
        cancel: CancelToken | None,
    ) -> Generation:
        """The model's answer; an engine with token access reports the prompt evaluation's
        progress. A Stop before the first word leaves nothing to keep: CancelledError."""
        engine, stages = self.ctx.engine, reporter_of(on_token)
        inner = unwrap(engine)
        if core.passages and supports_prefix_cache(inner):
            stages.restoring()
            token = interleaving(engine, stages)
            generation = run_on_engine(
                engine, lambda e: self._generate_cached(e, messages, core, token, cancel, stages)
            )
        elif isinstance(inner, TokenGenerating):
            token, limit = interleaving(engine, stages), self.ctx.settings.llm.max_tokens
            generation = run_on_engine(engine, lambda e: self._generate_plain(
                e, messages, limit, token, cancel, stages))  # fmt: skip
        else:
            stages.reading(prompt_size(engine, messages))
            generation = engine.generate(messages, self.ctx.settings.llm.max_tokens, stages, cancel)
        if generation.stopped_by == "cancel" and not generation.text.strip():
            raise CancelledError()
        return generation

    def _generate_plain(
        self, engine: ChatEngine, messages: Sequence[ChatMessage], limit: int,
        token: TokenSink | None, cancel: CancelToken | None, stages: StageReporter,
    ) -> Generation:
        """On the engine thread: after the instructions' saved state where the engine keeps one."""
        if not supports_prefix_cache(engine):
            return generate_in_steps(token_generating(engine), messages, limit, token, cancel,
                                     stages)  # fmt: skip
        key = instructions_key(self.engine_identity(), messages[0].content)
        files = instruction_files(self.ctx.paths.core_cache_dir)
        return generate_after_instructions(
            engine, messages, files, key, limit, token, cancel, stages)  # fmt: skip

    def _generate_cached(
        self,
        chat: ChatEngine,
        messages: Sequence[ChatMessage],
        core: CoreContext,
        on_token: TokenSink | None,
        cancel: CancelToken | None,
        stages: StageReporter | None = None,
    ) -> Generation:
        """On the engine thread: restore (or build) the core state, then evaluate the rest."""
        stages, engine = stages or reporter_of(on_token), as_prefix_engine(chat)
        split = split_prompt(engine, messages)
        files = CoreCacheFiles(self.ctx.paths.core_cache_dir)
        built_ms = 0.0
        try:
            restored_ms = restore(engine, files, core.key, split.prefix)
        except LookupError:
            build_start = time.perf_counter()
            self.build_core(cancel)
            built_ms, restored_ms = (
                since(build_start),
                restore(engine, files, core.key, split.prefix),
            )
        stages.reading(len(split.tokens))
        generation: Generation = engine.generate_tokens(
            split.tokens, self.ctx.settings.llm.max_tokens, on_token, cancel,
            on_prefill=stages.prefill,
        )
        generation.extra.update(restore_ms=restored_ms, core_build_ms=built_ms)
        return generation
