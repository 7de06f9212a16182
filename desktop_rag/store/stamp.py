"""A write stamp: a tiny file that each writing process replaces after changing the vector store,
so that other processes notice the change with one stat and reopen their in-memory view."""

from __future__ import annotations

import logging
import os
import uuid
from pathlib import Path

log = logging.getLogger(__name__)

STAMP_NAME = "desktop_rag.write-stamp"


class WriteStamp:
    """`mark()` after a write; `foreign_write()` says whether another process wrote since."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._token = f"{os.getpid()}-{uuid.uuid4().hex}"
        self._writes = 0
        self._seen = self._identity()

    def _identity(self) -> tuple[int, int] | None:
        """(inode, mtime): `mark` replaces the file, so every mark gives a new identity."""
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return None
        return stat.st_ino, stat.st_mtime_ns

    def mark(self) -> None:
        self._writes += 1
        temp = self.path.with_name(f".{self.path.name}.{self._token}")
        try:
            temp.write_text(f"{self._token} {self._writes}\n", encoding="ascii")
            os.replace(temp, self.path)
        except OSError:  # a missed mark only delays what other processes see
            log.warning("could not update %s", self.path, exc_info=True)
            return
        self._seen = self._identity()

    def foreign_write(self) -> bool:
        identity = self._identity()
        if identity == self._seen:
            return False
        self._seen = identity
        return self._writer() != self._token

    def _writer(self) -> str:
        try:
            return self.path.read_text(encoding="ascii").split(" ", 1)[0]
        except (OSError, UnicodeDecodeError):
            return ""
