"""The instructions' KV state survives a new process (services/instructions_cache.py), with the
real SmolLM2: the first answer saves it, the next context restores it, the answers are the same."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from answer_helpers import AnswerServices, add_document, tiny_context

from desktop_rag.answering.instructions_cache import FOLDER
from desktop_rag.domain.protocols import ChatMessage

HANDBOOK = ["Employees receive 30 days of paid vacation per year; a manager approves it."]
QUESTION = "How many vacation days do employees get?"


def _services(data_dir: Path, engine: Any) -> AnswerServices:
    ctx = tiny_context(str(data_dir), engine, max_tokens=16)
    add_document(ctx, "/lib/handbook.pdf", "Handbook", HANDBOOK)
    return AnswerServices(ctx)


def _close(services: AnswerServices) -> None:
    services.ctx.release("engine")  # shared across tests: not closed here
    services.ctx.close()


def test_the_instructions_state_is_saved_once_and_restored_by_the_next_process(
    tmp_path: Path, tiny_chat_engine: Any
) -> None:
    first = _services(tmp_path / "a", tiny_chat_engine)
    tiny_chat_engine.generate([ChatMessage("user", "Hi")], 1)  # nothing useful in the KV cache
    built = first.ask(QUESTION)
    states = list((first.ctx.paths.core_cache_dir / FOLDER).glob("core-*.state"))
    assert built.timings["instructions_build_ms"] > 0 and len(states) == 1
    _close(first)
    tiny_chat_engine.generate([ChatMessage("user", "Hello")], 1)  # as a new process finds it
    second = _services(tmp_path / "b", tiny_chat_engine)  # the same library, opened anew
    shutil.copytree(states[0].parent, second.ctx.paths.core_cache_dir / FOLDER)
    restored = second.ask(QUESTION)
    assert restored.timings["instructions_build_ms"] == 0 and restored.timings["restore_ms"] > 0
    assert restored.timings["cached_tokens"] > 0
    assert restored.answer == built.answer  # greedy: the same answer either way
    again = second.ask("Who approves vacation?")
    assert again.timings["restore_ms"] == 0  # still in the KV cache of this process
    _close(second)
