"""Resetting a resource resets what was built on it: after the chat model is changed, no cached
re-ranker keeps the closed engine (the next `llm` re-ranked search used to fail)."""

from __future__ import annotations

from typing import Any

from desktop_rag.testing import FakeChatEngine


class ClosingEngine(FakeChatEngine):
    closed = False

    def next_token_logits(self, *_args: Any) -> list[float]:
        return [0.0, 0.0]

    def close(self) -> None:
        self.closed = True


def test_resetting_the_engine_forgets_the_rerankers_that_hold_it(fake_context: Any) -> None:
    from desktop_rag.services import Services

    old = ClosingEngine()
    fake_context.__dict__["engine"] = old
    services = Services(fake_context)
    _, first = services.reranker("llm")
    assert first is not None and first.engine is old  # type: ignore[attr-defined]
    fake_context.reset("engine")
    assert old.closed and not fake_context.loaded("rerankers")
    new = ClosingEngine()
    fake_context.__dict__["engine"] = new
    _, second = services.reranker("llm")
    assert second is not first and second.engine is new  # type: ignore[attr-defined]
