"""Resetting a resource resets what was built on it: after the chat model is changed, no cached
re-ranker keeps the closed engine (the next `llm` re-ranked search used to fail)."""

from __future__ import annotations

from typing import Any

from desktop_rag.domain.fakes import FakeChatEngine


class ClosingEngine(FakeChatEngine):
    """Scores tokens as the llama.cpp engine does (what the LLM re-ranker needs)."""

    closed = False

    def render(self, messages: Any) -> str:
        return " ".join(m.content for m in messages)

    def tokenize_prompt(self, text: str) -> list[int]:
        return [len(word) for word in text.split()]

    def next_token_logits(self, *_args: Any) -> list[float]:
        return [0.0, 0.0]

    def close(self) -> None:
        self.closed = True


def test_resetting_the_engine_forgets_the_rerankers_that_hold_it(fake_context: Any) -> None:
    from desktop_rag.services import Services

    old = ClosingEngine()
    fake_context.provide(engine=old)
    services = Services(fake_context)
    _, first = services.reranker("llm")
    assert first is not None and first.engine is old  # type: ignore[attr-defined]
    fake_context.reset("engine")
    assert old.closed and not fake_context.rerankers
    new = ClosingEngine()
    fake_context.provide(engine=new)
    _, second = services.reranker("llm")
    assert second is not first and second.engine is new  # type: ignore[attr-defined]
