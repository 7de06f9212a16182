"""The chat model's file begins loading before the engine's modules import (`begin_load`): the
engine then takes that load, an early load's failure reaches the engine's caller with the
file's name, and a load begun for other options is not taken."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from desktop_rag.bootstrap import build_context
from desktop_rag.config import Settings
from desktop_rag.domain.errors import LLMError
from desktop_rag.llm import factory
from desktop_rag.llm.llama_loading import ModelLoad, begin_load, engine_options


def test_a_failed_early_load_is_raised_where_the_model_is_awaited(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF but not really a model")
    loading = begin_load(engine_options(broken, Settings().llm))
    with pytest.raises(LLMError, match=r"broken\.gguf"):
        loading.result()


def test_the_context_begins_the_load_before_building_the_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}

    def fake_load(options: Any) -> str:
        seen["options"] = options
        return "llama"

    def fake_engine(_registry: Any, _settings: Any, _compute: Any, loading: Any) -> str:
        seen["loading"] = loading
        return "engine"

    monkeypatch.setattr("desktop_rag.llm.llama_loading.load_model", fake_load)
    monkeypatch.setattr(factory, "load_engine", fake_engine)
    ctx = build_context(str(tmp_path), profile="tiny")
    assert ctx.engine == "engine"  # type: ignore[comparison-overlap]
    loading = seen["loading"]
    assert isinstance(loading, ModelLoad) and loading.result() == "llama"
    assert seen["options"].model_path == ctx.registry.chat_model_path()


def test_a_server_backend_loads_no_model_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(_options: Any) -> None:
        raise AssertionError("a server engine needs no local model")

    monkeypatch.setattr("desktop_rag.llm.llama_loading.begin_load", never)
    ctx = build_context(str(tmp_path), settings=Settings().updated({"llm.backend": "server"}))
    assert ctx._begin_model_load() is None


@pytest.mark.slow
def test_the_engine_takes_the_early_load_and_answers_the_same(tmp_path: Path) -> None:
    from desktop_rag.domain.protocols import ChatMessage
    from desktop_rag.llm.llama_adapter import LlamaEngine

    ctx = build_context(str(tmp_path), profile="tiny")
    llm = Settings(profile="tiny").updated({"llm.context_size": 1024}).llm
    options = engine_options(ctx.registry.chat_model_path(), llm)
    question = [ChatMessage("user", "Say hello.")]
    early = LlamaEngine(options, begin_load(options))
    plain = LlamaEngine(options)
    assert early.generate(question, 8).text == plain.generate(question, 8).text != ""
    other = begin_load(engine_options(options.model_path, Settings(profile="tiny").llm))
    engine = factory.load_local_engine(options.model_path, llm, loading=other)
    assert engine.context_size == 1024  # the load begun for another context size is not taken
    for closing in (early, plain, engine):
        closing.close()  # type: ignore[attr-defined]
    other.result().close()
    ctx.close()


@pytest.mark.slow
def test_a_model_loading_on_its_thread_leaves_what_others_print_alone(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """llama-cpp-python swaps stdout and stderr for /dev/null while a model loads; a cold
    `ask` prints its stages meanwhile, so the swap is off and llama.cpp logs to the logger."""
    import sys
    import time

    ctx = build_context(str(tmp_path), profile="tiny")
    llm = Settings(profile="tiny").updated({"llm.context_size": 1024}).llm
    stdout_before = sys.stdout
    loading = begin_load(engine_options(ctx.registry.chat_model_path(), llm))
    for i in range(40):
        print(f"stage line {i}", flush=True)
        print(f"stderr line {i}", file=sys.stderr, flush=True)
        time.sleep(0.01)
    loading.result().close()
    out, err = capfd.readouterr()
    assert sys.stdout is stdout_before
    assert all(f"stage line {i}\n" in out for i in range(40))
    assert all(f"stderr line {i}\n" in err for i in range(40))
    assert "llama" not in err.lower() and "token" not in err  # llama.cpp's messages: the log
    ctx.close()


def test_a_load_nobody_takes_is_closed_once_it_is_done() -> None:
    from concurrent.futures import Future

    class Model:
        closed = False

        def close(self) -> None:
            self.closed = True

    model, future = Model(), Future[Any]()
    loading = ModelLoad(engine_options(Path("model.gguf"), Settings().llm), future)
    loading.discard()
    assert not model.closed
    future.set_result(model)
    assert model.closed
    failed = ModelLoad(loading.options, Future[Any]())
    failed.discard()
    failed.future.set_exception(LLMError("damaged"))  # nothing to close, nothing raised
