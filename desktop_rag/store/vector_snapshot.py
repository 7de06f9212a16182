"""A persisted copy of the vector collection, searched with numpy while it is current, so that a
process that only reads (a CLI `search` or `ask`) never imports or opens Chroma.

Opening embedded Chroma costs 2.7 s on this project's 2-core machine (1.2 s of imports, then the
client), more than everything else a cold `search` does. The copy is a float32 matrix (memory-
mapped, L2-normalised rows), the chunk ids and a document code per row, written after a process
that wrote vectors (or found the copy stale) closes the index. It is current while the vector
store's write stamp (store/stamp.py; replaced by every write of every process) still reads as it
did when the copy was read, and the copy's collection is still the active one (an embedder switch
moves the library to another collection); otherwise reads go to Chroma. Searches
over the copy are exact (brute force: 37,000 rows x 384 dims in a few ms) up to 150,000 rows;
past that the copy is grouped into inverted lists (store/vector_lists.py) and a search reads the
nearest fifth of them (recall@10 0.997-0.999 at a million rows), and a search scoped to a few
documents still scores exactly their rows. Writes always go to Chroma.

Layout: `<folder>/current.json` (written last, atomically) names a build folder holding
`vectors.npy`, `docs.npy` and `ids.json`; a new build gets a new folder and the old one is removed
after the pointer moves (a reader that mapped it keeps its open file).
"""

from __future__ import annotations

import json
import logging
import shutil
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from desktop_rag.domain import EVERYWHERE, DocScope
from desktop_rag.domain.protocols import Vector
from desktop_rag.store import vector_lists
from desktop_rag.store.scope_rows import allowed_rows
from desktop_rag.store.vector_journal import Journal, applied_build, masked_build
from desktop_rag.store.vector_lists import Lists

log = logging.getLogger(__name__)

POINTER = "current.json"
FORMAT = 1
MAX_VECTORS = 2_000_000  # 2.9 GiB at 384 dims: past it, searches stay with Chroma
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
    vectors: npt.NDArray[np.float32]
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
        vectors = np.load(build / "vectors.npy", mmap_mode="r")
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
    lists = None
    if len(ids) >= vector_lists.LIST_MIN_ROWS:
        vectors, ids, doc_of_row, lists = _listed(vectors, ids, doc_of_row)
    _write_build(folder / build, ids, vectors, doc_of_row)
    if lists is not None:
        vector_lists.save(folder / build, lists)
    _publish(folder, build, stamp, source.collection_name, list(codes))
    return len(ids)


def _listed(
    vectors: npt.NDArray[np.float32], ids: list[str], doc_of_row: npt.NDArray[np.int32]
) -> tuple[npt.NDArray[np.float32], list[str], npt.NDArray[np.int32], Lists]:
    """The copy's rows grouped by their nearest centroid, and the lists that say where."""
    centroids = vector_lists.train(vectors, vector_lists.list_count(len(ids)))
    order, offsets = vector_lists.grouped(vector_lists.assign(vectors, centroids), len(centroids))
    lists = Lists(centroids, offsets)
    return vectors[order], [ids[i] for i in order], doc_of_row[order], lists


def _publish(folder: Path, build: str, stamp: str, collection: str, docs: list[str]) -> None:
    """Points at `build` (atomically) and removes the other builds."""
    pointer = {"format": FORMAT, "build": build, "stamp": stamp, "collection": collection,
               "docs": docs}  # fmt: skip
    temp = folder / f".{POINTER}.{build}"
    temp.write_text(json.dumps(pointer), encoding="utf-8")
    temp.replace(folder / POINTER)
    _remove_other_builds(folder, build)


def _write_build(
    build: Path, ids: list[str], vectors: Vector, doc_of_row: npt.NDArray[np.int32]
) -> None:
    build.mkdir(parents=True)
    np.save(build / "vectors.npy", vectors)
    np.save(build / "docs.npy", doc_of_row)
    (build / "ids.json").write_text(json.dumps(ids), encoding="utf-8")


def _remove_other_builds(folder: Path, keep: str) -> None:
    for other in folder.glob("build-*"):
        if other.name != keep:
            shutil.rmtree(other, ignore_errors=True)


class SnapshotVectorIndex:
    """VectorIndex: reads from the persisted copy while it is current, else from the source
    (opened only then); writes to the source. `close()` refreshes a copy that is stale."""

    def __init__(
        self, folder: Path, stamp_file: Path, collection: str,
        open_source: Callable[[], VectorSource], active: Callable[[], str] | None = None,
    ) -> None:
        self._folder, self._stamp_file, self._collection = folder, stamp_file, collection
        self._open_source = open_source
        self._active = active or (lambda: collection)
        self._source: VectorSource | None = None
        self._snapshot: Snapshot | None = None
        self._rows: dict[str, int] | None = None
        self._stale = False
        self._looked: tuple[str, int] | None = None  # (stamp, pointer mtime) last loaded at
        self._journal: Journal | None = None  # this process's writes since the copy was current
        self._lock = threading.RLock()

    @property
    def collection_name(self) -> str:
        return self._collection

    @property
    def source_opened(self) -> bool:
        return self._source is not None

    @property
    def source(self) -> VectorSource:
        """The vector store itself (Chroma), opened now if it was not."""
        return self._source_index()

    def _source_index(self) -> VectorSource:
        with self._lock:
            if self._source is None:
                self._source = self._open_source()
            return self._source

    def current(self) -> Snapshot | None:
        """The copy when it is current (one small file read per call), else None."""
        with self._lock:
            stamp = read_stamp(self._stamp_file)
            snap = self._snapshot
            looked = (stamp, _mtime(self._folder / POINTER))
            if (snap is None or snap.stamp != stamp) and looked != self._looked:
                snap = load_snapshot(self._folder)  # not again until the stamp or copy changes
                self._snapshot, self._rows, self._looked = snap, None, looked
            if snap is None or snap.stamp != stamp or snap.collection != self._collection:
                self._stale = True
                return None
            if self._active() != self._collection:  # an embedder switch moved the library
                return None  # the source says so (store.vectors.SpaceChangedError)
            return snap

    def upsert(self, ids: Sequence[str], embeddings: Vector, doc_ids: Sequence[str]) -> None:
        with self._lock:
            journal = self._journal_now()
            self._source_index().upsert(ids, embeddings, doc_ids)
            journal.upsert(ids, embeddings, doc_ids)
            journal.last_stamp = read_stamp(self._stamp_file)
            self._stale = True

    def delete(self, ids: Sequence[str]) -> None:
        with self._lock:
            journal = self._journal_now()
            self._source_index().delete(ids)
            journal.delete(ids)
            journal.last_stamp = read_stamp(self._stamp_file)
            self._stale = True

    def _journal_now(self) -> Journal:
        if self._journal is None:
            self._journal = Journal(read_stamp(self._stamp_file))
        return self._journal

    def query(
        self, embedding: Vector, k: int, scope: DocScope = EVERYWHERE
    ) -> list[tuple[str, float]]:
        snap = self.current()
        if snap is None:
            return self._source_index().query(embedding, k, scope)
        return snap.query(embedding, k, scope)

    def get_embeddings(self, ids: Sequence[str]) -> dict[str, Vector]:
        snap = self.current()
        if snap is None:
            return self._source_index().get_embeddings(ids)
        with self._lock:
            rows = self._rows = self._rows or snap.row_of()
        return {cid: np.array(snap.vectors[rows[cid]]) for cid in ids if cid in rows}

    def all_ids(self) -> set[str]:
        snap = self.current()
        return snap.live_ids() if snap is not None else self._source_index().all_ids()

    def count(self) -> int:
        snap = self.current()
        return snap.size() if snap is not None else self._source_index().count()

    def refresh(self) -> int | None:
        """Rewrites the copy from the source if it is stale; the rows written (None: not done)."""
        with self._lock:
            if self.current() is not None:
                return None
            stamp = read_stamp(self._stamp_file)
            journal, self._journal = self._journal, None
            rows = self._from_journal(journal, stamp)
            if rows is None:
                source = self._source_index()
                if source.count() > MAX_VECTORS:
                    return None
                rows = write_snapshot(self._folder, source, stamp)
            self._snapshot, self._rows, self._stale, self._looked = None, None, False, None
            log.info("vector snapshot: %d rows written", rows)
            return rows

    def _from_journal(self, journal: Journal | None, stamp: str) -> int | None:
        """The copy brought up to date from itself and this process's writes, when nothing else
        wrote since it was current (None: it must be exported from the source)."""
        old = load_snapshot(self._folder)
        if (journal is None or journal.overflowed or old is None or not stamp
                or old.stamp != journal.base_stamp or stamp != journal.last_stamp
                or old.collection != self._collection
                or len(old.ids) + len(journal.upserts) > MAX_VECTORS):  # fmt: skip
            return None
        if not journal.upserts and old.build is not None:
            build, docs, rows = masked_build(self._folder, old, journal.deleted)
        else:
            build, docs, rows = applied_build(self._folder, old, journal)
        _publish(self._folder, build, stamp, old.collection, docs)
        return rows

    def close(self) -> None:
        """Refreshes a stale copy when this process opened the source anyway (it wrote, or read
        while the copy was stale), so that the next process starts without Chroma."""
        if self._stale and self._source is not None:
            try:
                self.refresh()
            except Exception:  # the copy is an optimisation: Chroma still answers
                log.warning("could not refresh the vector snapshot", exc_info=True)
        close = getattr(self._source, "close", None)
        if callable(close):
            close()
