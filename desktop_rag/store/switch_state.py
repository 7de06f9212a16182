"""The embedding space's part of the catalog: which collection search uses (the active-space
pointer), and the state of an embedder switch, so that a switch resumes after a restart.

The pointer is the one truth about the library's vectors: the vector store opens its collection
and the embedder is loaded from its model folder, so the two always match. No pointer: a library
made before spaces had names, whose one collection `chunks` was made with the configured
embedder (the packaged all-MiniLM-L6-v2 by default).

A switch's progress (its row and the chunks already embedded, with their text's hash) is written
without bumping the catalog generation: caches that follow it (the BM25 snapshot) must not be
rebuilt at every batch. The flip to the new space bumps it, once.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from desktop_rag.domain.errors import StoreError
from desktop_rag.store.spaces import LEGACY_COLLECTION, EmbeddingSpace

if TYPE_CHECKING:
    from desktop_rag.config import Settings

log = logging.getLogger(__name__)
Transaction = Callable[[], AbstractContextManager[sqlite3.Connection]]
Rows = Callable[[str, Sequence[object]], list[tuple[object, ...]]]
Phase = Literal["embedding", "settings", "cleanup"]
ACTIVE_KEY = "vectors.active"
_BATCH = 500

SWITCH_TABLES = (
    """CREATE TABLE IF NOT EXISTS embedder_switch (
        id INTEGER PRIMARY KEY CHECK (id = 1), model_dir TEXT NOT NULL, label TEXT NOT NULL,
        collection TEXT NOT NULL, space TEXT NOT NULL, source TEXT NOT NULL, phase TEXT NOT NULL,
        done INTEGER NOT NULL, total INTEGER NOT NULL, seconds REAL NOT NULL,
        started_at TEXT NOT NULL, updated_at TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS embedder_switch_chunks (
        chunk_id TEXT PRIMARY KEY, text_sha TEXT NOT NULL)""",
)


def create_tables(conn: sqlite3.Connection) -> None:
    """The switch's tables (idempotent: run whenever a catalog is opened)."""
    for statement in SWITCH_TABLES:
        conn.execute(statement)


@dataclass(frozen=True, slots=True)
class ActiveSpace:
    """The collection search uses, and the model (folder; "" = the packaged one) that made it.
    `space` is None for a library made before spaces were recorded."""

    collection: str
    model_dir: str
    label: str
    space: EmbeddingSpace | None
    pinned: bool = True  # False: nothing recorded yet (the settings' model made the vectors)

    def to_json(self) -> str:
        space = None if self.space is None else json.loads(self.space.to_json())
        return json.dumps({"collection": self.collection, "model_dir": self.model_dir,
                           "label": self.label, "space": space}, sort_keys=True)  # fmt: skip

    @classmethod
    def from_json(cls, text: str) -> ActiveSpace:
        data = json.loads(text)
        space = data.get("space")
        return cls(str(data["collection"]), str(data.get("model_dir", "")),
                   str(data.get("label", "")),
                   None if space is None else EmbeddingSpace.from_json(json.dumps(space)))


LEGACY = ActiveSpace(LEGACY_COLLECTION, "", "", None, pinned=False)


@dataclass(frozen=True, slots=True)
class PendingSwitch:
    """A switch begun and not finished: where it goes, how far it got, and what it replaces."""

    model_dir: str
    label: str
    collection: str
    space: EmbeddingSpace
    source: str
    phase: Phase
    done: int
    total: int
    seconds: float
    started_at: str
    updated_at: str


class SwitchStore:
    """Pointer, switch row and embedded-chunk log over the catalog's connection."""

    def __init__(self, tx: Transaction, quiet_tx: Transaction, rows: Rows) -> None:
        self._tx, self._quiet, self._rows = tx, quiet_tx, rows

    def active(self) -> ActiveSpace:
        rows = self._rows("SELECT value FROM meta WHERE key = ?", (ACTIVE_KEY,))
        return ActiveSpace.from_json(str(rows[0][0])) if rows else LEGACY

    def record_active(self, active: ActiveSpace) -> None:
        """Records what the legacy collection holds (no change of collection: quiet)."""
        with self._quiet() as conn:
            _set_active(conn, active)

    def pin(self, model_dir: str) -> None:
        """Records, once, that the legacy collection is made with `model_dir` (the model the
        library's embedder first loads), unless another process recorded something first."""
        with self._quiet() as conn:
            row = conn.execute("SELECT 1 FROM meta WHERE key = ?", (ACTIVE_KEY,)).fetchone()
            if row is None:
                _set_active(conn, ActiveSpace(LEGACY_COLLECTION, model_dir, "", None))

    def pending(self) -> PendingSwitch | None:
        rows = self._rows(
            "SELECT model_dir, label, collection, space, source, phase, done, total, seconds,"
            " started_at, updated_at FROM embedder_switch WHERE id = 1", ()
        )
        if not rows:
            return None
        r = rows[0]
        return PendingSwitch(
            str(r[0]), str(r[1]), str(r[2]), EmbeddingSpace.from_json(str(r[3])), str(r[4]),
            _phase(r[5]), int(str(r[6])), int(str(r[7])), float(str(r[8])), str(r[9]),
            str(r[10]),
        )

    def begin(self, switch: PendingSwitch) -> None:
        """A new switch in place of any other (whose embedded-chunk log goes with it)."""
        with self._quiet() as conn:
            conn.execute("DELETE FROM embedder_switch")
            conn.execute("DELETE FROM embedder_switch_chunks")
            conn.execute(
                "INSERT INTO embedder_switch(id, model_dir, label, collection, space, source,"
                " phase, done, total, seconds, started_at, updated_at)"
                " VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (switch.model_dir, switch.label, switch.collection, switch.space.to_json(),
                 switch.source, switch.phase, switch.done, switch.total, switch.seconds,
                 switch.started_at, switch.updated_at),
            )

    def embedded(self) -> dict[str, str]:
        """chunk id -> text hash of the chunks whose vector is in the new collection."""
        rows = self._rows("SELECT chunk_id, text_sha FROM embedder_switch_chunks", ())
        return {str(cid): str(sha) for cid, sha in rows}

    def log_batch(
        self, done: Sequence[tuple[str, str]], counts: tuple[int, int], seconds: float, now: str
    ) -> None:
        """After a batch reached the new collection: its chunks logged, progress saved."""
        with self._quiet() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO embedder_switch_chunks(chunk_id, text_sha) VALUES (?, ?)",
                list(done),
            )
            conn.execute(
                "UPDATE embedder_switch SET done = ?, total = ?, seconds = ?, updated_at = ?"
                " WHERE id = 1", (*counts, seconds, now),
            )

    def flip(self, active: ActiveSpace) -> None:
        """The atomic step: the pointer names the new collection, the switch goes on to the
        settings; the log goes. Bumps the generation: what caches the old space rebuilds."""
        with self._tx() as conn:
            _set_active(conn, active)
            conn.execute("UPDATE embedder_switch SET phase = 'settings' WHERE id = 1")
            conn.execute("DELETE FROM embedder_switch_chunks")

    def set_phase(self, phase: Phase) -> None:
        with self._quiet() as conn:
            conn.execute("UPDATE embedder_switch SET phase = ? WHERE id = 1", (phase,))

    def finish(self) -> None:
        with self._quiet() as conn:
            conn.execute("DELETE FROM embedder_switch")
            conn.execute("DELETE FROM embedder_switch_chunks")

    def wanted(self) -> dict[str, str]:
        """chunk id -> text hash of every chunk search can show (of indexed documents)."""
        rows = self._rows(
            "SELECT c.chunk_id, c.text_sha FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
            " WHERE d.status = 'indexed'", ()
        )
        return {str(cid): str(sha) for cid, sha in rows}

    def texts(self, chunk_ids: Sequence[str]) -> list[tuple[str, str, str, str]]:
        """(chunk id, doc id, text hash, text) of those of `chunk_ids` still in the catalog."""
        out: list[tuple[str, str, str, str]] = []
        for start in range(0, len(chunk_ids), _BATCH):
            part = list(chunk_ids[start : start + _BATCH])
            holes = ",".join("?" * len(part))
            rows = self._rows(
                "SELECT chunk_id, doc_id, text_sha, text FROM chunks"
                f" WHERE chunk_id IN ({holes})", part,
            )
            out += [(str(a), str(b), str(c), str(d)) for a, b, c, d in rows]
        return out


def _set_active(conn: sqlite3.Connection, active: ActiveSpace) -> None:
    conn.execute(
        "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = ?",
        (ACTIVE_KEY, active.to_json(), active.to_json()),
    )


def _phase(value: object) -> Phase:
    text = str(value)
    if text == "settings":
        return "settings"
    return "cleanup" if text == "cleanup" else "embedding"


def active_collection(path: Path) -> str:
    """The active collection's name read straight from a catalog file (for the vector store,
    which opens before, or without, the catalog object); the legacy name when there is none."""
    if not path.exists():
        return LEGACY_COLLECTION
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10.0)
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (ACTIVE_KEY,)).fetchone()
    except sqlite3.OperationalError:  # no meta table yet: a library being made
        return LEGACY_COLLECTION
    finally:
        conn.close()
    return LEGACY_COLLECTION if row is None else ActiveSpace.from_json(str(row[0])).collection


def loaded_embedder(store: SwitchStore, settings: Settings) -> tuple[Settings, str]:
    """The settings to load the embedder with, and the collection of its space: the active
    space's model, whatever `models.embedder` asks for now (another model waits for a switch;
    `doctor` says so). A library with nothing recorded is pinned to the model named now."""
    active = store.active()
    if not active.pinned:
        try:
            store.pin(settings.models.embedder)
        except StoreError:  # a read-only library: it can still be searched
            log.warning("could not record the library's embedder", exc_info=True)
        return settings, active.collection
    if active.model_dir == settings.models.embedder:
        return settings, active.collection
    return settings.updated({"models.embedder": active.model_dir}), active.collection


SWITCH_LOCK = "embedder-switch.lock"  # in the data folder: held while a switch runs


def switch_running(data_dir: Path) -> bool:
    """Whether a switch is running now, in this process or another (its lock is held)."""
    from desktop_rag.domain.errors import LibraryInUseError
    from desktop_rag.store.lock import WriterLock

    probe = WriterLock(data_dir / SWITCH_LOCK)
    try:
        probe.acquire()
    except LibraryInUseError:
        return True
    probe.release()
    return False
