"""Computed answers in the chat view: the formula with its cited inputs, the app's result and
"checked", or the warning, under the answer; also in a chat restored from the store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from gui_fakes import FakeServices
from gui_pdfs import SAMPLE_PAGES, make_pdf
from pytestqt.qtbot import QtBot

from desktop_rag.answering.calculations import check_calculations
from desktop_rag.domain import CheckedCalculation, Chunk, DocKind, Passage
from desktop_rag.gui.main_window import MainWindow
from desktop_rag.gui.render import (
    CHECKED_COLOURS,
    WARNING_COLOURS,
    TurnView,
    answer_html,
    calculation_row,
)

pytestmark = pytest.mark.gui
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"

TABLE = "Streaming revenues (in thousands): domestic $ 4,180,339; international $ 1,953,435."
SUM = "4,180,339 [1] + 1,953,435 [1]"


def _checked(line: str) -> CheckedCalculation:
    chunk = Chunk("c1", "d", "/10k.pdf", "10-K", DocKind.PDF, TABLE, 0, (21,), (0, len(TABLE)))
    (calc,) = check_calculations(line, [Passage(1, chunk, TABLE, 0.9)])
    return calc


def test_a_checked_calculation_shows_formula_links_result_and_checked() -> None:
    html = calculation_row(_checked(f"Calculation: {SUM} = 6,133,774"), turn=2)
    assert f'bgcolor="{CHECKED_COLOURS[0]}"' in html and "Checked:</b>" in html
    assert '[<a href="cite:2:1">1</a>]' in html  # each input's citation opens its passage
    assert "= <b>6,133,774 thousand</b>" in html


def test_a_wrong_result_shows_the_right_one_and_an_unfound_input_no_result() -> None:
    wrong = calculation_row(_checked(f"Calculation: {SUM} = 6,100,000"))
    assert f'bgcolor="{WARNING_COLOURS[0]}"' in wrong and "Computed:</b>" in wrong
    right = "the right result of this formula is <b>6,133,774 thousand</b>."
    assert f"The answer says 6,100,000; {right}" in wrong
    missing = calculation_row(_checked("Calculation: 4,180,339 [1] + 2,000,000 [1] = 6,180,339"))
    assert f'bgcolor="{WARNING_COLOURS[0]}"' in missing and "Not computed:</b>" in missing
    assert "2,000,000 is not in source 1." in missing
    assert "6,180,339" not in missing  # no result is shown for it, not even the model's


def test_a_refusal_shows_the_calculation_that_needed_an_invented_input() -> None:
    """Stop 48: an answer whose calculation used a number no source prints is shown as the
    refusal, and the note under it says why."""
    missing = _checked("Calculation: 4,180,339 [1] + 522,100 [1] = 4,702,439")
    html = answer_html(TurnView("q", "The documents do not contain this information.",
                                refused=True, calculations=(missing,)))  # fmt: skip
    assert "Not answered from your documents." in html and "Not computed:</b>" in html
    assert "522,100 is not in source 1." in html and "4,702,439" not in html


def test_hostile_text_in_a_formula_is_escaped() -> None:
    html = calculation_row(_checked("Calculation: <b>1</b> + <img src='x'> [1] = 2"))
    assert "<img" not in html and "<b>1</b>" not in html and "&lt;img src" in html


def test_calculations_come_under_the_answer_in_place_of_their_lines() -> None:
    calc = _checked(f"**Calculation:** {SUM} = 6,133,774")
    answer = f"Total: 6,133,774 [1].\n\n- **Calculation:** {SUM} = 6,133,774\n\nThat is all."
    html = answer_html(TurnView("q", answer, calculations=(calc,)))
    assert html.index("Total: 6,133,774") < html.index("That is all") < html.index("Checked:")
    assert html.count("Calculation:") == 0  # the line is shown once: checked, in its row
    plain = answer_html(TurnView("q", f"Calculation: {SUM} = 6,133,774"))  # none checked
    assert "Calculation:" in plain and "Checked" not in plain


@pytest.fixture
def fake(data_dir: Path) -> Iterator[FakeServices]:
    services = FakeServices(data_dir)
    yield services
    services.close()


def _window(qtbot: QtBot, fake: FakeServices) -> MainWindow:
    win = MainWindow(fake, interactive=False)
    qtbot.addWidget(win)
    win.show()
    win.start()
    return win


def test_the_window_shows_the_calculation_live_and_restored(
    qtbot: QtBot, fake: FakeServices, tmp_path: Path
) -> None:
    make_pdf(tmp_path / "a.pdf", SAMPLE_PAGES)
    fake.reply = f"Streaming revenue was $6,100,000 thousand [1].\n\nCalculation: {SUM} = 6,100,000"
    fake.calculations = (_checked(f"Calculation: {SUM} = 6,100,000"),)
    win = _window(qtbot, fake)
    with qtbot.waitSignal(win.chat.answered, timeout=10000):
        win.chat_pane.question.setPlainText("What was total streaming revenue?")
        win.chat_pane.ask_button.click()
    text = win.chat_pane.view.toPlainText()
    assert "Computed:" in text and "the right result of this formula is 6,133,774 thousand" in text
    assert "Calculation:" not in text and "$6,100,000 thousand" in text  # the text stays
    ARTIFACTS.mkdir(exist_ok=True)
    assert win.chat_pane.view.grab().save(str(ARTIFACTS / "15-computed-answer.png"))
    assert win.shutdown()
    restored = _window(qtbot, fake)  # a restart: the chat comes back from the store
    qtbot.waitUntil(lambda: "the right result of" in restored.chat_pane.view.toPlainText())
    assert "The answer says 6,100,000" in restored.chat_pane.view.toPlainText()
    assert restored.shutdown()
