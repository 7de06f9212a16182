"""The real llama.cpp engine with SmolLM2: streaming, cancel, bounds, greedy determinism."""

from __future__ import annotations

import threading
import time
from typing import Any

from desktop_rag.domain.progress import CancelToken
from desktop_rag.domain.protocols import ChatMessage
from desktop_rag.llm.llama_adapter import gpu_offload_supported, library_version
from desktop_rag.llm.llama_loading import resolve_gpu_layers

MESSAGES = [
    ChatMessage("system", "You are a helpful assistant."),
    ChatMessage("user", "Write a long story about a dragon who loves books."),
]


def test_doctor_helpers() -> None:
    assert library_version().startswith("0.3.")
    assert isinstance(gpu_offload_supported(), bool)
    assert resolve_gpu_layers("auto", True) == -1 and resolve_gpu_layers("auto", False) == 0
    assert resolve_gpu_layers("12", True) == 12


def test_streams_tokens_and_respects_max_tokens(tiny_chat_engine: Any) -> None:
    pieces: list[str] = []
    generation = tiny_chat_engine.generate(MESSAGES, 12, on_token=pieces.append)
    assert generation.generated_tokens <= 12 and len(pieces) >= 2
    assert "".join(pieces) == generation.text and generation.text.strip()
    assert generation.stopped_by in ("length", "stop", "repetition")
    assert generation.prompt_tokens > 10 and generation.ttft_ms > 0


def test_greedy_generation_is_deterministic(tiny_chat_engine: Any) -> None:
    first = tiny_chat_engine.run(lambda e: e.generate_tokens(_tokens(e), 16, fresh=True))
    second = tiny_chat_engine.run(lambda e: e.generate_tokens(_tokens(e), 16, fresh=True))
    assert first.text == second.text and first.cached_tokens == 0


def _cancel_later(token: CancelToken, delay: float, at: list[float]) -> None:
    def fire() -> None:
        at.append(time.perf_counter())
        token.cancel()

    threading.Timer(delay, fire).start()


def test_cancel_stops_generation_within_200_ms(tiny_chat_engine: Any) -> None:
    token, cancelled_at = CancelToken(), list[float]()
    seen: list[str] = []

    def on_token(piece: str) -> None:
        seen.append(piece)
        if len(seen) == 3:
            _cancel_later(token, 0.05, cancelled_at)

    generation = tiny_chat_engine.generate(MESSAGES, 400, on_token=on_token, cancel=token)
    assert generation.stopped_by == "cancel" and generation.generated_tokens < 400
    assert time.perf_counter() - cancelled_at[0] < 0.2


def test_cancel_interrupts_a_long_prefill(tiny_chat_engine: Any) -> None:
    token, cancelled_at = CancelToken(), list[float]()
    long = [ChatMessage("user", "hello world " * 1500)]
    _cancel_later(token, 0.3, cancelled_at)
    generation = tiny_chat_engine.generate(long, 50, cancel=token)
    assert generation.stopped_by == "cancel" and generation.generated_tokens == 0
    assert time.perf_counter() - cancelled_at[0] < 0.2
    after = tiny_chat_engine.generate(MESSAGES, 4)  # the engine is usable afterwards
    assert after.generated_tokens >= 1


def _tokens(engine: Any) -> list[int]:
    return list(engine.tokenize_prompt(engine.render(MESSAGES)))


def test_light_calls_run_while_a_long_prompt_is_evaluated(tiny_chat_engine: Any) -> None:
    """A search during the prompt evaluation of an answer does not wait for the answer."""
    compute = tiny_chat_engine._compute  # the engine's compute thread
    answered = threading.Event()
    prompt = [ChatMessage("user", "word " * 1500 + "Summarise the text.")]

    def answer() -> None:
        tiny_chat_engine.generate(prompt, 4)
        answered.set()

    streaming = threading.Thread(target=answer)
    streaming.start()
    time.sleep(0.5)  # 1,500 prompt tokens take seconds on a CPU
    ran_during_the_answer = compute.run(lambda: not answered.is_set(), light=True)
    streaming.join()
    assert ran_during_the_answer and answered.is_set()
