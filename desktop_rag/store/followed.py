"""The folders the library follows, and the files the user removed from them.

A folder added to the library is followed: a sync walks it again, indexes new and changed files
and drops the documents whose file is gone. A file the user removes from a followed folder is
remembered, so that a sync does not bring it back; adding the file (or a folder holding it)
again takes it back in. Both lists live in the catalog's database (tables `followed_folders` and
`removed_files`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager

Transaction = Callable[[], AbstractContextManager[sqlite3.Connection]]
Rows = Callable[[str], list[tuple[object, ...]]]


def is_within(path: str, folder: str) -> bool:
    """True when `path` is `folder` or lies anywhere below it."""
    root = folder.rstrip("/\\")
    return path == root or path.startswith((root + "/", root + "\\"))


class FollowedFolders:
    """Reads and writes the two lists through the catalog's connection and transactions."""

    def __init__(self, transaction: Transaction, rows: Rows, now: Callable[[], str]) -> None:
        self._tx = transaction
        self._rows = rows
        self._now = now

    def folders(self) -> list[str]:
        return [str(r[0]) for r in self._rows("SELECT path FROM followed_folders ORDER BY path")]

    def folder_of(self, path: str) -> str | None:
        """The followed folder `path` lies in, if any."""
        return next((f for f in self.folders() if is_within(path, f)), None)

    def follow(self, folders: Iterable[str]) -> None:
        """Follows `folders`; one already inside a followed folder adds nothing, and followed
        folders inside a new one are folded into it."""
        for folder in folders:
            if self.folder_of(folder) is not None:
                continue
            inside = [f for f in self.folders() if is_within(f, folder)]
            with self._tx() as conn:
                conn.executemany("DELETE FROM followed_folders WHERE path = ?",
                                 [(f,) for f in inside])
                conn.execute("INSERT INTO followed_folders VALUES (?, ?)", (folder, self._now()))

    def unfollow_within(self, path: str) -> list[str]:
        """Stops following the folders at or below `path` and forgets the files removed from
        them; returns those folders."""
        gone = [f for f in self.folders() if is_within(f, path)]
        removed = [p for p in self.removed_files() if is_within(p, path)]
        with self._tx() as conn:
            conn.executemany("DELETE FROM followed_folders WHERE path = ?", [(f,) for f in gone])
            conn.executemany("DELETE FROM removed_files WHERE path = ?", [(p,) for p in removed])
        return gone

    def removed_files(self) -> set[str]:
        return {str(r[0]) for r in self._rows("SELECT path FROM removed_files")}

    def remember_removed(self, paths: Sequence[str]) -> None:
        """Remembers the files among `paths` that lie in a followed folder."""
        folders, now = self.folders(), self._now()
        inside = [(p, now) for p in paths if any(is_within(p, f) for f in folders)]
        if inside:
            with self._tx() as conn:
                conn.executemany("INSERT OR REPLACE INTO removed_files VALUES (?, ?)", inside)

    def take_back(self, paths: Sequence[str]) -> None:
        """Forgets the removals at or below `paths` (the user adds them again)."""
        back = [(p,) for p in self.removed_files() if any(is_within(p, n) for n in paths)]
        if back:
            with self._tx() as conn:
                conn.executemany("DELETE FROM removed_files WHERE path = ?", back)
