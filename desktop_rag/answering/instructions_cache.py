"""The fixed instructions' KV state, kept across processes the way the cached core is.

Every answer without a core starts with the same system message (the instructions). One process
evaluates it once and llama.cpp reuses it for the next questions, but every cold `ask` paid for
it again (about 120 tokens: 0.75 s at this machine's 160 prompt tokens/s). Its state is saved
after the first evaluation, in a folder of its own next to the core's (saving a core state
removes the others in its folder), under a key of every part that changes it (model file,
context size, KV type, GPU layers, batch size, prompt text), and restored by the next process.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop_rag.answering import prompts
from desktop_rag.answering.stages import StageReporter
from desktop_rag.domain.progress import CancelToken
from desktop_rag.domain.protocols import ChatMessage, Generation, TokenCallback
from desktop_rag.llm.core_cache import (
    CoreCacheFiles,
    PrefixEngine,
    cache_key,
    restore,
    split_prompt,
)

FOLDER = "instructions"


def instructions_key(identity: dict[str, Any], system: str) -> dict[str, Any]:
    key = cache_key(identity, prompts.prompt_fingerprint(), [])
    key["system_sha256"] = hashlib.sha256(system.encode()).hexdigest()
    return key


def instruction_files(core_cache_dir: Path) -> CoreCacheFiles:
    return CoreCacheFiles(core_cache_dir / FOLDER)


def generate_after_instructions(
    engine: PrefixEngine,
    messages: Sequence[ChatMessage],
    files: CoreCacheFiles,
    key: dict[str, Any],
    max_tokens: int,
    on_token: TokenCallback | None,
    cancel: CancelToken | None,
    stages: StageReporter,
) -> Generation:
    """On the engine thread: the instructions' state restored (or evaluated and saved once),
    then the rest of the prompt evaluated and the answer generated."""
    split = split_prompt(engine, messages)
    built_ms = restored_ms = 0.0
    if split.prefix:
        try:
            restored_ms = restore(engine, files, key, split.prefix)
        except LookupError:  # first use, or another model or prompt: evaluate it and keep it
            start = time.perf_counter()
            files.build(engine, key, split.prefix, cancel)
            built_ms = (time.perf_counter() - start) * 1000
    stages.reading(len(split.tokens))
    generation = engine.generate_tokens(
        split.tokens, max_tokens, on_token, cancel, on_prefill=stages.prefill
    )
    generation.extra.update(restore_ms=restored_ms, instructions_build_ms=built_ms)
    return generation
