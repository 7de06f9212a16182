"""Watches the followed folders while the app is open: a file added, renamed or deleted in one
of them asks for a sync once the folder has been quiet for a moment (a copy of many files ends
in one sync, not one per file)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

log = logging.getLogger(__name__)
SETTLE_MS = 1500


class FolderWatcher(QObject):
    settled = Signal()  # something changed in a watched folder, and has been quiet since

    def __init__(self, parent: QObject | None = None, settle_ms: int = SETTLE_MS) -> None:
        super().__init__(parent)
        self._watcher = QFileSystemWatcher(self)
        self._watcher.directoryChanged.connect(self._changed)
        self._quiet = QTimer(self, singleShot=True, interval=settle_ms)
        self._quiet.timeout.connect(self.settled)

    def watch(self, folders: Sequence[str]) -> None:
        """Watches exactly `folders` from now on."""
        wanted = set(folders)
        current = set(self._watcher.directories())
        if current - wanted:
            self._watcher.removePaths(sorted(current - wanted))
        if wanted - current:
            refused = self._watcher.addPaths(sorted(wanted - current))
            if refused:  # e.g. the system's limit of watches is reached
                log.warning("cannot watch %d folders, e.g. %s", len(refused), refused[0])

    def poke(self) -> None:
        """Asks for a sync after the quiet interval, as a change would (a file still being
        written when the last sync ran)."""
        self._quiet.start()

    def watched(self) -> Sequence[str]:
        return sorted(self._watcher.directories())

    def _changed(self, path: str) -> None:
        log.debug("change in %s", path)
        self._quiet.start()
