"""The window over the real facade (MiniLM, Chroma, citation checks) with a work folder of
Word, PowerPoint, Excel and e-mail files dropped on it: a cited slide and a cited sheet row open
in the viewer as text, the supporting sentence highlighted and the place named in the title."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QUrl
from test_gui_window import ingest, shoot

from desktop_rag.gui.main_window import MainWindow
from tests.office_docs import make_mixed_folder
from tests.test_office_answers import QuotesTheSource

pytestmark = [pytest.mark.gui, pytest.mark.slow]


@pytest.fixture(scope="module")
def scripted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from desktop_rag.bootstrap import build_context
    from desktop_rag.services import Services

    folder = tmp_path_factory.mktemp("office-gui")
    svc = Services(build_context(str(folder / "lib"), "tiny",
                                 overrides={"engine": QuotesTheSource()}))  # fmt: skip
    yield svc
    svc.close()


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_mixed_folder(tmp_path_factory.mktemp("office-docs") / "work")


def _cite(qtbot: Any, window: MainWindow, question: str, key: str) -> Any:
    engine = window.services.ctx.engine  # type: ignore[attr-defined]
    engine.key = key
    with qtbot.waitSignal(window.chat.answered, timeout=120_000) as blocker:
        window.chat.ask(question)
    answer = blocker.args[0]
    assert answer.citations, answer.answer
    citation = answer.citations[0]
    turn = len(window.chat_pane.turns) - 1
    window.viewer.location = None
    window.chat_pane.view.anchorClicked.emit(QUrl(f"cite:{turn}:{citation.n}"))
    qtbot.waitUntil(lambda: window.viewer.location is not None, timeout=10_000)
    return citation


def test_a_dropped_work_folder_is_read_and_its_citations_open_highlighted(
    qtbot: Any, scripted: Any, work: Path
) -> None:
    window = MainWindow(scripted, interactive=False)
    qtbot.addWidget(window)
    window.resize(1400, 800)
    window.show()
    window.start()
    ingest(qtbot, window, [work])
    qtbot.waitUntil(lambda: window.library_panel.model.rowCount() >= 7, timeout=60_000)
    kinds = {r.kind for r in window.library_panel.model.rows()}
    assert kinds == {"docx", "pptx", "xlsx", "eml", "markdown"}

    slide = _cite(qtbot, window, "When does the platypus app launch?", "launches")
    assert slide.chunk.path.endswith("platypus.pptx")
    assert "slide 2: Launch plan" in window.viewer.title.text()
    assert window.viewer.note.highlighted_text() == "The platypus app launches on 14 October 2025."
    assert window.viewer.open_button.isVisible()
    shoot(window, "office-cited-slide")

    row = _cite(qtbot, window, "How much was the rent in March in the household budget?",
                "March | Amount: 1250")
    assert row.chunk.path.endswith("budget.xlsx")
    assert "sheet Budget, cells A8:D8" in window.viewer.title.text()
    assert window.viewer.note.highlighted_text().startswith("A8:D8 — Item: Rent")
    shoot(window, "office-cited-sheet-row")
    assert window.shutdown()
    assert not window.errors.history, window.errors.history
