"""The vector copy's files and its search: a build folder of `vectors.npy` (float32, L2-normalised
rows, memory-mapped when read), `docs.npy` (a document code per row, -1 for a row removed since),
`ids.json` and, past vector_lists.LIST_MIN_ROWS rows, `lists.npz` (inverted lists: the rows are
written grouped by list). `current.json` (written last, atomically) names the build in use; a new
build gets a new folder and the old one is removed after the pointer moves (a reader that mapped
it keeps its open file). When the copy is current and how it is kept so: vector_snapshot."""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from desktop_rag.domain import EVERYWHERE, DocScope
from desktop_rag.domain.protocols import Vector
from desktop_rag.store import vector_lists
from desktop_rag.store.scope_rows import allowed_rows
from desktop_rag.store.vector_lists import Lists
from desktop_rag.store.vector_tail import TAIL, Stacked

Matrix = npt.NDArray[np.float32] | Stacked

POINTER = "current.json"
FORMAT = 1
_NARROW = 0.25  # a scope allowing at most this share of the rows scores only its own rows


class VectorSource(Protocol):
    """What the copy is read from and what it stands in for: the Chroma index."""

    collection_name: str

    def upsert(self, ids: Sequence[str], embeddings: Vector, doc_ids: Sequence[str]) -> None: ...

    def delete(self, ids: Sequence[str]) -> None: ...

    def query(
        self, embedding: Vector, k: int, scope: DocScope = EVERYWHERE
    ) -> list[tuple[str, float]]: ...

    def get_embeddings(self, ids: Sequence[str]) -> dict[str, Vector]: ...

    def all_ids(self) -> set[str]: ...

    def count(self) -> int: ...

    def export_vectors(self) -> Iterator[tuple[list[str], Vector, list[str]]]: ...


def read_stamp(stamp_file: Path) -> str:
    """The write stamp's content: a new value after every write ('' before the first)."""
    try:
        return stamp_file.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return ""


@dataclass(frozen=True, slots=True)
class Snapshot:
    stamp: str
    collection: str
    ids: list[str]
    vectors: Matrix  # the base rows, then the tail's (store/vector_tail.py)
    doc_of_row: npt.NDArray[np.int32]  # -1: a row removed since the vectors were written
    doc_codes: dict[str, int]
    build: Path | None = None
    live: npt.NDArray[np.bool_] | None = None  # None: every row is live
    lists: Lists | None = None  # None: searched exactly (store/vector_lists.py)

    def query(self, embedding: Vector, k: int, scope: DocScope) -> list[tuple[str, float]]:
        if scope.empty or k <= 0 or not self.ids:
            return []
        query = np.asarray(embedding, dtype=np.float32)
        allowed = allowed_rows(self.doc_of_row, self.doc_codes, scope)
        if self.live is not None:
            allowed = self.live if allowed is None else allowed & self.live
        rows, sims = self._scored(query, allowed, k)
        return [(self.ids[i], s) for i, s in _top(rows, sims, k)]

    def _scored(
        self, query: npt.NDArray[np.float32], allowed: npt.NDArray[np.bool_] | None, k: int
    ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float32]]:
        """Candidate rows and their scores: a narrow scope's own rows (exact), else the nearest
        lists' rows when the copy is listed, else every allowed row (exact)."""
        if allowed is not None and allowed.sum() <= _NARROW * len(self.ids):
            rows = np.flatnonzero(allowed)
            return rows, np.asarray(self.vectors[rows]) @ query
        if self.lists is not None:
            rows, sims = self.lists.scored(self.vectors, query)
            if allowed is not None:
                inside = allowed[rows]
                rows, sims = rows[inside], sims[inside]
            if len(rows) >= k:
                return rows, sims
        sims = self.vectors @ query
        rows = np.arange(len(self.ids)) if allowed is None else np.flatnonzero(allowed)
        return rows, sims[rows]

    def row_of(self) -> dict[str, int]:
        live = self.live
        return {cid: i for i, cid in enumerate(self.ids) if live is None or live[i]}

    def live_ids(self) -> set[str]:
        return set(self.ids) if self.live is None else set(self.row_of())

    def size(self) -> int:
        return len(self.ids) if self.live is None else int(self.live.sum())


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def _top(
    rows: npt.NDArray[np.intp], scores: npt.NDArray[np.float32], k: int
) -> list[tuple[int, float]]:
    """The `k` best rows with their scores, best first (ties by row order)."""
    if len(rows) > k:
        keep = np.argpartition(-scores, k - 1)[:k]
        rows, scores = rows[keep], scores[keep]
    order = np.lexsort((rows, -scores))
    return [(int(rows[i]), float(scores[i])) for i in order]


def load_snapshot(folder: Path) -> Snapshot | None:
    """The copy the pointer names, memory-mapped (None: none, or unreadable)."""
    try:
        pointer = json.loads((folder / POINTER).read_text(encoding="utf-8"))
        build = folder / str(pointer["build"])
        ids = json.loads((build / "ids.json").read_text(encoding="utf-8"))
        base = np.load(build / "vectors.npy", mmap_mode="r")
        tail = build / TAIL
        vectors: Matrix = Stacked(base, np.load(tail, mmap_mode="r")) if tail.exists() else base
        doc_of_row = np.load(build / "docs.npy")
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if pointer.get("format") != FORMAT or len(ids) != len(vectors) != len(doc_of_row):
        return None
    codes = {str(d): i for i, d in enumerate(pointer.get("docs", []))}
    live = doc_of_row >= 0
    return Snapshot(str(pointer["stamp"]), str(pointer["collection"]), ids, vectors, doc_of_row,
                    codes, build, None if live.all() else live,
                    vector_lists.load(build, len(ids)))  # fmt: skip


def write_snapshot(folder: Path, source: VectorSource, stamp: str) -> int:
    """Copies `source` into a new build and points at it; returns the rows written. `stamp` must
    be read before the vectors, so that a write during the copy leaves it stale, never wrong."""
    ids: list[str] = []
    parts: list[Vector] = []
    docs: list[str] = []
    for page_ids, page_vectors, page_docs in source.export_vectors():
        ids += page_ids
        parts.append(np.asarray(page_vectors, dtype=np.float32).reshape(len(page_ids), -1))
        docs += page_docs
    codes: dict[str, int] = {}
    doc_of_row = np.fromiter((codes.setdefault(d, len(codes)) for d in docs), np.int32, len(docs))
    vectors = np.concatenate(parts) if parts else np.zeros((0, 0), dtype=np.float32)
    build = f"build-{uuid.uuid4().hex[:12]}"
    order, lists = None, None
    if len(ids) >= vector_lists.LIST_MIN_ROWS:
        order, lists = _listed(vectors)
        ids, doc_of_row = [ids[i] for i in order], doc_of_row[order]
    _write_build(folder / build, ids, vectors, doc_of_row, order)
    if lists is not None:
        vector_lists.save(folder / build, lists)
    _publish(folder, build, stamp, source.collection_name, list(codes))
    return len(ids)


def _listed(vectors: npt.NDArray[np.float32]) -> tuple[npt.NDArray[np.intp], Lists]:
    """The row order that groups the copy by nearest centroid, and the lists that say where."""
    centroids = vector_lists.train(vectors, vector_lists.list_count(len(vectors)))
    order, offsets = vector_lists.grouped(vector_lists.assign(vectors, centroids), len(centroids))
    return order, Lists(centroids, offsets)


def _publish(folder: Path, build: str, stamp: str, collection: str, docs: list[str]) -> None:
    """Points at `build` (atomically) and removes the other builds."""
    pointer = {"format": FORMAT, "build": build, "stamp": stamp, "collection": collection,
               "docs": docs}  # fmt: skip
    temp = folder / f".{POINTER}.{build}"
    temp.write_text(json.dumps(pointer), encoding="utf-8")
    temp.replace(folder / POINTER)
    _remove_other_builds(folder, build)


def _write_build(
    build: Path, ids: list[str], vectors: npt.NDArray[np.float32],
    doc_of_row: npt.NDArray[np.int32], order: npt.NDArray[np.intp] | None = None,
) -> None:
    """Writes a build; with `order`, row i of its vectors is `vectors[order[i]]`, copied in
    blocks (a second copy of a million rows would be another 1.5 GB in memory)."""
    build.mkdir(parents=True)
    if order is None:
        np.save(build / "vectors.npy", vectors)
    else:
        out = np.lib.format.open_memmap(build / "vectors.npy", "w+", np.float32, vectors.shape)
        for lo in range(0, len(order), 65_536):
            out[lo : lo + 65_536] = vectors[order[lo : lo + 65_536]]
        out.flush()
        del out
    np.save(build / "docs.npy", doc_of_row)
    (build / "ids.json").write_text(json.dumps(ids), encoding="utf-8")


def _remove_other_builds(folder: Path, keep: str) -> None:
    for other in folder.glob("build-*"):
        if other.name != keep:
            shutil.rmtree(other, ignore_errors=True)
