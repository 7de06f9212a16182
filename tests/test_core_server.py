"""The pinned core with an engine that keeps no saved KV state: the LLM server backend (against
the scripted HTTP server of test_server_engine) and a plain engine without `render`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from answer_helpers import AnswerServices, add_document
from test_server_engine import Scripted, serve, stream

from desktop_rag.bootstrap import build_context
from desktop_rag.config import Settings
from desktop_rag.domain.errors import CoreTooLargeError
from desktop_rag.domain.fakes import (
    FakeChatEngine,
    HashEmbedder,
    InMemoryVectorIndex,
    WordTokenCounter,
)
from desktop_rag.models import ModelRegistry

__all__ = ["serve"]  # the scripted-server fixture, shared with test_server_engine
HANDBOOK = ["Employees receive 30 days of paid vacation per year.", "The office opens at 8 am."]
FAKES = {
    "embedder": HashEmbedder,
    "vectors": InMemoryVectorIndex,
    "token_counter": WordTokenCounter,
}


def _no_local_model(*_args: Any, **_kwargs: Any) -> Path:
    raise AssertionError("the local chat model was asked for")


def _services(data_dir: Path, settings: Settings, **overrides: Any) -> AnswerServices:
    fakes: dict[str, Any] = {name: make() for name, make in FAKES.items()}
    ctx = build_context(str(data_dir), settings=settings, overrides={**fakes, **overrides})
    add_document(ctx, "/lib/handbook.pdf", "Handbook", HANDBOOK)
    services = AnswerServices(ctx)
    services.core_add(["/lib/handbook.pdf"])
    return services


@pytest.fixture
def server_core(
    serve: Callable[[dict[str, Any]], Scripted], data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[AnswerServices, Scripted]]:
    monkeypatch.setattr(ModelRegistry, "chat_model_path", _no_local_model)
    server = serve({"POST /v1/chat/completions": stream(["Thirty ", "days."])})
    settings = Settings(profile="tiny")
    settings = settings.updated({"llm.backend": "server", "llm.server_url": server.url})
    settings = settings.updated({"llm.context_size": 2048, "llm.max_tokens": 16})
    settings = settings.updated({"retrieval.context_tokens": 600})
    services = _services(data_dir, settings)
    yield services, server
    services.ctx.close()


def _chat_bodies(server: Scripted) -> list[dict[str, Any]]:
    return [b for b in server.bodies if b["path"] == "/v1/chat/completions"]


def test_server_core_status_needs_no_local_model(server_core: Any) -> None:
    services, _server = server_core
    status = services.core_status()
    assert status.state == "server-cache" and status.total_tokens > 0
    assert status.cache_file is None and status.details["server_url"].endswith("/v1")
    key = services.core_context().key
    assert key["backend"] == "server" and key["model"] == "tiny-chat.gguf"


def test_server_core_build_sends_the_core_prefix_once(server_core: Any) -> None:
    services, server = server_core
    status = services.core_build()
    assert status.state == "server-cache" and status.details["warm_ms"] >= 0
    (warm,) = _chat_bodies(server)
    assert warm["max_tokens"] == 1
    assert warm["messages"][0]["content"] == services.core_context().system
    assert "30 days of paid vacation" in warm["messages"][0]["content"]


def test_server_answers_start_with_the_warmed_prefix(server_core: Any) -> None:
    services, server = server_core
    services.core_build()
    answer = services.ask("How many vacation days do employees get?")
    assert answer.answer == "Thirty days." and answer.passages[0].is_core
    warm, asked = _chat_bodies(server)
    assert asked["messages"][0] == warm["messages"][0]


def test_server_core_build_refuses_a_core_over_budget(server_core: Any) -> None:
    services, server = server_core
    # a budget of 0: retrieved passages take the whole context
    services.ctx.update_settings({"retrieval.context_tokens": 2048})
    with pytest.raises(CoreTooLargeError, match="budget"):
        services.core_build()
    assert _chat_bodies(server) == []


def test_an_engine_without_render_is_warmed_not_crashed(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF test model")
    monkeypatch.setattr(ModelRegistry, "chat_model_path", lambda *_a, **_k: model)
    engine = FakeChatEngine("Thirty days.")
    services = _services(data_dir, Settings(profile="tiny"), engine=engine)
    try:
        status = services.core_build()
    finally:
        services.ctx.close()
    assert status.state == "uncached" and status.details["tokens"] > 0
    (prompt,) = engine.prompts
    assert "30 days of paid vacation" in prompt[0].content
