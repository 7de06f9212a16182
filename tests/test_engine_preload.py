"""A cold `ask` loads the chat model while it searches (services/preload.py): the model is built
on a thread of its own, while retrieval runs, and every call to it still runs on the compute
thread."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from answer_helpers import AnswerServices, TinySearch, add_document

from desktop_rag.bootstrap import build_context
from desktop_rag.config import Settings
from desktop_rag.domain.fakes import (
    FakeChatEngine,
    HashEmbedder,
    InMemoryVectorIndex,
    WordTokenCounter,
)
from desktop_rag.llm.compute_thread import ComputeThread
from desktop_rag.llm.worker import EngineWorker

STEEL = "The northern plant produced 420 tonnes of steel in 2019 according to the annual report."


class Recorder:
    def __init__(self) -> None:
        self.loading = threading.Event()
        self.built_on: str = ""
        self.generated_on: str = ""


class ThreadNoting(FakeChatEngine):
    def __init__(self, recorder: Recorder) -> None:
        super().__init__("The plant produced 420 tonnes of steel in 2019 [1].")
        self.recorder = recorder

    def generate(self, *args: Any, **kwargs: Any) -> Any:
        self.recorder.generated_on = threading.current_thread().name
        return super().generate(*args, **kwargs)


class SearchWaitingForTheLoad(TinySearch):
    """Retrieval that finishes only once the model has started loading (or after 10 s)."""

    recorder: Recorder

    def search(self, *args: Any, **kwargs: Any) -> Any:
        assert self.recorder.loading.wait(10), "the model did not start loading during retrieval"
        return super().search(*args, **kwargs)


def no_model_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake engine needs no model file: none is loaded ahead of it (AppContext)."""
    monkeypatch.setattr("desktop_rag.bootstrap.AppContext._begin_model_load", lambda _self: None)


def test_the_model_loads_on_its_own_thread_while_retrieval_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = Recorder()

    def slow_factory(*_: Any) -> EngineWorker:
        def build() -> FakeChatEngine:
            recorder.built_on = threading.current_thread().name
            recorder.loading.set()
            return ThreadNoting(recorder)

        return EngineWorker(build, compute, load_here=True)

    compute = ComputeThread("compute")
    monkeypatch.setattr("desktop_rag.llm.factory.load_engine", slow_factory)
    no_model_file(monkeypatch)
    ctx = build_context(str(tmp_path), settings=Settings(), overrides={
        "embedder": HashEmbedder(), "vectors": InMemoryVectorIndex(),
        "token_counter": WordTokenCounter(), "compute": compute,
    })  # fmt: skip
    add_document(ctx, "/lib/steel.pdf", "Steel report", [STEEL])
    SearchWaitingForTheLoad.recorder = recorder
    services = AnswerServices(ctx, SearchWaitingForTheLoad)
    answer = services.ask("How much steel did the northern plant produce in 2019?")
    assert "420 tonnes" in answer.answer
    assert recorder.built_on == "engine-preload"
    assert recorder.generated_on == "compute"  # used only on the compute thread
    ctx.close()


def test_a_loaded_model_is_not_loaded_again(fake_context: Any) -> None:
    fake_context.provide(engine=FakeChatEngine("The documents do not contain this information."))
    add_document(fake_context, "/lib/steel.pdf", "Steel report", [STEEL])
    services = AnswerServices(fake_context)
    services.ask("How much steel?")
    assert services.answers._preload._thread is None  # nothing was started


def test_the_cli_ask_starts_loading_the_model_before_the_services_are_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a cold `ask` the model load then overlaps the imports of the services as well."""
    import argparse

    import desktop_rag.services as services_module
    from desktop_rag.cli.output import open_services

    order: list[str] = []
    started = threading.Event()

    def factory(*_: Any) -> FakeChatEngine:
        order.append("engine")
        started.set()
        return FakeChatEngine()

    class Recording(services_module.Services):
        def __init__(self, ctx: Any) -> None:
            assert started.wait(10), "the model had not started loading"
            order.append("services")
            super().__init__(ctx)

    monkeypatch.setattr("desktop_rag.llm.factory.load_engine", factory)
    no_model_file(monkeypatch)
    monkeypatch.setattr(services_module, "Services", Recording)
    args = argparse.Namespace(data_dir=str(tmp_path), profile="tiny")
    with open_services(args, preload=("engine",)) as services:
        assert services.ctx.engine.name == "fake-chat"
    assert order == ["engine", "services"]
    with open_services(args) as services:  # a command that does not answer loads no model
        assert not services.ctx.loaded("engine")
