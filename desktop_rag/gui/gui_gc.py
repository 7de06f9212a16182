"""Python's cyclic garbage collector, run in the GUI thread while a window is open.

The collector runs in whichever thread happens to allocate when a threshold is passed: the
ingestion thread chunking a page, the model's thread streaming tokens. A Qt object caught in a
reference cycle (a window, a widget, a timer with a Python slot) is then destroyed in that
thread, and Qt aborts the process: "Fatal Python error: Aborted", "Garbage-collecting" in the
chunker's thread, during the GUI tests (the second test's window had become garbage while the
third ingested). So while a window is open the automatic collector is off, and a timer in the
GUI thread collects the generations whose thresholds have been passed, as the automatic
collector would, every `INTERVAL_MS`; when the last window closes the automatic collector is
back on.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QTimer

INTERVAL_MS = 500


class _Collector:
    """The timer and how many windows hold it."""

    def __init__(self) -> None:
        self.holders = 0
        self.was_enabled = True
        self.timer: QTimer | None = None

    def hold(self) -> None:
        if self.holders == 0:
            self.was_enabled = gc.isenabled()
            gc.disable()
            self.timer = QTimer(QCoreApplication.instance())
            self.timer.setInterval(INTERVAL_MS)
            self.timer.timeout.connect(collect_due)
            self.timer.start()
        self.holders += 1

    def release(self) -> None:
        if self.holders == 0:
            return
        self.holders -= 1
        if self.holders == 0:
            if self.timer is not None:
                self.timer.stop()
                self.timer.deleteLater()
                self.timer = None
            collect_due()
            if self.was_enabled:
                gc.enable()


_COLLECTOR = _Collector()


def collect_due() -> int:
    """Collects the oldest generation whose threshold has been passed (none: 0 objects)."""
    counts, thresholds = gc.get_count(), gc.get_threshold()
    if counts[0] <= thresholds[0]:
        return 0
    generation = 2 if counts[2] > thresholds[2] else 1 if counts[1] > thresholds[1] else 0
    return gc.collect(generation)


def hold_gui_thread_gc() -> None:
    """From a window's constructor (in the GUI thread, a QApplication running)."""
    _COLLECTOR.hold()


def release_gui_thread_gc() -> None:
    """When that window shuts down; the last one turns the automatic collector back on."""
    _COLLECTOR.release()


def holders() -> int:
    return _COLLECTOR.holders
