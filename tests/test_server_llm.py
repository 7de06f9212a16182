"""LLM server mode against a real `python -m llama_cpp.server` with the tiny SmolLM2 model,
started on a free 127.0.0.1 port for this module and stopped afterwards."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_procs import llama_server

from desktop_rag.config import Settings
from desktop_rag.config.paths import AppPaths
from desktop_rag.domain.errors import LLMError
from desktop_rag.domain.progress import CancelToken
from desktop_rag.domain.protocols import ChatMessage
from desktop_rag.llm.server_engine import ServerEngine

pytest.importorskip("llama_cpp.server.app", reason="llama-cpp-python[server] is not installed")

API_KEY = "test-key-123"
QUESTION = [ChatMessage("user", "What is the capital of France?")]
LONG = [ChatMessage("user", "Count from 1 to 500, one number per line.")]


@pytest.fixture(scope="module")
def tiny_model() -> Path:
    from desktop_rag.models import ModelRegistry

    paths = AppPaths(Path("unused"), Path("unused"), Path("unused"), Path("unused"))
    return ModelRegistry(paths, Settings(profile="tiny")).tiny_chat_model_path()


@pytest.fixture(scope="module")
def server_url(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    with llama_server(tiny_model, log, "--api_key", API_KEY) as url:
        yield url


@pytest.fixture
def engine(server_url: str) -> ServerEngine:
    return ServerEngine(server_url, 30.0, context_size=2048, api_key=API_KEY)


def test_streams_the_answer_piece_by_piece(engine: ServerEngine, tiny_model: Path) -> None:
    pieces: list[str] = []
    gen = engine.generate(QUESTION, 8, on_token=pieces.append)
    assert len(pieces) >= 2 and "".join(pieces) == gen.text
    assert gen.generated_tokens == len(pieces) and gen.stopped_by in ("stop", "length")
    assert 0 < gen.ttft_ms < gen.total_ms and gen.prompt_tokens > 5
    assert engine.name == tiny_model.name and engine.gpu_offload is False


def test_greedy_answers_are_deterministic(engine: ServerEngine) -> None:
    first = engine.generate(QUESTION, 8).text
    assert engine.generate(QUESTION, 8).text == first
    assert engine.generate(LONG, 8).text != first  # not a canned answer


def test_max_tokens_is_honoured(engine: ServerEngine) -> None:
    gen = engine.generate(LONG, 5)
    assert gen.stopped_by == "length" and 1 <= gen.generated_tokens <= 5


def test_cancel_stops_within_200_ms_and_the_server_stays_usable(engine: ServerEngine) -> None:
    cancel = CancelToken()
    cancelled_at: list[float] = []

    def on_token(_piece: str) -> None:
        if not cancelled_at:
            cancelled_at.append(time.perf_counter())
            cancel.cancel()

    gen = engine.generate(LONG, 1500, on_token=on_token, cancel=cancel)
    returned = time.perf_counter()
    assert gen.stopped_by == "cancel" and gen.generated_tokens < 1500
    assert returned - cancelled_at[0] < 0.2
    assert engine.generate(QUESTION, 2).generated_tokens >= 1  # the server is free again


def test_count_tokens_uses_the_model_tokenizer(engine: ServerEngine) -> None:
    assert engine.count_tokens("hello world") == 2  # SmolLM2: [28120, 905]
    assert engine.count_tokens("") == 0


def test_a_missing_api_key_is_a_clear_error(server_url: str) -> None:
    with pytest.raises(LLMError) as err:
        ServerEngine(server_url, 10.0)
    assert "HTTP 401" in err.value.message and "DESKTOP_RAG_LLM_API_KEY" in err.value.hint


def test_the_factory_builds_the_server_engine(
    server_url: str, monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    from desktop_rag.bootstrap import build_context

    monkeypatch.setenv("DESKTOP_RAG_LLM_API_KEY", API_KEY)
    settings = Settings(profile="tiny")
    settings = settings.updated({"llm.backend": "server", "llm.server_url": server_url})
    ctx = build_context(str(data_dir), settings=settings)
    try:
        engine = ctx.engine
        assert isinstance(engine, ServerEngine)
        assert engine.generate(QUESTION, 2).text
    finally:
        ctx.close()


def test_the_server_matches_the_local_engine(engine: ServerEngine, tiny_model: Path) -> None:
    """Same model, same template, greedy, no repeat penalty: the same answer in both modes."""
    from desktop_rag.llm.llama_adapter import EngineOptions, LlamaEngine

    local = LlamaEngine(EngineOptions(tiny_model, context_size=2048, threads=2))
    try:
        expected = local.generate(QUESTION, 8).text
    finally:
        local.close()
    assert engine.generate(QUESTION, 8).text == expected


NOTE = (
    "# Northern plant\n\nThe northern plant produced 420 tonnes of steel in 2019. "
    "It employs 85 people.\n"
)


@pytest.fixture
def server_services(
    server_url: str, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Any]:
    from desktop_rag.bootstrap import build_context
    from desktop_rag.domain.fakes import HashEmbedder, InMemoryVectorIndex, WordTokenCounter
    from desktop_rag.services import Services

    monkeypatch.setenv("DESKTOP_RAG_LLM_API_KEY", API_KEY)
    settings = Settings(profile="tiny")
    settings = settings.updated({"llm.backend": "server", "llm.server_url": server_url})
    settings = settings.updated({"llm.context_size": 2048, "llm.max_tokens": 12})
    settings = settings.updated(
        {"retrieval.min_similarity": 0.0, "retrieval.context_tokens": 600}
    )
    overrides = {"embedder": HashEmbedder(), "vectors": InMemoryVectorIndex(),
                 "token_counter": WordTokenCounter()}
    services = Services(build_context(str(data_dir), settings=settings, overrides=overrides))
    note = data_dir / "plant.md"
    note.write_text(NOTE, encoding="utf-8")
    assert not services.ingest([note]).failed
    yield services
    services.close()


def test_ask_streams_an_answer_from_the_server(server_services: Any) -> None:
    pieces: list[str] = []
    answer = server_services.ask("How much steel did the northern plant produce?",
                                 on_token=pieces.append)
    assert pieces and answer.answer == "".join(pieces).strip()
    assert answer.passages and "420 tonnes" in answer.passages[0].text
    assert answer.timings["generated_tokens"] >= 1 and answer.gpu_offload is False
    assert server_services.engine_info()["backend"] == "server"


def test_ask_with_a_pinned_core_sends_it_as_the_prompt_prefix(
    server_services: Any, data_dir: Path
) -> None:
    server_services.core_add([data_dir / "plant.md"])
    answer = server_services.ask("How many people does the northern plant employ?")
    assert answer.answer and any("85 people" in p.text for p in answer.passages)


def test_a_slow_prefill_hits_the_timeout(engine: ServerEngine) -> None:
    """Last in the module: the server goes on evaluating the abandoned prompt for a while."""
    engine.client.timeout_s = 0.02
    long_prompt = [ChatMessage("user", "word " * 300 + "?")]
    with pytest.raises(LLMError, match="did not answer within"):
        engine.generate(long_prompt, 4)
