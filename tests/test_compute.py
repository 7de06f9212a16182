"""The compute thread: one thread runs the embedder, the cross-encoder and llama.cpp."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from desktop_rag.bootstrap import build_context
from desktop_rag.domain.errors import DesktopRagError
from desktop_rag.domain.fakes import FakeChatEngine, HashEmbedder
from desktop_rag.domain.protocols import ChatMessage, Vector
from desktop_rag.llm.compute_thread import ComputeEmbedder, ComputeReranker, ComputeThread
from desktop_rag.llm.worker import EngineWorker


class RecordingEmbedder(HashEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.threads: set[str] = {threading.current_thread().name}

    def embed_documents(self, texts: Sequence[str]) -> Vector:
        self.threads.add(threading.current_thread().name)
        return super().embed_documents(texts)


class RecordingEngine(FakeChatEngine):
    threads: ClassVar[set[str]] = set()

    def generate(self, *args: object, **kwargs: object) -> object:  # type: ignore[override]
        self.threads.add(threading.current_thread().name)
        return super().generate(*args, **kwargs)  # type: ignore[arg-type]


def test_calls_run_in_order_on_one_thread() -> None:
    compute = ComputeThread("c1")
    seen: list[tuple[int, str]] = []
    futures = [
        compute.submit(lambda n=n: seen.append((n, threading.current_thread().name)))
        for n in range(20)
    ]
    for future in futures:
        future.result()
    assert seen == [(n, "c1") for n in range(20)]
    compute.close()
    with pytest.raises(DesktopRagError):
        compute.run(lambda: 1)


def test_a_call_from_the_thread_itself_runs_at_once_and_errors_reach_the_caller() -> None:
    compute = ComputeThread()
    assert compute.run(lambda: compute.run(lambda: 41) + 1) == 42  # no deadlock
    with pytest.raises(ZeroDivisionError):
        compute.run(lambda: 1 // 0)
    assert compute.run(lambda: "still serving") == "still serving"
    compute.close()


def test_the_embedder_the_reranker_and_the_engine_share_the_thread() -> None:
    compute = ComputeThread("shared")
    embedder = ComputeEmbedder(RecordingEmbedder, compute)
    inner = embedder.inner
    assert isinstance(inner, RecordingEmbedder)
    results: list[Vector] = []
    callers = [
        threading.Thread(target=lambda: results.append(embedder.embed_documents(["a b", "c"])))
        for _ in range(3)
    ]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join()
    assert len(results) == 3 and all(r.shape == (2, embedder.dim) for r in results)
    assert embedder.embed_documents([]).shape == (0, embedder.dim)
    assert np.allclose(embedder.embed_query("a b"), inner.embed_query("a b"))
    assert inner.threads == {"shared"}  # loaded there too
    engine = EngineWorker(lambda: RecordingEngine("hello"), compute)
    engine.generate([ChatMessage("user", "hi")], 5)
    assert RecordingEngine.threads == {"shared"}
    reranker = ComputeReranker(_ThreadNamingReranker(), compute)
    assert reranker.score("q", ["x", "y"]) == [1.0, 1.0] and reranker.name == "naming"
    assert _ThreadNamingReranker.seen == {"shared"}
    engine.close()
    assert compute.run(lambda: "the shared thread outlives the engine") != ""
    compute.close()


class _ThreadNamingReranker:
    name = "naming"
    seen: ClassVar[set[str]] = set()

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        self.seen.add(threading.current_thread().name)
        return [1.0] * len(texts)


def test_the_app_runs_the_real_embedder_and_llama_cpp_on_one_thread(tmp_path: Path) -> None:
    """Through the composition root: packaged MiniLM and SmolLM2 (the tiny profile)."""
    ctx = build_context(str(tmp_path / "data"), profile="tiny")
    ctx.update_settings({"llm.context_size": 2048})
    try:
        vector = ctx.embedder.embed_query("where is the pump gasket?")
        assert vector.shape == (384,) and type(ctx.embedder.inner).__name__ == "OnnxEmbedder"
        counter = ctx.embedder.thread_counter()  # type: ignore[attr-defined]
        assert counter.count_word_pieces(["pump gasket"]) == ctx.embedder.count_word_pieces(
            ["pump gasket"]
        )
        engine_thread = ctx.engine.run(lambda e: threading.current_thread())  # type: ignore[attr-defined]
        assert engine_thread is ctx.compute.run(threading.current_thread)
        answer = ctx.engine.generate([ChatMessage("user", "Say hello.")], 8)
        assert answer.generated_tokens > 0
    finally:
        ctx.close()
    assert not engine_thread.is_alive()


class SlowEngine(FakeChatEngine):
    """Streams one piece every 20 ms, as a CPU model would."""

    finished = False

    def generate(self, messages, max_tokens, on_token=None, cancel=None):  # type: ignore[no-untyped-def,override]
        import time

        for _ in range(25):
            time.sleep(0.02)
            if on_token is not None:
                on_token("x")
        self.finished = True
        return super().generate(messages, max_tokens, None, cancel)


def test_a_search_during_a_long_answer_waits_a_token_not_the_answer() -> None:
    import time

    compute = ComputeThread("busy")
    embedder = ComputeEmbedder(HashEmbedder, compute)
    engine = EngineWorker(lambda: SlowEngine("done"), compute)
    answered = threading.Event()

    def answer() -> None:
        engine.generate([ChatMessage("user", "q")], 5)
        answered.set()

    streaming = threading.Thread(target=answer)
    streaming.start()
    time.sleep(0.1)  # the answer is streaming (for 0.5 s)
    embedder.embed_query("pump gasket")
    searched_before_the_answer_ended = not answered.is_set()
    heavy = compute.submit(lambda: engine.engine.finished)
    streaming.join()
    assert searched_before_the_answer_ended
    assert heavy.result()  # an engine call waits for the answer
    compute.close()
