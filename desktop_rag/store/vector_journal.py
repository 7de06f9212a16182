"""What this process wrote to the vector store since the persisted copy was current, so that the
copy is brought up to date from itself and those writes instead of from all of Chroma.

Rewriting the copy from Chroma reads every vector back (paged `get` calls): 10.5 s to remove one
document from a 100,000-chunk library on this 2-core machine, most of it that export, and it
grows with the library. Rows kept from the old copy plus the journal's vectors give the same
copy (Chroma holds exactly those writes on top of what the copy held), written in blocks from
the memory-mapped old one.

The journal is only trusted when nothing else can have written: the copy's stamp was the stamp
when the journal started, and the stamp now is the one this process's own last write left
(store/stamp.py: every write of every process replaces it). Otherwise the copy is exported
from Chroma as before.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from desktop_rag.domain.protocols import Vector
from desktop_rag.store.vector_builds import extended_codes, link_or_copy, new_build
from desktop_rag.store.vector_lists import FILE as LISTS_FILE
from desktop_rag.store.vector_lists import Lists, regrouped
from desktop_rag.store.vector_lists import save as save_lists
from desktop_rag.store.vector_tail import TAIL

if TYPE_CHECKING:
    from desktop_rag.store.vector_copy import Snapshot

_BLOCK = 65_536  # rows copied at a time from the old copy
MAX_ROWS = 50_000  # vectors a journal holds in memory (75 MiB at 384 dims); past it, Chroma


@dataclass(slots=True)
class Journal:
    base_stamp: str  # the stamp before this process's first write (the copy must have it)
    last_stamp: str = ""  # the stamp after its latest write (the store must still have it)
    upserts: dict[str, tuple[npt.NDArray[np.float32], str]] = field(default_factory=dict)
    deleted: set[str] = field(default_factory=set)
    overflowed: bool = False  # more rows than MAX_ROWS: the copy is exported from Chroma

    def upsert(self, ids: Sequence[str], embeddings: Vector, doc_ids: Sequence[str]) -> None:
        if self.overflowed or len(self.upserts) + len(ids) > MAX_ROWS:
            self.overflowed = True
            self.upserts.clear()
            return
        rows = np.asarray(embeddings, dtype=np.float32).reshape(len(ids), -1)
        for cid, row, doc in zip(ids, rows, doc_ids, strict=True):
            self.upserts[cid] = (row, doc)
            self.deleted.discard(cid)

    def delete(self, ids: Sequence[str]) -> None:
        for cid in ids:
            self.upserts.pop(cid, None)
            self.deleted.add(cid)


def applied(
    ids: Sequence[str], vectors: Any, doc_of_row: npt.NDArray[np.int32],
    docs: Sequence[str], journal: Journal, target: Path, lists: Lists | None = None,
) -> tuple[list[str], list[str], npt.NDArray[np.int32], Lists | None]:
    """Writes target/vectors.npy as the old copy with the journal applied; returns the new ids,
    the document of each code, the document code of each row and the new copy's lists (a
    listed copy stays listed: its kept rows keep their lists, added rows join their nearest)."""
    gone = journal.deleted | journal.upserts.keys()
    keep = np.fromiter((cid not in gone for cid in ids), np.bool_, len(ids))
    keep &= np.asarray(doc_of_row) >= 0  # rows a removal masked earlier (vector_snapshot)
    kept = np.flatnonzero(keep)
    added = list(journal.upserts.items())
    dim = vectors.shape[1] if len(ids) else (len(added[0][1][0]) if added else 0)
    fresh = np.asarray([row for _, (row, _) in added], np.float32).reshape(len(added), dim)
    if lists is not None:
        order, lists = regrouped(lists, kept, fresh, vectors)
    else:
        order = np.arange(len(kept) + len(added))
    _write_rows(target / "vectors.npy", vectors, kept, fresh, order)
    names, new_codes = extended_codes(docs, [doc for _, (_, doc) in added])
    doc_rows = np.concatenate([np.asarray(doc_of_row)[kept], np.asarray(new_codes, np.int32)])
    all_ids = [ids[int(i)] for i in kept] + [cid for cid, _ in added]
    new_ids = [all_ids[i] for i in order]
    return new_ids, names, doc_rows[order].astype(np.int32), lists


def _write_rows(
    path: Path, old: Any, kept: npt.NDArray[np.intp],
    fresh: npt.NDArray[np.float32], order: npt.NDArray[np.intp],
) -> None:
    """Row i of the new file is kept row order[i] (or fresh row order[i] - len(kept)), copied in
    blocks from the memory-mapped old copy."""
    out = np.lib.format.open_memmap(path, "w+", np.float32, (len(order), fresh.shape[1]))
    for lo in range(0, len(order), _BLOCK):
        part = order[lo : lo + _BLOCK]
        from_old = part < len(kept)
        block = np.empty((len(part), fresh.shape[1]), np.float32)
        block[from_old] = old[kept[part[from_old]]]
        block[~from_old] = fresh[part[~from_old] - len(kept)]
        out[lo : lo + len(part)] = block
    out.flush()
    del out


def applied_build(folder: Path, old: Snapshot, journal: Journal) -> tuple[str, list[str], int]:
    """A new build folder: the rows of `old` the journal did not replace or delete, then its
    vectors; returns its name, the document of each code, and the rows written."""
    build = new_build(folder)
    docs = sorted(old.doc_codes, key=old.doc_codes.__getitem__)
    ids, names, doc_of_row, lists = applied(old.ids, old.vectors, old.doc_of_row, docs, journal,
                                            folder / build, old.lists)  # fmt: skip
    np.save(folder / build / "docs.npy", doc_of_row)
    (folder / build / "ids.json").write_text(json.dumps(ids), encoding="utf-8")
    if lists is not None:
        save_lists(folder / build, lists)
    return build, names, len(ids)


def masked_build(folder: Path, old: Snapshot, deleted: set[str]) -> tuple[str, list[str], int]:
    """A new build for removals alone: the same vectors and ids (hard links: nothing copied,
    whatever the library's size), the removed rows' document code -1 (vector_snapshot skips
    them); returns its name, the document of each code, and the live rows."""
    if old.build is None:
        raise ValueError("the copy's build folder is unknown")
    build = new_build(folder)
    for name in ("vectors.npy", "ids.json", LISTS_FILE, TAIL):
        if (old.build / name).exists():
            link_or_copy(old.build / name, folder / build / name)
    gone = np.fromiter((cid in deleted for cid in old.ids), np.bool_, len(old.ids))
    doc_of_row = np.where(gone, -1, old.doc_of_row).astype(np.int32)
    np.save(folder / build / "docs.npy", doc_of_row)
    docs = sorted(old.doc_codes, key=old.doc_codes.__getitem__)
    return build, docs, int((doc_of_row >= 0).sum())
