"""The table pass in the window, against the fake facade: it runs on the index writer after the
text of what was added is searchable, the library lists the document as searchable with its
tables pending meanwhile, and an ingestion asked for during it goes first."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from gui_fakes import FakeServices
from gui_pdfs import SAMPLE_PAGES, make_pdf
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from test_gui_window import drop, ingest

from desktop_rag.gui.main_window import MainWindow

pytestmark = pytest.mark.gui


@pytest.fixture
def fake(data_dir: Path) -> Iterator[FakeServices]:
    services = FakeServices(data_dir)
    services.table_pages = 2  # each PDF has pages that look tabular
    yield services
    services.close()


@pytest.fixture
def window(qtbot: QtBot, fake: FakeServices) -> Iterator[MainWindow]:
    win = MainWindow(fake, interactive=False)
    qtbot.addWidget(win)
    win.show()
    win.start()
    qtbot.waitUntil(lambda: fake.syncs == 1 and not win.writer.busy)  # the sync at start
    yield win
    assert win.shutdown()


def status_shown(window: MainWindow) -> str:
    model = window.library_panel.model
    return str(model.data(model.index(0, 4), Qt.ItemDataRole.DisplayRole))


def test_a_document_is_listed_searchable_while_its_tables_are_read(
    qtbot: QtBot, window: MainWindow, fake: FakeServices, tmp_path: Path
) -> None:
    fake.tables_delay = 1.0
    ingest(qtbot, window, [make_pdf(tmp_path / "report.pdf", SAMPLE_PAGES)])
    model = window.library_panel.model
    qtbot.waitUntil(lambda: model.rowCount() == 1 and model.rows()[0].tables_pending)
    assert status_shown(window) == "indexed, tables pending"
    assert "the tables on its pages (and the words in its pictures) are being read" in str(
        model.data(model.index(0, 0), Qt.ItemDataRole.ToolTipRole))
    qtbot.waitUntil(lambda: not fake.tables_queue, timeout=10_000)
    qtbot.waitUntil(lambda: not model.rows()[0].tables_pending)
    assert status_shown(window) == "indexed"
    assert fake.table_passes[-1] == ("index-writer", False)  # on the writer, off the GUI thread
    shown = window.statusBar().currentMessage
    qtbot.waitUntil(lambda: shown().startswith("Tables read: 1 in 1 document"))


def test_an_ingestion_asked_for_during_a_table_pass_goes_first(
    qtbot: QtBot, window: MainWindow, fake: FakeServices, tmp_path: Path
) -> None:
    fake.tables_delay = 30.0
    ingest(qtbot, window, [make_pdf(tmp_path / "first.pdf", SAMPLE_PAGES)])
    qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith("Reading tables"))
    passes = len(fake.table_passes)
    fake.tables_delay = 0.0  # the next pass (the one running waits its 30 s, or a cancel)
    with qtbot.waitSignal(window.library.ingest_finished, timeout=10_000):
        drop(window, [make_pdf(tmp_path / "second.pdf", SAMPLE_PAGES)])
    assert fake.table_passes[passes] == ("index-writer", True)  # cancelled, left queued
    assert len(fake.docs) == 2
    qtbot.waitUntil(lambda: not fake.tables_queue, timeout=10_000)  # both, after the ingestion
    assert fake.table_passes[-1] == ("index-writer", False)


def test_a_removal_asked_for_during_a_table_pass_goes_first(
    qtbot: QtBot, window: MainWindow, fake: FakeServices, tmp_path: Path
) -> None:
    fake.tables_delay = 30.0
    pdf = make_pdf(tmp_path / "gone.pdf", SAMPLE_PAGES)
    ingest(qtbot, window, [pdf])
    qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith("Reading tables"))
    passes = len(fake.table_passes)
    fake.tables_delay = 0.0
    window.library.remove([str(pdf)])
    qtbot.waitUntil(lambda: not fake.docs, timeout=10_000)  # well before the pass's 30 s
    assert fake.table_passes[passes] == ("index-writer", True)
    qtbot.waitUntil(lambda: len(fake.table_passes) == passes + 2 and not window.writer.busy)
    assert fake.table_passes[-1] == ("index-writer", False)  # and it ran again after


def test_a_library_read_by_an_earlier_version_gets_its_tables_after_the_sync_at_start(
    qtbot: QtBot, data_dir: Path, tmp_path: Path
) -> None:
    older = FakeServices(data_dir)
    older.table_pages = 2
    older.ingest([make_pdf(tmp_path / "report.pdf", SAMPLE_PAGES)])  # read, no table pass queued
    older.catch_up = True  # this version reads tables (and pictures) it did not
    win = MainWindow(older, interactive=False)
    qtbot.addWidget(win)
    said: list[str] = []
    win.library.message.connect(said.append)
    try:
        win.show()
        win.start()
        qtbot.waitUntil(lambda: older.syncs == 1 and not older.tables_queue, timeout=10_000)
        qtbot.waitUntil(lambda: any(m.startswith("Tables read: 1 in 1 document") for m in said))
        assert ("Library: 1 unchanged \u2014 1 document read by an earlier version: reading "
                "its tables and pictures again") in said
        assert older.table_passes == [("index-writer", False)]
    finally:
        assert win.shutdown()
        older.close()
