"""The CAG core with the real SmolLM2: build, hit, miss, invalidation, corruption, identity."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from answer_helpers import AnswerServices, add_document, tiny_context

from desktop_rag.answering import prompts
from desktop_rag.domain.errors import CoreTooLargeError
from desktop_rag.domain.protocols import ChatMessage
from desktop_rag.llm.core_cache import CoreCacheFiles, split_prompt

HANDBOOK = [
    "Employees receive 30 days of paid vacation per year. Vacation must be approved by a manager.",
    "The office opens at 8 am and closes at 6 pm. Remote work is allowed on Fridays.",
]
POLICY = ["Travel expenses are reimbursed within 14 days when receipts are attached."]


@pytest.fixture
def core_services(data_dir: Path, tiny_chat_engine: Any) -> Iterator[AnswerServices]:
    ctx = tiny_context(str(data_dir), tiny_chat_engine, max_tokens=24)
    add_document(ctx, "/lib/handbook.pdf", "Handbook", HANDBOOK)
    add_document(ctx, "/lib/policy.pdf", "Travel policy", POLICY)
    add_document(ctx, "/lib/steel.pdf", "Steel", ["The plant made 420 tonnes of steel in 2019."])
    services = AnswerServices(ctx)
    services.core_add(["/lib/handbook.pdf"])
    yield services
    ctx.release("engine")  # shared across tests: not closed here
    ctx.close()


def _evict(services: AnswerServices) -> None:
    """Runs an unrelated prompt so the core prefix is no longer in the KV cache."""
    services.ctx.engine.generate([ChatMessage("user", "Hi")], 1)


def test_build_then_questions_reuse_the_saved_state(core_services: AnswerServices) -> None:
    assert core_services.core_status().state == "missing"
    status = core_services.core_build()
    assert status.state == "ready" and status.cache_bytes > 0
    assert Path(status.cache_file or "").is_file()
    assert Path(status.cache_file or "").with_suffix(".json").is_file()
    _evict(core_services)
    answer = core_services.ask("How many vacation days do employees get?")
    prefix = status.details["tokens"]
    assert answer.timings["cached_tokens"] >= prefix
    assert answer.timings["restore_ms"] > 0 and answer.timings["core_build_ms"] == 0
    assert answer.passages[0].is_core
    again = core_services.ask("When does the office open?")
    assert again.timings["restore_ms"] == 0 and again.timings["cached_tokens"] >= prefix


def test_missing_cache_is_built_on_first_question(core_services: AnswerServices) -> None:
    answer = core_services.ask("How many vacation days do employees get?")
    assert answer.timings["core_build_ms"] > 0
    assert core_services.core_status().state == "ready"


def test_cached_and_uncached_greedy_answers_are_identical(core_services: AnswerServices) -> None:
    core_services.core_build()
    core = core_services.core_context()
    messages = prompts.build_messages(core.passages, [], "How many vacation days are there?")
    files = CoreCacheFiles(core_services.ctx.paths.core_cache_dir)

    def cached(engine: Any) -> str:
        split = split_prompt(engine, messages)
        engine.generate([ChatMessage("user", "Hi")], 1)
        assert engine.load_state(files.state_path(core.key), split.prefix)
        return str(engine.generate_tokens(split.tokens, 24).text)

    def uncached(engine: Any) -> str:
        return str(
            engine.generate_tokens(split_prompt(engine, messages).tokens, 24, fresh=True).text
        )

    engine = core_services.ctx.engine
    with_cache, without = engine.run(cached), engine.run(uncached)
    assert with_cache == without and with_cache.strip()


def test_changes_make_the_cache_stale_and_it_is_rebuilt(core_services: AnswerServices) -> None:
    first = core_services.core_build()
    core_services.core_add(["/lib/policy.pdf"])
    assert core_services.core_status().state == "stale"
    answer = core_services.ask("How fast are travel expenses reimbursed?")
    assert answer.timings["core_build_ms"] > 0
    second = core_services.core_status()
    assert second.state == "ready" and second.cache_file != first.cache_file
    assert not Path(first.cache_file or "").exists()
    core_services.ctx.update_settings({"llm.batch_size": 256})  # a setting in the key
    assert core_services.core_status().state == "stale"


@pytest.mark.parametrize("damage", ["flip", "truncate"])
def test_corrupt_state_file_is_detected_and_rebuilt(
    core_services: AnswerServices, damage: str
) -> None:
    path = Path(core_services.core_build().cache_file or "")
    data = bytearray(path.read_bytes())
    if damage == "flip":
        data[len(data) // 2] ^= 0xFF
    else:
        data = data[: len(data) // 3]
    path.write_bytes(bytes(data))
    _evict(core_services)
    answer = core_services.ask("How many vacation days do employees get?")
    assert answer.timings["core_build_ms"] > 0 and answer.answer
    assert core_services.core_status().state == "ready"


def test_core_over_budget_is_refused_with_token_counts(core_services: AnswerServices) -> None:
    core_services.ctx.update_settings({"retrieval.context_tokens": 4096 - 24 - 256 - 20})
    with pytest.raises(CoreTooLargeError, match=r"needs \d+ tokens but its budget is 20"):
        core_services.core_add(["/lib/policy.pdf"])
    assert [d.title for d in core_services.core_status().docs] == ["Handbook"]


def test_a_refused_core_add_keeps_what_was_pinned_before(core_services: AnswerServices) -> None:
    """Naming an already pinned document again in a refused call does not unpin it."""
    core_services.ctx.update_settings({"retrieval.context_tokens": 4096 - 24 - 256 - 20})
    with pytest.raises(CoreTooLargeError):
        core_services.core_add(["/lib/handbook.pdf", "/lib/policy.pdf"])
    assert [d.title for d in core_services.core_status().docs] == ["Handbook"]


def test_pinning_takes_the_libraries_writer_lock(core_services: AnswerServices) -> None:
    from desktop_rag.domain.errors import LibraryInUseError
    from desktop_rag.store.lock import WriterLock

    other = WriterLock(core_services.ctx.paths.lock_file)  # another process's lock
    with other, pytest.raises(LibraryInUseError):
        core_services.core_add(["/lib/policy.pdf"])


def test_the_budget_shown_is_the_budget_the_build_checks(core_services: AnswerServices) -> None:
    """One count, the chat model's, for `core add`/`core list` and `core build` (issue 15,
    bug 1: a core said to fit was then refused by the build)."""
    from desktop_rag.llm.core_cache import prefix_tokens
    from desktop_rag.llm.worker import run_on_engine

    status = core_services.core_status()
    core = core_services.core_context()
    built = run_on_engine(core_services.ctx.engine, lambda e: prefix_tokens(e, core.system))
    assert status.total_tokens == len(built)
    core_services.ctx.update_settings(  # PROMPT_RESERVE is 256: a budget of exactly it
        {"retrieval.context_tokens": 4096 - 24 - 256 - status.total_tokens}
    )
    assert core_services.core_status().budget == status.total_tokens
    assert core_services.core_build().state == "ready"  # what fits is built
