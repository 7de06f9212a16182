"""The keyword (BM25) index kept on disk in segments, so that a new process opens it in
milliseconds instead of indexing the whole library again (the in-memory bm25s snapshot took
45.9 s and 668 MB at 250,000 chunks, in every new app process).

A change touches only what it changed: each document carries a revision (store/keyword_marks.py,
kept by SQLite triggers); a sync compares the revisions the index recorded with the catalog's,
masks out the rows of documents that changed or went (their segment stays as it is, a manifest
entry names them dead), and indexes the changed and new documents into one new segment. Segments
are merged from their saved term counts (no text read again) once there are more than
MAX_PARTS of them, or rewritten once half their rows are dead. Files that cannot be read back
are noticed when the index opens: it logs why and builds the index again from the catalog.

Until the index is current (generation equal to the catalog's), searches go to FTS5, as with
the snapshot: a sync with little to index runs at once, a large one (a first build, a big
drop) on a background thread.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from desktop_rag.domain import EVERYWHERE, DocScope
from desktop_rag.store.documents import Catalog
from desktop_rag.store.keyword_marks import indexed_revisions
from desktop_rag.store.keyword_segments import (
    DamagedSegment,
    Segment,
    SegmentBuilder,
    load_segment,
    merge_segments,
    save_segment,
)
from desktop_rag.store.keyword_state import Part, State, make_state, search
from desktop_rag.store.keyword_tokens import Tokenizer
from desktop_rag.store.sparse import SPARSE_VERSION, FtsSparseIndex

log = logging.getLogger(__name__)

FORMAT = {"format": 1, "tokens": "words-stopwords-snowball-1", "sparse": SPARSE_VERSION}
MANIFEST = "manifest.json"
MAX_PARTS = 8
SEGMENT_ROWS = 200_000  # a first build of a large library makes several segments
ORPHAN_S = 600.0  # a segment folder no manifest names, this old, was left by a stopped sync
INLINE_CHUNKS = 20_000  # more to index than this: a background sync, FTS5 meanwhile
_ROWS = (
    "SELECT c.chunk_id, c.doc_id, f.text, f.title, f.heading, f.numbers FROM chunks c"
    " JOIN chunks_fts f ON f.rowid = c.id"
)


class TooMuchToIndex(Exception):
    """The sync would index more chunks than a search should wait for."""


class DiskBm25Index:
    """SparseIndex over the persisted segments while they are current, FTS5 otherwise."""

    def __init__(self, catalog: Catalog, folder: Path, fallback: FtsSparseIndex | None = None):
        self._catalog = catalog
        self.folder = folder
        self._fallback = fallback or catalog.sparse_index()
        self._tokenize = Tokenizer()
        self._state: State | None = None
        self._opened = False
        self._opening = threading.Lock()  # a search thread and the GUI may open it at once
        self._loaded_time = 0  # the manifest's mtime when it was last read
        self._syncing = threading.Lock()
        self.indexed_chunks = 0  # chunks this process tokenized: 0 when it only opened the index
        self.full_builds = 0

    @property
    def state(self) -> State | None:
        return self._state

    def open(self) -> State | None:
        """Maps the saved segments (once per process); None when there are none to map."""
        with self._opening:
            if not self._opened:
                self._state = self._load()
                self._opened = True
        return self._state

    def warm(self) -> State:
        """Opens, then brings the index up to date on this thread, however much that takes."""
        with self._syncing:
            self.open()
            self._state = self._sync(limit=None)
        return self._state

    def refresh(self) -> None:
        """After an ingestion: brings the index up to date in the background."""
        state = self.open()
        if state is None or state.generation != self._catalog.generation():
            self._start_background()

    def search(self, query: str, k: int, scope: DocScope = EVERYWHERE) -> list[tuple[str, float]]:
        tokens = self._tokenize.query(query)
        state = self._current()
        if state is None or not tokens:  # stopwords only: FTS5 indexes them, this index not
            return self._fallback.search(query, k, scope)
        return search(state, tokens, k, scope)

    def _current(self) -> State | None:
        state = self.open()
        if state is not None and state.generation == self._catalog.generation():
            return state
        if not self._syncing.acquire(blocking=False):
            return None  # a sync is running
        try:
            self._state = self._sync(limit=INLINE_CHUNKS)
            return self._state
        except TooMuchToIndex:
            pass
        except Exception:  # FTS5 answers; the next search tries again
            log.exception("bringing the keyword index in %s up to date failed", self.folder)
            return None
        finally:
            self._syncing.release()
        self._start_background()
        return None

    def _start_background(self) -> None:
        if not self._syncing.locked():
            threading.Thread(target=self._background, name="keyword-index", daemon=True).start()

    def _background(self) -> None:
        if not self._syncing.acquire(blocking=False):
            return
        try:
            self._state = self._sync(limit=None)
        except Exception:  # FTS5 keeps answering
            log.exception("bringing the keyword index in %s up to date failed", self.folder)
        finally:
            self._syncing.release()

    # ---- loading -----------------------------------------------------------------------------
    def _manifest_time(self) -> int:
        try:
            return (self.folder / MANIFEST).stat().st_mtime_ns
        except OSError:
            return 0

    def _load(self) -> State | None:
        path = self.folder / MANIFEST
        self._loaded_time = self._manifest_time()
        if not path.exists():
            return None
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
            if {k: manifest.get(k) for k in FORMAT} != FORMAT:
                log.info("The keyword index in %s is of another format; building it again",
                         self.folder)  # fmt: skip
                return None
            parts = [Part(p["name"], load_segment(self.folder / p["name"]), frozenset(p["dead"]))
                     for p in manifest["parts"]]  # fmt: skip
            return make_state(int(manifest["generation"]), parts)
        except (DamagedSegment, OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("The keyword index in %s is damaged (%s); building it again from the "
                        "catalog", self.folder, exc)  # fmt: skip
            return None

    # ---- syncing -----------------------------------------------------------------------------
    def _sync(self, limit: int | None) -> State:
        """The next State: what changed since `self._state` masked, indexed anew and saved
        (without a state yet, what another process may have saved since this one looked)."""
        old = self._state
        if old is None and self._manifest_time() != self._loaded_time:
            old = self._load()
        with _read(self._catalog.db_path) as conn:
            generation = int(str(conn.execute(
                "SELECT value FROM meta WHERE key = 'generation'").fetchone()[0]))  # fmt: skip
            if old is not None and old.generation == generation:
                return old
            revs = indexed_revisions(conn)
            live = old.live if old is not None else {}
            stale = {d for d, (_, rev) in live.items() if revs.get(d) != rev}
            todo = [d for d in revs if d not in live or d in stale]
            if limit is not None and _chunk_count(conn, todo) > limit:
                raise TooMuchToIndex
            added = self._index(_read_rows(conn, todo, whole=old is None), revs)
        self.full_builds += old is None
        parts = [replace(p, dead=p.dead | (stale & set(p.seg.doc_ids))) for p in
                 (old.parts if old is not None else ())]  # fmt: skip
        parts = _merged([p for p in parts if p.dead_rows() < p.seg.size] + added)
        state = make_state(generation, parts)
        try:
            self._save(state, old)
        except OSError as exc:  # disk full, read-only: searched from memory in this process
            log.warning("The keyword index could not be saved in %s (%s); this process keeps it "
                        "in memory", self.folder, exc)  # fmt: skip
        return state

    def _index(self, rows: Iterator[tuple[str, ...]], revs: dict[str, int]) -> list[Part]:
        """New segments of at most SEGMENT_ROWS rows each (a document may span two)."""
        out: list[Part] = []
        builder = SegmentBuilder()
        for cid, doc, text, title, heading, numbers in rows:
            builder.add(cid, doc, self._tokenize.plain(f"{text} {title or ''} {heading or ''} "
                                                 f"{numbers or ''}"))  # fmt: skip
            self.indexed_chunks += 1
            if builder.size >= SEGMENT_ROWS:
                out.append(_part(builder.finish(revs)))
                builder = SegmentBuilder()
        if builder.size:
            out.append(_part(builder.finish(revs)))
        return out

    def _save(self, state: State, old: State | None) -> None:
        """New segment folders first, the manifest last (atomically); then the folders of
        segments merged away. Skipped while another process saves (this one keeps its view)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with _file_lock(self.folder / ".lock") as locked:
            if not locked:
                return
            for part in state.parts:
                if not (self.folder / part.name / "meta.json").exists():
                    save_segment(part.seg, self.folder / part.name)
            manifest = {**FORMAT, "generation": state.generation, "parts": [
                {"name": p.name, "dead": sorted(p.dead)} for p in state.parts]}  # fmt: skip
            tmp = self.folder / f"{MANIFEST}.{os.getpid()}.tmp"
            tmp.write_text(json.dumps(manifest), encoding="utf-8")
            os.replace(tmp, self.folder / MANIFEST)
            kept = {p.name for p in state.parts}
            for gone in _unused(self.folder, kept, old):
                shutil.rmtree(gone, ignore_errors=True)


def _unused(folder: Path, kept: set[str], old: State | None) -> list[Path]:
    """Segment folders no manifest will name: those merged away since `old`, what a damaged
    index left (at a first build), and folders of a process stopped while it wrote them."""
    before = {p.name for p in old.parts} if old is not None else set()
    stale = time.time() - ORPHAN_S
    return [path for path in folder.glob("seg-*") if path.name not in kept and (
        path.name in before or old is None or path.stat().st_mtime < stale)]  # fmt: skip


def _merged(parts: list[Part]) -> list[Part]:
    """Rewrites a part that is half dead; past MAX_PARTS, merges the smallest parts into one
    (the work stays with the small recent segments, the large ones are rarely rewritten)."""
    out = [_merge([p]) if p.dead and 2 * p.dead_rows() >= p.seg.size else p for p in parts]
    if len(out) > MAX_PARTS:
        out.sort(key=lambda p: p.seg.size)
        cut = len(out) - MAX_PARTS + 2
        out = [_merge(out[:cut]), *out[cut:]]
    return out


def _part(seg: Segment) -> Part:
    return Part(f"seg-{uuid.uuid4().hex[:12]}", seg, frozenset())


def _merge(parts: list[Part]) -> Part:
    return _part(merge_segments([(p.seg, p.alive()) for p in parts]))


def _chunk_count(conn: sqlite3.Connection, doc_ids: list[str]) -> int:
    total = 0
    for i in range(0, len(doc_ids), 500):
        part = doc_ids[i : i + 500]
        sql = f"SELECT COALESCE(SUM(chunks), 0) FROM documents WHERE doc_id IN ({_holes(part)})"
        total += int(conn.execute(sql, part).fetchone()[0])
    return total


def _read_rows(
    conn: sqlite3.Connection, doc_ids: list[str], whole: bool
) -> Iterator[tuple[str, ...]]:
    """The keyword rows of these (indexed) documents, streamed."""
    if whole:
        sql = f"{_ROWS} JOIN documents d ON d.doc_id = c.doc_id WHERE d.status = 'indexed'"
        yield from conn.execute(sql)
        return
    for i in range(0, len(doc_ids), 500):
        part = doc_ids[i : i + 500]
        yield from conn.execute(f"{_ROWS} WHERE c.doc_id IN ({_holes(part)})", part)


def _holes(items: list[str]) -> str:
    return ",".join("?" * len(items))


@contextmanager
def _read(db_path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection holding one read transaction: revisions and rows agree."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=10.0)
    try:
        conn.execute("BEGIN")
        yield conn
        conn.execute("COMMIT")
    finally:
        conn.close()


@contextmanager
def _file_lock(path: Path) -> Iterator[bool]:
    from desktop_rag.store.lock import _try_lock, _unlock

    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        locked = _try_lock(fd)
        try:
            yield locked
        finally:
            if locked:
                _unlock(fd)
    finally:
        os.close(fd)
