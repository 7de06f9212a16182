"""The table pass's part of the catalog: the documents waiting for it, and the swap of some of a
document's chunks for the chunks made with its tables.

Text first, tables after (see ingest/table_pass.py): a PDF is indexed from its text at once, its
pages that look tabular are queued in the transaction that adds it, and the table pass later
replaces the chunks of the pages where it found tables. The swap follows the same idea as the
ingestion protocol (ingest/recovery.py), each step one transaction:
  1. the new chunks' ids go in the vector outbox   2. their vectors are upserted
  3. `swap`: the replaced chunks out, the new ones in (rows and FTS rows), the ordinals and the
     chunk count updated, the document out of the queue; the new ids leave the outbox and the
     replaced ones enter it   4. the replaced vectors are deleted, and leave the outbox.
Search reads chunks and FTS rows from one snapshot and resolves every vector hit through the
catalog, so it sees the old chunks or the new ones, never a mix; a vector no chunk owns is never
shown. After a crash the outbox names the vectors that may have lost their chunk, and recovery
deletes those that did (`unowned`).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass

from desktop_rag.domain import Chunk
from desktop_rag.store.catalog_steps import holes, index_title
from desktop_rag.store.schema import INSERT_CHUNK, chunk_params
from desktop_rag.store.sparse import index_chunks

Transaction = Callable[[], AbstractContextManager[sqlite3.Connection]]
Rows = Callable[[str, Sequence[object]], list[tuple[object, ...]]]
_BATCH = 500  # ids per IN (...) list


def queue_tables(conn: sqlite3.Connection, doc_id: str, pages: Sequence[int]) -> None:
    """Queues a document for the table pass (inside the caller's transaction)."""
    if pages:
        conn.execute(
            "INSERT OR REPLACE INTO table_queue(doc_id, pages) VALUES (?, ?)",
            (doc_id, json.dumps(sorted(set(pages)))),
        )


def mark_read(conn: sqlite3.Connection, doc_id: str, mark: str | None) -> None:
    """Notes what the document's pages were queued for (inside the caller's transaction;
    None: not a PDF, nothing to note)."""
    if mark is not None:
        conn.execute(
            "INSERT OR REPLACE INTO reader_marks(doc_id, mark) VALUES (?, ?)", (doc_id, mark)
        )


@dataclass(frozen=True, slots=True)
class ChunkSwap:
    """A document's chunks after the table pass: every chunk id in the new order, the rows to
    write (new chunks, and chunks of a page read again whose text did not change: same id,
    new place on the page), and the ids of the rows they replace."""

    doc_id: str
    order: tuple[str, ...]
    written: tuple[Chunk, ...]
    replaced: tuple[str, ...]

    @property
    def new_ids(self) -> list[str]:
        """Ids that had no vector before (the others keep theirs: same id, same text)."""
        old = set(self.replaced)
        return [c.chunk_id for c in self.written if c.chunk_id not in old]

    @property
    def dropped_ids(self) -> list[str]:
        """Ids whose vectors go once the swap is committed."""
        kept = {c.chunk_id for c in self.written}
        return [cid for cid in self.replaced if cid not in kept]


class TableSteps:
    """Queue, outbox and swap over the catalog's connection (its transactions and reads)."""

    def __init__(self, tx: Transaction, rows: Rows) -> None:
        self._tx = tx
        self._rows = rows

    def queued(self) -> dict[str, tuple[int, ...]]:
        """Indexed documents waiting for the table pass -> their pages that look tabular, in
        path order (a document still pending waits until it is indexed)."""
        rows = self._rows(
            "SELECT q.doc_id, q.pages FROM table_queue q JOIN documents d ON d.doc_id = q.doc_id"
            " WHERE d.status = 'indexed' ORDER BY d.path",
            (),
        )
        return {str(doc_id): tuple(json.loads(str(pages))) for doc_id, pages in rows}

    def marks(self) -> dict[str, str]:
        """Document -> what its pages were queued for (documents read before marks: none)."""
        return {str(d): str(m) for d, m in self._rows("SELECT doc_id, mark FROM reader_marks", ())}

    def requeue(self, doc_id: str, pages: Sequence[int], mark: str) -> None:
        """A document read before the current readers: its candidate pages queued (if any) and
        its mark set, one transaction (ingest/catch_up.py)."""
        with self._tx() as conn:
            queue_tables(conn, doc_id, pages)
            mark_read(conn, doc_id, mark)

    def dequeue(self, doc_id: str) -> None:
        """The document needs no table pass any more (none found, or it failed: text stays)."""
        with self._tx() as conn:
            conn.execute("DELETE FROM table_queue WHERE doc_id = ?", (doc_id,))

    def stage(self, chunk_ids: Collection[str]) -> None:
        """Step 1: ids whose vectors are about to be written before any chunk owns them."""
        with self._tx() as conn:
            _into_outbox(conn, chunk_ids)

    def swap(self, swap: ChunkSwap) -> None:
        """Step 3, one transaction. Raises ValueError when the document is not indexed or its
        chunks are not those the swap was made from (nothing is changed then)."""
        with self._tx() as conn:
            _check_current(conn, swap)
            conn.execute(
                "DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE doc_id = ?)",
                (swap.doc_id,),
            )
            for part in _parts(swap.replaced):
                conn.execute(f"DELETE FROM chunks WHERE chunk_id IN ({holes(len(part))})", part)
            conn.executemany(INSERT_CHUNK, [chunk_params(c, _sha(c.text)) for c in swap.written])
            conn.executemany(
                "UPDATE chunks SET ordinal = ? WHERE chunk_id = ?",
                [(ordinal, cid) for ordinal, cid in enumerate(swap.order)],
            )
            index_chunks(conn, swap.doc_id, index_title(conn, swap.doc_id))
            conn.execute(
                "UPDATE documents SET chunks = ? WHERE doc_id = ?", (len(swap.order), swap.doc_id)
            )
            conn.execute("DELETE FROM table_queue WHERE doc_id = ?", (swap.doc_id,))
            _out_of_outbox(conn, swap.new_ids)
            _into_outbox(conn, swap.dropped_ids)

    def outbox(self) -> list[str]:
        return [str(r[0]) for r in self._rows("SELECT chunk_id FROM vector_outbox", ())]

    def unowned(self, chunk_ids: Sequence[str]) -> list[str]:
        """Those of `chunk_ids` that no chunk row has (their vectors may go)."""
        owned: set[str] = set()
        for part in _parts(chunk_ids):
            sql = f"SELECT chunk_id FROM chunks WHERE chunk_id IN ({holes(len(part))})"
            owned.update(str(r[0]) for r in self._rows(sql, part))
        return [cid for cid in chunk_ids if cid not in owned]

    def settle(self, chunk_ids: Collection[str]) -> None:
        """Step 4 done: the ids leave the outbox."""
        with self._tx() as conn:
            _out_of_outbox(conn, chunk_ids)


def _check_current(conn: sqlite3.Connection, swap: ChunkSwap) -> None:
    row = conn.execute("SELECT status FROM documents WHERE doc_id = ?", (swap.doc_id,)).fetchone()
    if row is None or row[0] != "indexed":
        raise ValueError(f"document {swap.doc_id} is no longer indexed")
    have = {str(r[0]) for r in conn.execute(
        "SELECT chunk_id FROM chunks WHERE doc_id = ?", (swap.doc_id,)
    )}
    kept = set(swap.order) - {c.chunk_id for c in swap.written}
    if not set(swap.replaced) <= have or have - set(swap.replaced) != kept:
        raise ValueError(f"the chunks of document {swap.doc_id} changed during the table pass")


def _into_outbox(conn: sqlite3.Connection, chunk_ids: Collection[str]) -> None:
    conn.executemany(
        "INSERT OR IGNORE INTO vector_outbox(chunk_id) VALUES (?)", [(c,) for c in chunk_ids]
    )


def _out_of_outbox(conn: sqlite3.Connection, chunk_ids: Collection[str]) -> None:
    conn.executemany("DELETE FROM vector_outbox WHERE chunk_id = ?", [(c,) for c in chunk_ids])


def _parts(ids: Sequence[str]) -> list[list[str]]:
    return [list(ids[i : i + _BATCH]) for i in range(0, len(ids), _BATCH)]


def _sha(text: str) -> str:
    """As catalog.text_sha (not imported: the catalog imports this module)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
