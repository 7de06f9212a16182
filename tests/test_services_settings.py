"""Settings edits replace the frozen settings whole; a changed chat model resets what holds it."""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

import pytest

from desktop_rag.config import Settings, load_settings
from desktop_rag.domain.errors import ConfigError
from desktop_rag.domain.fakes import FakeChatEngine
from desktop_rag.services import Services, engine_changed


class ClosingEngine(FakeChatEngine):
    closed = False

    def close(self) -> None:
        self.closed = True


def test_settings_are_frozen_and_updated_copies_are_checked() -> None:
    settings = Settings()
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.llm.max_tokens = 3  # type: ignore[misc]
    changed = settings.updated({"llm.max_tokens": 64, "retrieval.reranker": "none"})
    assert (changed.llm.max_tokens, changed.retrieval.reranker) == (64, "none")
    assert (settings.llm.max_tokens, settings.retrieval.reranker) == (512, "auto")
    with pytest.raises(ConfigError, match=r"retrieval\.reranker"):
        settings.updated({"retrieval.reranker": "magic"})
    with pytest.raises(ConfigError, match=r"Unknown setting llm\.colour"):
        settings.updated({"llm.colour": 1})


def test_only_settings_read_at_load_time_need_the_model_loaded_anew() -> None:
    settings = Settings()
    assert not engine_changed(settings, settings.updated({"llm.max_tokens": 64}))
    assert not engine_changed(settings, settings.updated({"retrieval.top_k": 3}))
    assert engine_changed(settings, settings.updated({"llm.context_size": 4096}))
    assert engine_changed(settings, settings.updated({"profile": "tiny"}))
    assert engine_changed(settings, settings.updated({"models.chat_model": "/m.gguf"}))


def test_apply_settings_saves_and_swaps_them_whole(fake_context: Any) -> None:
    services = Services(fake_context)
    before = services.settings
    seen: list[Settings] = []
    reader = threading.Thread(target=lambda: seen.append(services.settings))
    assert services.apply_settings(before.updated({"llm.max_tokens": 99})) is False
    reader.start()
    reader.join()
    assert services.settings.llm.max_tokens == 99 and before.llm.max_tokens == 512
    assert seen[0] is services.settings  # another thread sees the new object, whole
    assert load_settings(fake_context.paths.settings_file).llm.max_tokens == 99


def test_a_changed_model_resets_the_engine_and_the_rerankers_on_it(fake_context: Any) -> None:
    services = Services(fake_context)
    old = ClosingEngine()
    fake_context.provide(engine=old)
    fake_context.rerankers["llm"] = None  # as if an LLM re-ranker had been built on it
    assert services.apply_settings(services.settings.updated({"llm.context_size": 4096}))
    services.reset_engine()
    assert old.closed and not fake_context.loaded("engine") and not fake_context.rerankers
