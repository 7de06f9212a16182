"""The context's parts: built once on first use whichever threads ask, provided, released, reset."""

from __future__ import annotations

import threading
import time
from typing import Any

from desktop_rag.bootstrap.lazy import Lazy
from desktop_rag.domain.fakes import FakeChatEngine


def test_a_part_is_built_once_when_threads_ask_together() -> None:
    calls: list[int] = []

    def build() -> object:
        calls.append(1)
        time.sleep(0.05)
        return object()

    part: Lazy[object] = Lazy(build)
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(part.get())) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1 and len({id(g) for g in got}) == 1 and part.loaded
    assert part.take() is got[0] and not part.loaded


def test_release_leaves_a_shared_part_open_and_reset_closes_it(fake_context: Any) -> None:
    closed: list[str] = []

    class Engine(FakeChatEngine):
        def close(self) -> None:
            closed.append("engine")

    shared, own = Engine(), Engine()
    fake_context.provide(engine=shared)
    assert fake_context.release("engine") is shared and closed == []
    assert not fake_context.loaded("engine")
    fake_context.provide(engine=own)
    fake_context.reset("engine")
    assert closed == ["engine"] and not fake_context.loaded("engine")
