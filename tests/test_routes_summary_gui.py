"""The "Summarize" actions of the window (library context menu, viewer) against the fake
facade: they scope the chat to the document and ask for its summary on the summary route,
forced (a question typed in the chat leaves the route to the router); the summary's closing
lines are shown small, their citations linked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from gui_fakes import FakeServices
from gui_pdfs import SAMPLE_PAGES, make_pdf
from pytestqt.qtbot import QtBot

from desktop_rag.domain import DocScope
from desktop_rag.gui.main_window import MainWindow
from desktop_rag.gui.render import TurnView, answer_html
from desktop_rag.routes.router import decide

pytestmark = pytest.mark.gui


@pytest.fixture
def window(qtbot: QtBot, data_dir: Path) -> Iterator[tuple[MainWindow, FakeServices]]:
    fake = FakeServices(data_dir)
    win = MainWindow(fake, interactive=False)
    qtbot.addWidget(win)
    win.show()
    win.start()
    yield win, fake
    assert win.shutdown()
    fake.close()


def _ingest(qtbot: QtBot, win: MainWindow, path: Path) -> None:
    with qtbot.waitSignal(win.library.ingest_finished, timeout=20000):
        win.library.ingest([str(path)])
    qtbot.waitUntil(lambda: win.library_panel.model.rowCount() == 1)


def test_summarize_from_the_menu_and_the_viewer_asks_for_the_documents_summary(
    qtbot: QtBot, window: tuple[MainWindow, FakeServices], tmp_path: Path
) -> None:
    win, fake = window
    _ingest(qtbot, win, make_pdf(tmp_path / "observatory.pdf", SAMPLE_PAGES))
    row = win.library_panel.model.rows()[0]
    menu = win.library_panel.build_menu([row])
    action = next(a for a in menu.actions() if a.text() == "Summarize")
    with qtbot.waitSignal(win.chat.answered, timeout=10000) as answered:
        action.trigger()
    assert answered.args is not None and answered.args[0].question == "Summarize this document."
    assert decide(answered.args[0].question).route == "summary"
    assert fake.scopes[-1] == DocScope(only=frozenset({row.doc_id}))
    assert fake.routes[-1] == "summary"  # forced, not left to the router
    assert win.chat_pane.scope_label.text() == "Asking about: observatory.pdf"
    win.open_row(row)
    qtbot.waitUntil(lambda: win.viewer.summarize_button.isVisible())
    with qtbot.waitSignal(win.chat.answered, timeout=10000):
        win.viewer.summarize_button.click()
    assert len(fake.scopes) == 2 and fake.scopes[-1] == DocScope(only=frozenset({row.doc_id}))
    assert fake.routes == ["summary", "summary"]
    with qtbot.waitSignal(win.chat.answered, timeout=10000):
        win.chat.ask("What is the observatory's telescope?")
    assert fake.routes[-1] is None


def test_the_reading_lines_of_a_summary_are_quiet_and_their_sections_linked() -> None:
    text = ("- The telescope was completed in 1931. [1]\n\nRead the whole document: 2 pages, "
            "1 pass.\nSections: [1] Observatory (page 1) \u00b7 [2] Annex (page 2)")  # fmt: skip
    html = answer_html(TurnView("Summarize this document.", text, citations=(1, 2)), 3)
    assert '<p style="color:#666; font-size:small;">Read the whole document' in html
    assert '1 pass.<br>Sections: [<a href="cite:3:1">1</a>] Observatory' in html
    assert '[<a href="cite:3:2">2</a>] Annex (page 2)' in html
