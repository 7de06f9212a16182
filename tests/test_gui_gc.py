"""While a window is open, garbage cycles are collected in the GUI thread, never in a worker
thread (where a Qt object in a cycle would be destroyed in the wrong thread and abort)."""

from __future__ import annotations

import gc
import threading
from typing import Any, ClassVar

from desktop_rag.gui import gui_gc


class _Cycle:
    died_in: ClassVar[list[int]] = []

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        _Cycle.died_in.append(threading.get_ident())


def _make_garbage() -> None:
    for _ in range(3 * gc.get_threshold()[0]):
        _Cycle()  # each one a cycle: only the cyclic collector frees it


def test_cycles_made_in_a_worker_die_in_the_gui_thread(qtbot: Any) -> None:
    assert gc.isenabled()
    _Cycle.died_in.clear()
    gui_gc.hold_gui_thread_gc()
    try:
        assert not gc.isenabled() and gui_gc.holders() == 1
        worker = threading.Thread(target=_make_garbage)
        worker.start()
        worker.join()
        assert not _Cycle.died_in  # nothing collected in the worker
        qtbot.waitUntil(lambda: len(_Cycle.died_in) > 0, timeout=5000)
        assert set(_Cycle.died_in) == {threading.get_ident()}  # the GUI thread
    finally:
        gui_gc.release_gui_thread_gc()
    assert gc.isenabled() and gui_gc.holders() == 0


def test_the_last_window_turns_the_collector_back_on(qtbot: Any) -> None:
    gui_gc.hold_gui_thread_gc()
    gui_gc.hold_gui_thread_gc()
    gui_gc.release_gui_thread_gc()
    assert not gc.isenabled()
    gui_gc.release_gui_thread_gc()
    gui_gc.release_gui_thread_gc()  # one too many: harmless
    assert gc.isenabled() and gui_gc.holders() == 0
