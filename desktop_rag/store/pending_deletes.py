"""Deletes from embedded Chroma, kept on disk and applied at its next write.

Embedded Chroma loads a collection's whole vector index into the process for any write: a
delete of a 50-page report's 300 vectors took 3.3-3.9 s at a million vectors on this 2-core
machine, nearly all of it that load (bench/bench_chroma_scale.py), against a goal of 2 s to
remove a document. The app's searches read the persisted copy (store/vector_snapshot.py), which
masks deleted rows without Chroma. So a delete is written here (one id per line, synced) and
Chroma hides those ids from every read until the next upsert, which loads the index anyway and
applies them first; past `MAX_PENDING` ids they are applied at once, so that a read that falls
back to Chroma never over-fetches much. A crash before they are applied loses nothing: the file
is read again, and deleting an id twice is harmless.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

MAX_PENDING = 10_000  # ids kept waiting; past it they are applied now
PREFIX = "desktop_rag.pending-deletes."


def pending_file(chroma_dir: Path, collection: str) -> Path:
    """Where the deletes waiting for `collection` are kept (one file per collection)."""
    return chroma_dir / f"{PREFIX}{collection}"


class PendingDeletes:
    """The ids deleted from one collection and not yet from Chroma itself. Read again whenever
    the file changed (another process of the library may have added to it or applied it)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._seen: tuple[int, int] | None = None
        self._ids: frozenset[str] = frozenset()

    def ids(self) -> frozenset[str]:
        """The ids waiting (one stat when nothing changed)."""
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            self._seen, self._ids = None, frozenset()
            return self._ids
        seen = (stat.st_size, stat.st_mtime_ns)
        if seen != self._seen:
            text = self.path.read_text(encoding="utf-8")
            self._ids = frozenset(line for line in text.split("\n") if line)
            self._seen = seen
        return self._ids

    def add(self, ids: Iterable[str]) -> int:
        """Appends `ids` (synced to disk before it returns); how many wait now."""
        lines = "".join(f"{i}\n" for i in ids)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(lines)
            out.flush()
            os.fsync(out.fileno())
        return len(self.ids())

    def clear(self) -> None:
        """After Chroma applied every id read by `ids()`."""
        self.path.unlink(missing_ok=True)
        self._seen, self._ids = None, frozenset()


def deferrable(ids: Iterable[str]) -> bool:
    """Whether `ids` can be kept one per line (a chunk id never holds a line break)."""
    return not any("\n" in i or "\r" in i or not i for i in ids)
