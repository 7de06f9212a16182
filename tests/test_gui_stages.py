"""The wait for an answer is visible: stage text in the pending answer, sources before the answer
ends, and Stop while the prompt is read (against the fake facade)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from gui_fakes import FakeServices
from gui_pdfs import SAMPLE_PAGES, make_pdf
from pytestqt.qtbot import QtBot
from test_gui_window import item_text

from desktop_rag.gui.main_window import MainWindow
from desktop_rag.gui.render import TurnView, answer_html

pytestmark = pytest.mark.gui
READING = "Reading 1 passage (1,840 tokens)\u2026"


@pytest.fixture
def fake(data_dir: Path, tmp_path: Path) -> Iterator[FakeServices]:
    services = FakeServices(data_dir)
    services.ingest([make_pdf(tmp_path / "observatory.pdf", SAMPLE_PAGES)])
    services.prefill_steps, services.prefill_delay, services.token_delay = 5, 0.1, 0.02
    yield services
    services.close()


@pytest.fixture
def window(qtbot: QtBot, fake: FakeServices) -> Iterator[MainWindow]:
    win = MainWindow(fake, interactive=False)
    qtbot.addWidget(win)
    win.show()
    win.start()
    yield win
    assert win.shutdown()


def _shown(window: MainWindow) -> list[str]:
    seen: list[str] = []
    view = window.chat_pane.view
    view.textChanged.connect(lambda: seen.append(view.toPlainText()))
    return seen


def test_the_pending_answer_shows_its_stage_until_its_words_arrive(
    qtbot: QtBot, window: MainWindow
) -> None:
    seen = _shown(window)
    with qtbot.waitSignal(window.chat.answered, timeout=10000):
        window.chat.ask("When was the telescope completed?")
    reading = [s for s in seen if READING in s]
    assert any(s.rstrip().endswith("%") for s in reading)  # with its progress
    percents = [int(s.rstrip()[-4:].strip(" \u2026%")) for s in reading if s.rstrip()[-1] == "%"]
    assert percents == sorted(percents) and percents[-1] >= 60
    assert not any(READING in s for s in seen[seen.index(reading[-1]) + 1 :])  # words replace it
    assert "Reading" not in window.chat_pane.view.toPlainText()
    assert "1987" in window.chat_pane.view.toPlainText()


def test_stage_text_is_what_a_streaming_answer_without_words_shows() -> None:
    waiting = TurnView("Q?", "", streaming=True, stage="Searching your documents\u2026")
    assert "Searching your documents\u2026" in answer_html(waiting)
    assert "Searching" not in answer_html(TurnView("Q?", "Partly", streaming=True, stage="S"))


def test_sources_fill_before_the_answer_ends(qtbot: QtBot, window: MainWindow) -> None:
    answers: list[object] = []
    window.chat.answered.connect(answers.append)
    window.chat.ask("When was the telescope completed?")
    qtbot.waitUntil(lambda: window.sources.topLevelItemCount() == 1, timeout=5000)
    assert not answers and window.chat_pane.busy
    assert item_text(window.sources.topLevelItem(0), 4) == ""  # not cited yet: nothing written
    qtbot.waitUntil(lambda: bool(answers), timeout=10000)
    assert window.sources.topLevelItemCount() == 1
    assert item_text(window.sources.topLevelItem(0), 4)


def test_stop_while_reading_ends_the_job(
    qtbot: QtBot, window: MainWindow, fake: FakeServices
) -> None:
    fake.prefill_steps = 200  # 20 s of reading
    job = window.chat.ask("When was the telescope completed?")
    qtbot.waitUntil(lambda: "Reading" in window.chat_pane.view.toPlainText(), timeout=5000)
    stopped = time.perf_counter()
    window.chat_pane.stop_button.click()
    qtbot.waitUntil(lambda: not window.chat_pane.busy, timeout=2000)
    assert time.perf_counter() - stopped < 1.0 and job.cancel.cancelled
    qtbot.waitUntil(lambda: not window.llm.busy, timeout=2000)  # the job itself has ended
    text = window.chat_pane.view.toPlainText()
    assert "Stopped." in text and "Reading" not in text
