"""Measures how long the GUI event loop is blocked: a fast timer records late ticks."""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer


class LatencyProbe(QObject):
    """Ticks every `interval_ms`; `max_delay_ms` is the worst lateness seen while running."""

    def __init__(self, interval_ms: int = 10, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.interval_ms = interval_ms
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)
        self._last = 0.0
        self.delays_ms: list[float] = []

    def start(self) -> None:
        self.delays_ms.clear()
        self._last = time.perf_counter()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def resume(self) -> None:
        """Continues after `stop`, keeping the delays measured so far."""
        self._last = time.perf_counter()
        self._timer.start()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.delays_ms.append(max(0.0, (now - self._last) * 1000 - self.interval_ms))
        self._last = now

    @property
    def max_delay_ms(self) -> float:
        return max(self.delays_ms, default=0.0)

    def percentile(self, q: float) -> float:
        if not self.delays_ms:
            return 0.0
        ordered = sorted(self.delays_ms)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
