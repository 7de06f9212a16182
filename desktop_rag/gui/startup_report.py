"""Start-up timings for the cold-start benchmark (bench/bench_cold.py): with the environment
variable DESKTOP_RAG_STARTUP_REPORT=FILE the window writes, as JSON, the seconds from launch to
its first paint and to ready (the warm-up done: the first search waits for nothing), then quits.
Launch is DESKTOP_RAG_LAUNCHED_AT (a time.time() the launcher sets), else this process's start."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow

REPORT_VARIABLE = "DESKTOP_RAG_STARTUP_REPORT"


def _process_start() -> float:
    """This process's start as a time.time() (Linux: from /proc; else now)."""
    try:
        ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return time.time() - uptime + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return time.time()


class StartupReport(QObject):
    """Notes the window's first paint and its `warmed` signal, writes the report, quits."""

    def __init__(self, path: Path, window: QMainWindow) -> None:
        super().__init__(window)
        launched = os.environ.get("DESKTOP_RAG_LAUNCHED_AT")
        self._launched = float(launched) if launched else _process_start()
        self._path = path
        self._times: dict[str, float] = {}
        window.installEventFilter(self)
        window.warmed.connect(self._ready)  # type: ignore[attr-defined]

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and "painted_s" not in self._times:
            self._times["painted_s"] = round(time.time() - self._launched, 3)
        return False

    def _ready(self) -> None:
        self._times["ready_s"] = round(time.time() - self._launched, 3)
        self._path.write_text(json.dumps(self._times), encoding="utf-8")
        QTimer.singleShot(0, QApplication.quit)


def install_startup_report(window: QMainWindow) -> StartupReport | None:
    path = os.environ.get(REPORT_VARIABLE)
    return StartupReport(Path(path), window) if path else None
