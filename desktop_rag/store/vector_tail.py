"""Rows added to the vector copy go to a tail file beside it, so that adding a document does not
write the whole copy again.

Bringing the copy up to date from a writer's journal rewrote every row (vector_journal.applied):
5.1 s of the 20.9 s it took to add a 50-page report to a million-chunk library, where the same
report takes 14.3 s in an empty one. A build may now hold `tail.npy` after `vectors.npy`: the
new build hard-links the base (and its inverted lists), masks the rows the journal removed or
replaced (document code -1), and writes only the tail (the old tail's rows and the new ones)
with the ids and document codes. Searches read the tail as rows past the lists, scored exactly.
When the tail grows past `MAX_TAIL` (a share of the base, at least `MIN_TAIL` rows) the next
change writes one file again (vector_journal.applied, which puts the tail's rows in their
lists).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from desktop_rag.store.vector_builds import extended_codes, link_or_copy, new_build
from desktop_rag.store.vector_lists import FILE as LISTS_FILE

if TYPE_CHECKING:
    from desktop_rag.store.vector_copy import Snapshot
    from desktop_rag.store.vector_journal import Journal

TAIL = "tail.npy"
MAX_TAIL = 0.05  # of the base's rows
MIN_TAIL = 20_000


class Stacked:
    """The base rows then the tail rows, read as one matrix (both memory-mapped): the few
    operations the copy uses on its vectors."""

    def __init__(self, base: npt.NDArray[np.float32], tail: npt.NDArray[np.float32]) -> None:
        self.base, self.tail = base, tail
        self.shape = (len(base) + len(tail), base.shape[1] if len(base) else tail.shape[1])

    def __len__(self) -> int:
        return self.shape[0]

    def __matmul__(self, query: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        return np.concatenate([self.base @ query, self.tail @ query])

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, slice):
            lo, hi, step = key.indices(len(self))
            if step == 1 and hi <= len(self.base):
                return self.base[lo:hi]
            rows = np.arange(lo, hi, step)
        elif isinstance(key, (int, np.integer)):
            row = int(key) + (len(self) if key < 0 else 0)
            return self.base[row] if row < len(self.base) else self.tail[row - len(self.base)]
        else:
            rows = np.asarray(key)
        out = np.empty((len(rows), self.shape[1]), np.float32)
        in_base = rows < len(self.base)
        out[in_base] = self.base[rows[in_base]]
        out[~in_base] = self.tail[rows[~in_base] - len(self.base)]
        return out


def tail_of(vectors: Any) -> int:
    return len(vectors.tail) if isinstance(vectors, Stacked) else 0


def fits(old: Snapshot, added: int) -> bool:
    """Whether `added` rows can go to the tail (else the copy is written as one file again)."""
    base = len(old.vectors) - tail_of(old.vectors)
    return old.build is not None and tail_of(old.vectors) + added <= max(MIN_TAIL, MAX_TAIL * base)


def appended_build(folder: Path, old: Snapshot, journal: Journal) -> tuple[str, list[str], int]:
    """A new build: the old base and lists linked, the journal's removed and replaced rows
    masked, its vectors appended to the tail; returns its name, the document of each code and
    the live rows."""
    if old.build is None:
        raise ValueError("the copy's build folder is unknown")
    build = new_build(folder)
    for name in ("vectors.npy", LISTS_FILE):
        if (old.build / name).exists():
            link_or_copy(old.build / name, folder / build / name)
    gone = journal.deleted | journal.upserts.keys()
    masked = np.fromiter((cid in gone for cid in old.ids), np.bool_, len(old.ids))
    added = list(journal.upserts.items())
    dim = old.vectors.shape[1]
    fresh = np.asarray([row for _, (row, _) in added], np.float32).reshape(len(added), dim)
    old_tail = old.vectors.tail if isinstance(old.vectors, Stacked) else np.zeros((0, dim))
    np.save(folder / build / TAIL, np.concatenate([np.asarray(old_tail, np.float32), fresh]))
    docs = sorted(old.doc_codes, key=old.doc_codes.__getitem__)
    names, new_codes = extended_codes(docs, [doc for _, (_, doc) in added])
    doc_of_row = np.concatenate([np.where(masked, -1, old.doc_of_row),
                                 np.asarray(new_codes, np.int32)]).astype(np.int32)  # fmt: skip
    np.save(folder / build / "docs.npy", doc_of_row)
    ids = old.ids + [cid for cid, _ in added]
    (folder / build / "ids.json").write_text(json.dumps(ids), encoding="utf-8")
    return build, names, int((doc_of_row >= 0).sum())
