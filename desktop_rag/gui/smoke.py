"""`--smoke-test`: ingest the bundled sample, ask, click the first citation, screenshot.

Every step is checked; the exit code is 0 only if all of them worked. Used by the packaging
issue to check a frozen build, so it needs nothing but the installed app and its models.
"""

from __future__ import annotations

import logging
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QThread, QUrl
from PySide6.QtWidgets import QApplication

from desktop_rag.domain import Answer, IngestReport
from desktop_rag.gui.bundled import SAMPLE
from desktop_rag.gui.launch import open_services
from desktop_rag.gui.main_window import MainWindow
from desktop_rag.gui.probe import LatencyProbe

log = logging.getLogger(__name__)
QUESTION = "When was the observatory's main telescope completed?"
SCREENSHOT = "smoke-test.png"


class SmokeFailure(Exception):
    pass


def wait_until(check: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise SmokeFailure(f"timed out after {timeout_s:.0f} s waiting for {what}")
        QApplication.processEvents()
        QThread.msleep(5)


def run_smoke(data_dir: str | None, profile: str) -> int:
    folder = Path(data_dir or tempfile.mkdtemp(prefix="desktop-rag-smoke-"))
    services = open_services(str(folder), profile)
    window = MainWindow(services, interactive=False)
    window.show()
    probe = LatencyProbe(parent=window)
    probe.start()
    try:
        steps(window, folder)
        log.info("smoke test passed; worst event-loop delay %.0f ms", probe.max_delay_ms)
        return 0
    except SmokeFailure as exc:
        log.error("smoke test failed: %s", exc)
        return 1
    finally:
        window.shutdown()
        window.close()
        services.close()


def steps(window: MainWindow, folder: Path) -> None:
    window.start()
    _ingest(window)
    answer = _ask(window)
    _open_first_citation(window, answer)
    path = folder / SCREENSHOT
    if not window.grab().save(str(path)):
        raise SmokeFailure(f"could not save the screenshot to {path}")
    log.info("screenshot saved to %s", path)


def _ingest(window: MainWindow) -> None:
    reports: list[IngestReport] = []
    window.library.ingest_finished.connect(reports.append)
    window.library.ingest([str(SAMPLE)])
    wait_until(lambda: bool(reports) or bool(window.errors.history), 600, "ingestion")
    _no_errors(window)
    if reports[0].failed:
        raise SmokeFailure(f"the sample failed to ingest: {reports[0].outcomes}")
    wait_until(lambda: any(Path(d.path) == SAMPLE for d in window.library.documents), 30,
               "the sample to appear in the library")


def _ask(window: MainWindow) -> Answer:
    answers: list[Answer] = []
    tokens: list[int] = []
    window.chat.answered.connect(answers.append)
    window.chat_pane.view.textChanged.connect(lambda: tokens.append(1))
    window.chat.ask(QUESTION)
    wait_until(lambda: bool(answers) or bool(window.errors.history), 600, "the answer")
    _no_errors(window)
    answer = answers[0]
    if not answer.answer.strip() or not answer.passages:
        sources = len(answer.passages)
        raise SmokeFailure(f"no usable answer: {answer.answer!r} with {sources} sources")
    log.info("answer: %r (%d citations)", answer.answer, len(answer.citations))
    return answer


def _open_first_citation(window: MainWindow, answer: Answer) -> None:
    """Clicks the first citation link; an answer without markers (the tiny model rarely writes
    them) opens its first source instead, as a click in the Sources panel would."""
    if answer.citations:
        turn = len(window.chat_pane.turns) - 1
        chunk = answer.citations[0].chunk
        kind = "inferred" if answer.citations[0].inferred else "marked"
        log.info("clicking citation [%d] (%s): %s page %s", answer.citations[0].n, kind,
                 chunk.title, chunk.page)
        window.chat_pane.view.anchorClicked.emit(QUrl(f"cite:{turn}:{answer.citations[0].n}"))
    else:
        log.warning("the answer has no citation markers; opening its first source instead")
        chunk = answer.passages[0].chunk
        window.sources.itemClicked.emit(window.sources.topLevelItem(0), 0)
    wait_until(lambda: window.viewer.location is not None or bool(window.errors.history), 60,
               "the viewer to open the passage")
    _no_errors(window)
    _check_viewer(window, chunk.path, chunk.page)


def _check_viewer(window: MainWindow, path: str, page: int | None) -> None:
    location = window.viewer.location
    if location is None or location.path != path:
        raise SmokeFailure("the viewer did not open the cited document")
    if location.text is None:
        shown = window.viewer.page_box.value()
        if shown != page:
            raise SmokeFailure(f"the viewer shows page {shown}, not {page}")
        if not window.viewer.pdf.highlight_rects(page):
            raise SmokeFailure("the cited passage is not highlighted")
    QApplication.processEvents()
    QThread.msleep(300)  # let QtPdf render the page before the screenshot
    QApplication.processEvents()


def _no_errors(window: MainWindow) -> None:
    if window.errors.history:
        error = window.errors.history[0]
        raise SmokeFailure(f"{error.message} ({error.hint})")
