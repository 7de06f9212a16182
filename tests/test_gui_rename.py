"""Renaming a document in the library panel (context menu and F2), against the fake facade."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from gui_fakes import FakeServices
from gui_pdfs import SAMPLE_PAGES, make_pdf
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog
from pytestqt.qtbot import QtBot

from desktop_rag.domain import Document
from desktop_rag.gui.main_window import MainWindow

pytestmark = pytest.mark.gui


@pytest.fixture
def fake(data_dir: Path) -> Iterator[FakeServices]:
    services = FakeServices(data_dir)
    yield services
    services.close()


@pytest.fixture
def window(qtbot: QtBot, fake: FakeServices, tmp_path: Path) -> Iterator[MainWindow]:
    win = MainWindow(fake, interactive=False)
    qtbot.addWidget(win)
    win.show()
    win.start()
    with qtbot.waitSignal(win.library.ingest_finished, timeout=20000):
        win.library.ingest([str(make_pdf(tmp_path / "observatory.pdf", SAMPLE_PAGES))])
    qtbot.waitUntil(lambda: win.library_panel.model.rowCount() == 1 and idle(win))
    yield win
    assert win.shutdown()


def idle(window: MainWindow) -> bool:
    """No work queued and no list refresh due: a refresh would reset the table's selection."""
    refresh_due = window.library._refresh_timer.isActive()
    return not (window.writer.busy or window.reader.busy or refresh_due)


def rename_dialog(qtbot: QtBot, window: MainWindow) -> QInputDialog:
    qtbot.waitUntil(lambda: window.library_panel.findChild(QInputDialog) is not None)
    dialog = window.library_panel.findChild(QInputDialog)
    assert isinstance(dialog, QInputDialog) and dialog.isVisible()
    return dialog


def press_f2(qtbot: QtBot, window: MainWindow) -> QInputDialog:
    table = window.library_panel.table
    window.activateWindow()  # back from the dialog closed before
    table.setFocus()
    qtbot.waitUntil(table.hasFocus)  # F2 acts within the table
    assert len(window.library_panel.selected_rows()) == 1
    qtbot.keyClick(table, Qt.Key.Key_F2)
    return rename_dialog(qtbot, window)


def titles(window: MainWindow) -> list[str]:
    return [r.title for r in window.library_panel.model.rows()]


def test_rename_from_the_context_menu_runs_on_the_writer(
    qtbot: QtBot, window: MainWindow, fake: FakeServices
) -> None:
    panel = window.library_panel
    menu = panel.build_menu(panel.model.rows())
    (rename,) = [a for a in menu.actions() if a.text() == "Rename\u2026"]
    assert rename.shortcut().toString() == "F2"
    rename.trigger()
    dialog = rename_dialog(qtbot, window)
    assert dialog.textValue() == "observatory" and "observatory.pdf" in dialog.labelText()
    dialog.setTextValue("  Moon   observatory ")
    dialog.accept()
    qtbot.waitUntil(lambda: titles(window) == ["Moon observatory"])
    assert fake.threads == {"index-writer"}
    assert [d.title_by_user for d in fake.list_documents()] == [True]


def test_f2_renames_the_selected_document_and_cancel_or_blank_changes_nothing(
    qtbot: QtBot, window: MainWindow, fake: FakeServices, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[str, str]] = []
    real = fake.rename

    def rename(path: str | Path, title: str) -> Document:
        calls.append((str(path), title))
        return real(path, title)

    monkeypatch.setattr(fake, "rename", rename)
    table = window.library_panel.table
    table.selectRow(0)
    for answer in ("reject", "   ", "observatory"):  # cancelled, blank, unchanged
        dialog = press_f2(qtbot, window)
        if answer == "reject":
            dialog.reject()
        else:
            dialog.setTextValue(answer)
            dialog.accept()
        qtbot.waitUntil(lambda: window.library_panel.findChild(QInputDialog) is None)
    dialog = press_f2(qtbot, window)
    dialog.setTextValue("Observatory guide")
    dialog.accept()
    qtbot.waitUntil(lambda: titles(window) == ["Observatory guide"])
    assert [t for _, t in calls] == ["Observatory guide"]


def test_a_rename_that_fails_reaches_the_presenter(
    qtbot: QtBot, window: MainWindow, fake: FakeServices
) -> None:
    fake.docs.clear()  # the document went away meanwhile
    window.library.rename("/gone/observatory.pdf", "New")
    qtbot.waitUntil(lambda: bool(window.errors.history))
    assert window.errors.history[0].message == "/gone/observatory.pdf is not in the library"
