"""Background jobs deliver typed results: `on_done` gets what the function returned,
`on_progress` what it reported, `on_error` what it raised, all on the GUI thread; a job cancelled
before it runs reaches `on_error` with CancelledError, and its progress after a cancel is
dropped. mypy checks this file: a handler of the wrong type does not type-check."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from desktop_rag.domain.errors import CancelledError, NotFoundError
from desktop_rag.gui.workers import Job, SerialWorker

pytestmark = pytest.mark.gui


@pytest.fixture
def worker(qtbot: QtBot) -> Iterator[SerialWorker]:
    made = SerialWorker("test-worker")
    yield made
    assert made.shutdown()


def test_the_result_reaches_on_done_on_the_gui_thread(qtbot: QtBot, worker: SerialWorker) -> None:
    got: list[tuple[list[int], str]] = []
    ran_on: list[str] = []

    def work(job: Job[list[int], str]) -> list[int]:
        ran_on.append(threading.current_thread().name)
        job.report("half way")
        return [1, 2, 3]

    progress: list[str] = []
    job = worker.submit("numbers", work, on_done=lambda r: got.append((r, _thread())),
                        on_progress=progress.append)
    qtbot.waitUntil(lambda: bool(got))
    assert got == [([1, 2, 3], threading.main_thread().name)]
    assert ran_on != [threading.main_thread().name]
    assert progress == ["half way"] and not worker.busy
    assert isinstance(job, Job)


def test_a_failure_reaches_on_error_not_on_done(qtbot: QtBot, worker: SerialWorker) -> None:
    done: list[str] = []
    errors: list[BaseException] = []

    def work(_job: Job[str, object]) -> str:
        raise NotFoundError("gone", "look elsewhere")

    worker.submit("fails", work, on_done=done.append, on_error=errors.append)
    qtbot.waitUntil(lambda: bool(errors))
    assert done == [] and isinstance(errors[0], NotFoundError)


def test_a_failure_without_on_error_goes_to_the_worker_signal(
    qtbot: QtBot, worker: SerialWorker
) -> None:
    def work(_job: Job[None, object]) -> None:
        raise ValueError("broken")

    with qtbot.waitSignal(worker.error, timeout=5000) as blocker:
        worker.submit("fails", work)
    assert isinstance(blocker.args[0], ValueError)


def test_a_job_cancelled_before_it_runs_reports_cancelled(
    qtbot: QtBot, worker: SerialWorker
) -> None:
    gate = threading.Event()
    errors: list[BaseException] = []
    done: list[int] = []
    worker.submit("blocker", lambda _j: gate.wait(5))
    second: Job[int, object] = worker.submit("later", lambda _j: 2, on_done=done.append,
                                             on_error=errors.append)
    second.cancel.cancel()
    gate.set()
    qtbot.waitUntil(lambda: bool(errors))
    assert done == [] and isinstance(errors[0], CancelledError)


def test_progress_after_a_cancel_is_dropped(qtbot: QtBot, worker: SerialWorker) -> None:
    gate = threading.Event()
    shown: list[int] = []

    def work(job: Job[str, int]) -> str:
        job.report(1)
        gate.wait(5)
        job.report(2)  # after the cancel
        return "done"

    done: list[str] = []
    job = worker.submit("counting", work, on_done=done.append, on_progress=shown.append)
    qtbot.waitUntil(lambda: shown == [1])
    job.cancel.cancel()
    gate.set()
    qtbot.waitUntil(lambda: not worker.busy)
    assert shown == [1] and done == ["done"]  # the function decides what a cancel ends


def _thread() -> str:
    return threading.current_thread().name
