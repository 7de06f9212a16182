"""Serializes writers of one library with an advisory lock file (readers never take it)."""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from types import TracebackType

from desktop_rag.domain.errors import LibraryInUseError

log = logging.getLogger(__name__)

try:  # POSIX
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)

except ImportError:  # pragma: no cover - Windows
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]


class WriterLock:
    """`with WriterLock(path):` holds the library's write lock or raises LibraryInUseError.

    Re-entrant within one thread (nested `with` blocks only count), so a service method that
    holds the lock can call another that takes it too. Threads of one process wait for each
    other (a pin made while a sync writes waits for the sync): only another process is refused.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._depth = 0
        self._threads = threading.RLock()  # orders this process's writers; the file, processes

    def acquire(self) -> None:
        self._threads.acquire()
        if self._depth == 0:
            try:
                self._fd = self._lock_file()
            except BaseException:
                self._threads.release()
                raise
        self._depth += 1

    def _lock_file(self) -> int:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        if not _try_lock(fd):
            os.close(fd)
            raise LibraryInUseError(
                "Library in use by another process",
                f"another desktop-rag is ingesting or removing documents (lock: {self.path}); "
                "wait for it to finish, then try again",
            )
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        return fd

    def release(self) -> None:
        """Called by the thread that holds the lock, once per acquire."""
        if self._depth == 0 or self._fd is None:
            return
        self._depth -= 1
        if self._depth == 0:
            _unlock(self._fd)
            os.close(self._fd)
            self._fd = None
        self._threads.release()

    @property
    def held(self) -> bool:
        return self._depth > 0

    def __enter__(self) -> WriterLock:
        self.acquire()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
