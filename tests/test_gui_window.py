"""The window against a fake facade: wiring, threads, streaming, Stop, viewer, settings, errors."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from gui_fakes import FakeServices
from gui_pdfs import SAMPLE_PAGES, make_pdf
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QFont, QIcon, QImage
from PySide6.QtWidgets import QApplication, QTableWidgetItem, QTreeWidgetItem, QWidget
from pytestqt.qtbot import QtBot

from desktop_rag.config import Settings, load_settings
from desktop_rag.domain import DocScope, FileOutcome, FollowedFolder, Outcome, Reason
from desktop_rag.gui.folders_dialog import FoldersDialog
from desktop_rag.gui.main_window import MainWindow
from desktop_rag.gui.probe import LatencyProbe
from desktop_rag.gui.viewer import Location
from desktop_rag.ingest.planner import BEING_WRITTEN
from desktop_rag.services.library import FOLDER_MISSING

pytestmark = pytest.mark.gui
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


def shoot(widget: QWidget, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    assert widget.grab().save(str(path))
    return path


def opened(window: MainWindow) -> Location:
    """What the viewer shows (a test waits for it first)."""
    location = window.viewer.location
    assert location is not None
    return location


def item_text(item: QTableWidgetItem | QTreeWidgetItem | None, column: int = 0) -> str:
    """The text of a table cell (`column` unused) or of a tree row's column."""
    assert item is not None
    return item.text() if isinstance(item, QTableWidgetItem) else item.text(column)


@pytest.fixture
def fake(data_dir: Path) -> Iterator[FakeServices]:
    services = FakeServices(data_dir)
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


def drop(window: MainWindow, paths: list[Path]) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    args = (Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier)
    enter = QDragEnterEvent(QPointF(100, 100), *args)
    assert QApplication.sendEvent(window, enter) and enter.isAccepted()
    assert QApplication.sendEvent(window, QDropEvent(QPointF(100, 100), *args))


def ingest(qtbot: QtBot, window: MainWindow, paths: list[Path]) -> None:
    with qtbot.waitSignal(window.library.ingest_finished, timeout=20000):
        drop(window, paths)
    qtbot.waitUntil(
        lambda: bool(window.library.documents or window.library.failures))


def test_empty_window_invites_a_drop(qtbot: QtBot, window: MainWindow, fake: FakeServices) -> None:
    qtbot.waitUntil(lambda: window.model_label.text() == "Model: fake-chat")
    qtbot.waitUntil(lambda: fake.warmed == ["index-writer"])  # warmed up off the GUI thread
    panel = window.library_panel
    assert panel.empty_label.isVisible()
    assert "Drop PDFs or notes here" in panel.empty_label.text()
    assert "GPU offload: off" in window.gpu_label.text()
    shoot(window, "01-empty")


def test_dropped_pdf_is_ingested_off_the_gui_thread(
    qtbot: QtBot, window: MainWindow, fake: FakeServices, tmp_path: Path
) -> None:
    pdf = make_pdf(tmp_path / "observatory.pdf", SAMPLE_PAGES)
    ingest(qtbot, window, [pdf])
    rows = window.library_panel.model.rows()
    assert [r.title for r in rows] == ["observatory"]
    assert rows[0].status == "indexed"
    assert window.library_panel.table.isVisible()
    assert threading.main_thread().name not in fake.threads
    assert fake.threads == {"index-writer"}


def test_progress_and_cancel(
    qtbot: QtBot, window: MainWindow, fake: FakeServices, tmp_path: Path
) -> None:
    pdfs = [make_pdf(tmp_path / f"doc{i}.pdf", SAMPLE_PAGES) for i in range(6)]
    fake.file_delay = 0.15
    drop(window, pdfs)
    qtbot.waitUntil(lambda: "file" in window.task_progress.label.text())
    assert window.task_progress.isVisible()
    assert "left" in window.task_progress.label.text()  # ETA shown
    shoot(window, "02-ingesting")
    with qtbot.waitSignal(window.library.ingest_finished, timeout=10000) as blocker:
        window.task_progress.cancel_button.click()
    report = blocker.args[0]
    assert report.count(report.outcomes[-1].outcome.__class__("cancelled")) >= 1
    assert not window.task_progress.isVisible()


def test_bad_file_shows_its_reason(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.7 this is not really a pdf")
    ingest(qtbot, window, [bad])
    model = window.library_panel.model
    qtbot.waitUntil(lambda: model.rowCount() == 1)
    index = model.index(0, 4)
    assert "not a readable PDF" in str(model.data(index))
    assert model.data(index, Qt.ItemDataRole.ToolTipRole) == "not a readable PDF (damaged?)"
    icon = model.data(index, Qt.ItemDataRole.DecorationRole)
    assert isinstance(icon, QIcon) and not icon.isNull()
    window.library_panel.table.selectRow(0)
    assert window.library_panel.detail.text() == "broken.pdf: not a readable PDF (damaged?)"
    shoot(window, "06-bad-file")


def test_answer_streams_and_citation_opens_highlighted_line(
    qtbot: QtBot, window: MainWindow, fake: FakeServices, tmp_path: Path
) -> None:
    pdf = make_pdf(tmp_path / "observatory.pdf", SAMPLE_PAGES)
    ingest(qtbot, window, [pdf])
    fake.token_delay = 0.02
    streamed: list[str] = []
    window.chat_pane.view.textChanged.connect(
        lambda: streamed.append(window.chat_pane.view.toPlainText()))
    with qtbot.waitSignal(window.chat.answered, timeout=10000):
        window.chat_pane.question.setPlainText("When was the telescope completed?")
        window.chat_pane.ask_button.click()
    assert any("completed" in s and "1987" not in s for s in streamed)  # partial text shown
    html = window.chat_pane.view.toHtml()
    assert 'href="cite:0:1"' in html
    assert "Not supported by the cited sources" in html or "not supported" in html
    assert window.sources.topLevelItemCount() == 1
    assert window.ttft_label.text().startswith("TTFT:")
    shoot(window, "03-answer")
    window.chat_pane.view.anchorClicked.emit(QUrl("cite:0:1"))
    qtbot.waitUntil(lambda: window.viewer.location is not None)
    assert opened(window).page == 2
    assert window.viewer.page_box.value() == 2
    assert_highlight_covers_line(qtbot, window)
    shoot(window, "04-viewer")


def assert_highlight_covers_line(qtbot: QtBot, window: MainWindow, page: int | None = None) -> None:
    """Every visible highlight rectangle covers rendered text and stops in the gaps around it."""
    pane = window.viewer.pdf
    qtbot.wait(300)  # let layout and rendering settle
    pane._boxes, saved = [], pane._boxes  # look at the page without the overlay
    image = pane.viewport().grab().toImage()
    pane._boxes = saved
    pane.viewport().update()
    height = pane.viewport().height()
    rects = [r for r in pane.highlight_rects(page) if r.y >= 4 and r.bottom <= height - 4]
    assert rects, "no highlight is visible"
    for rect in rects:
        inside = dark_pixels(image, rect.x, rect.y, rect.right, rect.bottom)
        above = dark_pixels(image, rect.x, rect.y - 4, rect.right, rect.y - 1)
        below = dark_pixels(image, rect.x, rect.bottom + 1, rect.right, rect.bottom + 4)
        assert inside > 40, f"the highlight {rect} does not cover rendered text"
        assert above + below < inside / 20, f"the highlight {rect} is not aligned with its line"


def dark_pixels(image: QImage, x0: float, y0: float, x1: float, y1: float) -> int:
    count = 0
    for y in range(int(y0), int(y1)):
        for x in range(int(x0), int(x1)):
            if image.pixelColor(x, y).lightness() < 128:
                count += 1
    return count


def test_stop_stops_generation(
    qtbot: QtBot, window: MainWindow, fake: FakeServices, tmp_path: Path
) -> None:
    fake.reply = " ".join(["word"] * 400)
    fake.token_delay = 0.01
    window.chat.ask("Tell me a long story")
    qtbot.waitUntil(lambda: "word word" in window.chat_pane.view.toPlainText())
    assert window.chat_pane.stop_button.isEnabled()
    qtbot.keyClick(window.chat_pane.question, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not window.chat_pane.busy, timeout=3000)
    assert "Stopped." in window.chat_pane.view.toPlainText()
    assert window.chat_pane.view.toPlainText().count("word") < 400


def test_event_loop_stays_responsive(
    qtbot: QtBot, window: MainWindow, fake: FakeServices, tmp_path: Path
) -> None:
    pdfs = [make_pdf(tmp_path / f"doc{i}.pdf", SAMPLE_PAGES) for i in range(5)]
    fake.file_delay, fake.token_delay = 0.05, 0.005
    probe = LatencyProbe()
    probe.start()
    ingest(qtbot, window, pdfs)
    with qtbot.waitSignal(window.chat.answered, timeout=10000):
        window.chat.ask("When was it completed?")
    probe.stop()
    assert probe.percentile(0.99) < 100 and probe.max_delay_ms < 500, probe.delays_ms


def test_the_library_is_synced_quietly_at_start_and_on_f5(
    qtbot: QtBot, window: MainWindow, fake: FakeServices, tmp_path: Path
) -> None:
    qtbot.waitUntil(lambda: fake.syncs == 1 and not window.writer.busy)
    assert "index-writer" in fake.threads
    assert window.statusBar().currentMessage() == ""  # nothing changed: nothing said
    ingest(qtbot, window, [make_pdf(tmp_path / "a.pdf", SAMPLE_PAGES)])
    with qtbot.waitSignal(window.library.ingest_finished, timeout=20000):
        qtbot.keyClick(window, Qt.Key.Key_F5)
    assert fake.syncs == 2
    assert window.statusBar().currentMessage() == "Library: 1 unchanged"
    window.statusBar().clearMessage()
    fake.sync_extra = [FileOutcome("/x/photo.jpg", Outcome.SKIPPED, "unsupported file type"),
                       FileOutcome("/x/bad.pdf", Outcome.FAILED, "not a readable PDF")]
    for expected in ("Library: 1 unchanged, 1 skipped, 1 failed", ""):  # a failure is news once
        with qtbot.waitSignal(window.library.ingest_finished, timeout=20000):
            window.library.sync(quiet=True)
        assert window.statusBar().currentMessage() == expected
        window.statusBar().clearMessage()
    fake.sync_extra = [FileOutcome("/media/usb", Outcome.SKIPPED, FOLDER_MISSING,
                                   code=Reason.FOLDER_MISSING)]
    missing = ("Library: 1 unchanged, 1 skipped \u2014 folders not found, their documents kept: "
               "/media/usb")
    for expected in (missing, ""):  # a missing folder is news once
        with qtbot.waitSignal(window.library.ingest_finished, timeout=20000):
            window.library.sync(quiet=True)
        assert window.statusBar().currentMessage() == expected
        window.statusBar().clearMessage()


def test_progress_stays_until_the_last_indexing_job_ends(
    qtbot: QtBot, window: MainWindow, fake: FakeServices, tmp_path: Path
) -> None:
    fake.file_delay = 0.3
    drop(window, [make_pdf(tmp_path / f"d{i}.pdf", SAMPLE_PAGES) for i in range(3)])
    qtbot.waitUntil(lambda: fake.syncs == 1)  # the sync at start ran first
    qtbot.wait(150)  # its result reached the GUI thread
    assert window.task_progress.isVisible()
    qtbot.waitUntil(lambda: len(fake.docs) == 3 and not window.writer.busy, timeout=20000)
    qtbot.waitUntil(lambda: not window.task_progress.isVisible())


def test_followed_folders_dialog_lists_and_removes(
    qtbot: QtBot, window: MainWindow, fake: FakeServices
) -> None:
    fake.followed = [FollowedFolder("/data/papers", True, 12),
                     FollowedFolder("/media/usb/notes", False, 3)]
    dialog = window.show_folders()
    qtbot.waitUntil(lambda: dialog.folders_shown() == ["/data/papers", "/media/usb/notes"])
    assert item_text(dialog.table.item(0, 1)) == "12"
    assert item_text(dialog.table.item(1, 2)).startswith("missing")
    assert not dialog.remove_button.isEnabled() and dialog.empty_label.isHidden()
    dialog.select(["/media/usb/notes"])
    assert dialog.remove_button.isEnabled()
    shoot(dialog, "14-followed-folders")
    qtbot.mouseClick(dialog.remove_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.folders_shown() == ["/data/papers"])
    assert "index-writer" in fake.threads
    fake.followed.append(FollowedFolder("/data/old", True, 4))
    dialog.reload()
    qtbot.waitUntil(lambda: dialog.folders_shown() == ["/data/papers", "/data/old"])
    dialog.select(["/data/old"])
    qtbot.mouseClick(dialog.unfollow_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.folders_shown() == ["/data/papers"])
    fake.followed = []
    with qtbot.waitSignal(window.library.ingest_finished):
        qtbot.mouseClick(dialog.sync_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.empty_label.isHidden())
    dialog.close()
    qtbot.waitUntil(lambda: not window.findChildren(FoldersDialog))


def test_a_change_in_a_followed_folder_syncs_once_it_settles(
    qtbot: QtBot, window: MainWindow, fake: FakeServices, tmp_path: Path
) -> None:
    fake.followed = [FollowedFolder(str(tmp_path), True, 0)]
    qtbot.waitUntil(lambda: fake.syncs == 1 and not window.writer.busy)
    window.library.watch_folders()
    qtbot.waitUntil(lambda: window.library.watcher.watched() == [str(tmp_path)])
    for n in range(3):  # a copy of several files: one sync
        (tmp_path / f"new{n}.md").write_text("# New\n\nText.")
    qtbot.waitUntil(lambda: fake.syncs == 2, timeout=10000)
    qtbot.wait(2000)
    assert fake.syncs == 2
    fake.settings = replace(fake.settings, ingest=replace(fake.settings.ingest,
                                                          watch_folders=False))
    window.library.watch_folders()
    assert window.library.watcher.watched() == []


def test_a_quiet_sync_with_nothing_to_read_shows_no_progress(
    qtbot: QtBot, window: MainWindow, fake: FakeServices
) -> None:
    qtbot.waitUntil(lambda: fake.syncs == 1 and not window.writer.busy)
    shown = []
    with qtbot.waitSignal(window.library.ingest_finished, timeout=20000):
        window.library.sync(quiet=True)
        shown.append(window.task_progress.isVisible())
    assert shown == [False] and not window.task_progress.isVisible()
    with qtbot.waitSignal(window.library.ingest_finished, timeout=20000):
        window.library.sync()
        shown.append(window.task_progress.isVisible())
    assert shown == [False, True]
    fake.sync_delay, fake.sync_extra = 0.5, [FileOutcome("/x/new.pdf", Outcome.INDEXED)]
    with qtbot.waitSignal(window.library.ingest_finished, timeout=20000):
        window.library.sync(quiet=True)  # it has a file to read: the strip shows
        qtbot.waitUntil(window.task_progress.isVisible)
    assert "file 1 of 1" in window.task_progress.label.text()


def test_a_file_left_for_later_brings_another_sync(
    qtbot: QtBot, window: MainWindow, fake: FakeServices
) -> None:
    qtbot.waitUntil(lambda: fake.syncs == 1 and not window.writer.busy)
    fake.sync_extra = [FileOutcome("/x/big.pdf", Outcome.SKIPPED, BEING_WRITTEN,
                                   code=Reason.BEING_WRITTEN)]
    window.library.sync(quiet=True)
    qtbot.waitUntil(lambda: fake.syncs == 2)
    fake.sync_extra = []  # the copy has ended
    qtbot.waitUntil(lambda: fake.syncs == 3, timeout=10000)  # asked for by the watcher
    qtbot.wait(2000)
    assert fake.syncs == 3


def test_a_document_whose_file_went_away_is_marked_missing(
    qtbot: QtBot, window: MainWindow, fake: FakeServices, tmp_path: Path
) -> None:
    pdf = make_pdf(tmp_path / "on-usb.pdf", SAMPLE_PAGES)
    ingest(qtbot, window, [pdf])
    model = window.library_panel.model
    assert model.rows()[0].missing is False
    pdf.unlink()  # the drive was unplugged
    window.library.refresh()
    qtbot.waitUntil(lambda: model.rows()[0].missing)
    status = model.index(0, 4)
    assert model.data(status) == "indexed, file missing"
    assert "cannot be opened" in str(model.data(status, Qt.ItemDataRole.ToolTipRole))
    assert model.data(status, Qt.ItemDataRole.ForegroundRole) is not None


def test_no_sync_at_start_when_the_setting_is_off(qtbot: QtBot, fake: FakeServices) -> None:
    fake.settings = replace(fake.settings, ingest=replace(fake.settings.ingest,
                                                          sync_on_start=False))
    win = MainWindow(fake, interactive=False)
    qtbot.addWidget(win)
    win.show()
    win.start()
    qtbot.waitUntil(lambda: not win.writer.busy)
    assert fake.syncs == 0
    assert win.shutdown()


def test_chats_are_restored_on_restart(qtbot: QtBot, fake: FakeServices, tmp_path: Path) -> None:
    make_pdf(tmp_path / "a.pdf", SAMPLE_PAGES)
    fake.ask("Earlier question?", fake.new_chat())
    win = MainWindow(fake, interactive=False)
    qtbot.addWidget(win)
    win.show()
    win.start()
    qtbot.waitUntil(lambda: "Earlier question?" in win.chat_pane.view.toPlainText())
    assert win.chat_pane.chats.count() == 1
    qtbot.keyClick(win.chat_pane.question, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: win.chat_pane.chats.count() == 2)
    assert "Earlier question?" not in win.chat_pane.view.toPlainText()
    assert win.shutdown()


def test_settings_round_trip(qtbot: QtBot, window: MainWindow, fake: FakeServices) -> None:
    shown = fake.settings
    dialog = window.open_settings()
    dialog.top_k.setValue(9)
    dialog.context_size.setValue(4096)
    dialog.reranker.setCurrentText("none")
    dialog.gpu_layers.setCurrentText("0")
    dialog.sync_on_start.setChecked(False)
    dialog.watch_folders.setChecked(False)
    shoot(dialog, "05-settings")
    dialog.accept()
    saved = load_settings(fake.paths.settings_file)
    assert (saved.retrieval.top_k, saved.llm.context_size) == (9, 4096)
    assert saved.ingest.sync_on_start is False and saved.ingest.watch_folders is False
    assert window.library.watcher.watched() == []
    assert (saved.retrieval.reranker, saved.llm.gpu_layers) == ("none", "0")
    assert fake.settings == saved  # applied without restart, as a new object
    assert shown == Settings()  # the settings the app had are left as they were
    qtbot.waitUntil(lambda: fake.engine_resets == ["llm-worker"])  # context and GPU changed
    again = window.open_settings()
    assert again.top_k.value() == 9 and again.reranker.currentText() == "none"
    again.reject()


def test_settings_reject_invalid_values(
    qtbot: QtBot, window: MainWindow, fake: FakeServices
) -> None:
    dialog = window.open_settings()
    dialog.gpu_layers.setCurrentText("lots")
    dialog.accept()
    assert dialog.isVisible()
    assert "gpu_layers" in dialog.error_label.text()
    dialog.model_path.setText("/nonexistent/model.gguf")
    dialog.gpu_layers.setCurrentText("auto")
    dialog.accept()
    assert "not a GGUF file" in dialog.error_label.text()
    assert not fake.paths.settings_file.exists()
    dialog.reject()


def test_worker_errors_reach_the_presenter(qtbot: QtBot, window: MainWindow) -> None:
    window.chat.select_chat("missing")
    qtbot.waitUntil(lambda: bool(window.errors.history))
    error = window.errors.history[0]
    assert error.message == "No chat with id missing"
    assert error.hint == "list chats in the GUI or start a new one"


def test_library_context_menu_and_core(
    qtbot: QtBot, window: MainWindow, fake: FakeServices, tmp_path: Path
) -> None:
    pdf = make_pdf(tmp_path / "observatory.pdf", SAMPLE_PAGES)
    ingest(qtbot, window, [pdf])
    rows = window.library_panel.model.rows()
    menu = window.library_panel.build_menu(rows)
    labels = [a.text() for a in menu.actions()]
    assert labels == ["Open", "Rename\u2026", "Re-index", "Remove from library",
                      "Ask about this document only", "Pin as core", "Summarize"]
    menu.actions()[0].trigger()  # Open
    qtbot.waitUntil(lambda: window.viewer.location is not None)
    assert (opened(window).path, window.viewer.page_box.value()) == (str(pdf), 1)
    assert window.viewer.stack.currentWidget() is window.viewer.pdf
    menu.actions()[5].trigger()
    qtbot.waitUntil(lambda: window.core_panel.docs.count() == 1)
    qtbot.waitUntil(lambda: window.library_panel.model.rows()[0].is_core)
    assert "stale" in window.core_panel.state_label.text()
    window.library_panel.filter_box.setText("nothing matches")
    assert window.library_panel.proxy.rowCount() == 0
    window.library_panel.filter_box.setText("OBSERV")
    assert window.library_panel.proxy.rowCount() == 1
    menu.actions()[3].trigger()
    qtbot.waitUntil(lambda: window.library_panel.model.rowCount() == 0)


def test_questions_about_chosen_documents_only(
    qtbot: QtBot, window: MainWindow, fake: FakeServices, tmp_path: Path
) -> None:
    pdfs = [make_pdf(tmp_path / f"{n}.pdf", SAMPLE_PAGES) for n in ("observatory", "annex")]
    ingest(qtbot, window, pdfs)
    qtbot.waitUntil(lambda: window.library_panel.model.rowCount() == 2)
    rows = window.library_panel.model.rows()
    chosen = next(r for r in rows if r.path.endswith("annex.pdf"))
    assert chosen.doc_id is not None
    assert not window.chat_pane.scope_label.isVisible()
    window.library_panel.scope_requested.emit([chosen])
    assert window.chat_pane.scope_label.text() == "Asking about: annex.pdf"
    model = window.library_panel.model
    fonts = {r.path: model.data(model.index(i, 0), Qt.ItemDataRole.FontRole)
             for i, r in enumerate(model.rows())}
    bold = fonts.pop(chosen.path)
    assert isinstance(bold, QFont) and bold.bold() and all(f is None for f in fonts.values())
    assert window.chat_pane.scope_button.isVisible()
    with qtbot.waitSignal(window.chat.answered, timeout=10000):
        window.chat_pane.question.setPlainText("When was the telescope completed?")
        window.chat_pane.ask_button.click()
    assert fake.scopes[-1] == DocScope(only=frozenset({chosen.doc_id}))
    assert item_text(window.sources.topLevelItem(0), 1) == "annex"
    shoot(window, "09-scoped-question")
    window.chat_pane.scope_button.click()
    assert window.chat.scope.whole_library and not window.chat_pane.scope_label.isVisible()
    assert not window.viewer.ask_button.isVisible()
    window.open_row(chosen)  # the viewer's "Ask about this" scopes to the open document
    qtbot.waitUntil(lambda: window.viewer.ask_button.isVisible())
    window.viewer.ask_button.click()
    assert window.chat.scope == DocScope(only=frozenset({chosen.doc_id}))
    window.library.remove([chosen.path])  # a removed document leaves the scope
    qtbot.waitUntil(lambda: window.library_panel.model.rowCount() == 1)
    qtbot.waitUntil(lambda: not window.chat_pane.scope_label.isVisible())
    assert window.chat.scope.whole_library


def test_closing_cancels_running_work(qtbot: QtBot, fake: FakeServices, tmp_path: Path) -> None:
    fake.reply = " ".join(["word"] * 5000)
    fake.token_delay = 0.01
    win = MainWindow(fake, interactive=False)
    qtbot.addWidget(win)
    win.chat.ask("long")
    qtbot.waitUntil(lambda: "word" in win.chat_pane.view.toPlainText())
    win.close()
    assert not win.llm._thread.isRunning()


def test_model_settings_reload_the_engine(
    qtbot: QtBot, window: MainWindow, fake: FakeServices
) -> None:
    dialog = window.open_settings()
    dialog.context_size.setValue(2048)
    dialog.accept()
    qtbot.waitUntil(lambda: fake.engine_resets == ["llm-worker"])  # closed on the LLM thread
    assert fake.settings.llm.context_size == 2048
    qtbot.waitUntil(lambda: not window.llm.busy)  # the engine info was loaded again after it
