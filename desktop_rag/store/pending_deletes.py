"""The log beside embedded Chroma: deletes, and writes to the recent collection, that Chroma's
reads hide until they are applied.

Embedded Chroma loads a collection's whole vector index into the process on its first use: a
delete of a 50-page report's 300 vectors took 3.3-3.9 s at a million vectors on this 2-core
machine, nearly all of it that load (bench/bench_chroma_scale.py), against a goal of 2 s to
remove a document. The app's searches read the persisted copy (store/vector_snapshot.py), which
masks deleted rows without Chroma. So a delete is written here (one id per line, synced), and
a write to the recent collection (store/chroma_index.py) as "+id": their copies in the library's
collection are deleted or stale. Every id the log names is hidden in the library's collection,
and an id whose last line is a delete in the recent collection as well, until the rows move in
(`ChromaVectorIndex._settle`): past `MAX_PENDING` lines, so that a read that falls back to
Chroma never over-fetches much and the file stays small. A crash before they are applied loses
nothing: the file is read again, and deleting an id twice is harmless.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

MAX_PENDING = 10_000  # lines kept waiting; past it they are applied now
PREFIX = "desktop_rag.pending-deletes."
WRITTEN = "+"  # a line that notes a write to the recent collection


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
        self._deleted: frozenset[str] = frozenset()
        self._lines = 0

    def ids(self) -> frozenset[str]:
        """Every id the file names: hidden in the library's collection (one stat when nothing
        changed)."""
        self._read()
        return self._ids

    def deleted(self) -> frozenset[str]:
        """The ids whose last line is a delete: hidden in the recent collection too."""
        self._read()
        return self._deleted

    def _read(self) -> None:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            self._seen, self._ids, self._deleted, self._lines = None, frozenset(), frozenset(), 0
            return
        seen = (stat.st_size, stat.st_mtime_ns)
        if seen != self._seen:
            last: dict[str, bool] = {}  # id -> whether its last line is a delete
            lines = [line for line in self.path.read_text(encoding="utf-8").split("\n") if line]
            for line in lines:
                written = line.startswith(WRITTEN)
                last[line[1:] if written else line] = not written
            self._ids = frozenset(last)
            self._deleted = frozenset(i for i, gone in last.items() if gone)
            self._seen, self._lines = seen, len(lines)

    def add(self, ids: Iterable[str], written: bool = False) -> int:
        """Appends `ids`, deleted (or `written` to the recent collection), synced to disk before
        it returns; how many lines the file holds now (an id written and deleted again and
        again is named once, but the file grows)."""
        mark = WRITTEN if written else ""
        lines = "".join(f"{mark}{i}\n" for i in ids)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(lines)
            out.flush()
            os.fsync(out.fileno())
        self._read()
        return self._lines

    def clear(self) -> None:
        """After Chroma applied every id read by `ids()`."""
        self.path.unlink(missing_ok=True)
        self._seen, self._ids, self._deleted, self._lines = None, frozenset(), frozenset(), 0


def deferrable(ids: Iterable[str]) -> bool:
    """Whether `ids` can be kept one per line (a chunk id never holds a line break, nor starts
    with the mark of a write)."""
    return not any("\n" in i or "\r" in i or not i or i.startswith(WRITTEN) for i in ids)
