"""The in-memory bm25s snapshot the app searched until 2026-12-05, kept as the reference the
persisted keyword index (store/keyword_index.py) is measured and tested against: the same
rankings, in `python -m bench.run keyword_index` and tests/test_store_keyword_index.py. The app no
longer builds it (45.9 s and +668 MB in every new process at 250,000 chunks). What it was:

BM25 in memory (bm25s, the only module that imports it) over a snapshot of the FTS5 table.

FTS5 stays the persisted, incrementally updated sparse index. Its own bm25() costs a B-tree lookup
per matching row, which dominates hybrid latency in a large library (about 24 ms median, 45 ms p95
at 50,000 chunks), so searches use a bm25s snapshot of the same rows (about 1 ms) while the
snapshot is current: built for the catalog generation it was read at. After a write the snapshot
is stale and searches go to FTS5 until a rebuild replaces it: started on a background thread after
an ingestion (when this process searched before), or once two searches in a row saw the same
generation. Same tokens both ways (words, numbers as store.sparse makes them, stopwords dropped,
English stemming); the scores differ in scale, which fusion standardises away.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from desktop_rag.domain import EVERYWHERE, DocScope
from desktop_rag.store.documents import Catalog
from desktop_rag.store.keyword_tokens import Tokenizer
from desktop_rag.store.scope_rows import allowed_rows
from desktop_rag.store.sparse import FtsSparseIndex

log = logging.getLogger(__name__)

_ROWS = (
    "SELECT c.chunk_id, d.doc_id, f.text, f.title, f.heading, f.numbers FROM chunks_fts f"
    " JOIN chunks c ON c.id = f.rowid JOIN documents d ON d.doc_id = c.doc_id"
    " WHERE d.status = 'indexed'"
)


@dataclass(frozen=True, slots=True)
class Snapshot:
    generation: int
    chunk_ids: list[str]
    doc_of_chunk: npt.NDArray[np.int32]  # a code per chunk: its document's position in doc_codes
    doc_codes: dict[str, int]
    model: Any  # bm25s.BM25
    seconds: float

    def memory_bytes(self) -> int:
        arrays = self.model.scores.values()
        sizes = sum(a.nbytes for a in arrays if isinstance(a, np.ndarray))
        return int(sizes + 100 * (len(self.chunk_ids) + len(self.model.vocab_dict)))

    def mask(self, scope: DocScope) -> npt.NDArray[np.float32] | None:
        """1 for the chunks `scope` allows, 0 for the rest (None: all are allowed)."""
        allowed = allowed_rows(self.doc_of_chunk, self.doc_codes, scope)
        return None if allowed is None else allowed.astype(np.float32)


def build_snapshot(db_path: Any, tokenize: Tokenizer) -> Snapshot:
    """Reads the indexed rows and their generation in one read transaction, then indexes them."""
    import bm25s

    logging.getLogger("bm25s").setLevel(logging.WARNING)  # it sets its own logger to DEBUG
    start = time.perf_counter()
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=10.0)
    try:
        conn.execute("BEGIN")
        found = conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchall()
        rows = conn.execute(_ROWS).fetchall()
        conn.execute("COMMIT")
    finally:
        conn.close()
    model = bm25s.BM25(k1=1.2, b=0.75)
    corpus = [
        tokenize(f"{text} {title or ''} {head or ''} {numbers or ''}")
        for *_, text, title, head, numbers in rows
    ]
    if corpus:
        model.index(corpus, show_progress=False)
    generation = int(str(found[0][0])) if found else 0
    codes: dict[str, int] = {}
    doc_of_chunk = np.fromiter((codes.setdefault(r[1], len(codes)) for r in rows), np.int32)
    return Snapshot(
        generation, [r[0] for r in rows], doc_of_chunk, codes, model,
        time.perf_counter() - start,
    )


class MemoryBm25Index:
    """SparseIndex: bm25s while its snapshot is current, FTS5 otherwise (see the module text)."""

    def __init__(self, catalog: Catalog, fallback: FtsSparseIndex | None = None) -> None:
        self._catalog = catalog
        self._fallback = fallback or catalog.sparse_index()
        self._tokenize = Tokenizer()
        self._snapshot: Snapshot | None = None
        self._last_seen: int | None = None
        self._building = threading.Lock()

    @property
    def snapshot(self) -> Snapshot | None:
        return self._snapshot

    def warm(self) -> Snapshot:
        """Builds the snapshot now, on this thread (evaluations and benchmarks)."""
        with self._building:
            self._snapshot = build_snapshot(self._catalog.db_path, self._tokenize)
        return self._snapshot

    def search(
        self, query: str, k: int, scope: DocScope = EVERYWHERE
    ) -> list[tuple[str, float]]:
        snapshot, generation = self._snapshot, self._catalog.generation()
        if snapshot is None or snapshot.generation != generation:
            self._maybe_rebuild(generation)
            return self._fallback.search(query, k, scope)
        tokens = self._tokenize.query(query)
        if not tokens:  # stopwords only: FTS5 indexes them, the snapshot does not
            return self._fallback.search(query, k, scope)
        return self._search(snapshot, tokens, k, scope)

    def _search(
        self, snap: Snapshot, tokens: list[str], k: int, scope: DocScope
    ) -> list[tuple[str, float]]:
        if k <= 0 or not snap.chunk_ids or scope.empty:
            return []
        found, scores = snap.model.retrieve(
            [tokens], k=min(k, len(snap.chunk_ids)), show_progress=False, n_threads=1,
            weight_mask=snap.mask(scope),
        )
        return [
            (snap.chunk_ids[i], float(s)) for i, s in zip(found[0], scores[0], strict=True) if s > 0
        ]

    def refresh(self) -> None:
        """Rebuilds the snapshot in the background if it is stale (after an ingestion)."""
        snapshot = self._snapshot
        if snapshot is None or snapshot.generation != self._catalog.generation():
            self._start_rebuild()

    def _maybe_rebuild(self, generation: int) -> None:
        """Rebuilds once the generation is the same at two searches in a row: a running
        ingestion does not trigger a rebuild per document, and a one-off search (the CLI) does
        not pay for a snapshot it will never use."""
        settled = self._last_seen == generation
        self._last_seen = generation
        if settled:
            self._start_rebuild()

    def _start_rebuild(self) -> None:
        if not self._building.locked():
            threading.Thread(target=self._rebuild, name="bm25-snapshot", daemon=True).start()

    def _rebuild(self) -> None:
        if not self._building.acquire(blocking=False):
            return
        try:
            self._snapshot = build_snapshot(self._catalog.db_path, self._tokenize)
            log.info("BM25 snapshot: %d chunks in %.1f s", len(self._snapshot.chunk_ids),
                     self._snapshot.seconds)  # fmt: skip
        except Exception:  # the FTS5 path keeps answering
            log.exception("building the in-memory BM25 snapshot failed")
        finally:
            self._building.release()


def memory_mb(index: object) -> float | None:
    """The snapshot's approximate size in MiB, when `index` keeps one."""
    snapshot = index.snapshot if isinstance(index, MemoryBm25Index) else None
    return None if snapshot is None else round(snapshot.memory_bytes() / 2**20, 1)


__all__: Sequence[str] = ("MemoryBm25Index", "Snapshot", "build_snapshot", "memory_mb")
