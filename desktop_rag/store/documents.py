"""The catalog (SQLite, WAL): documents, chunks and the FTS5 index; the library's source of truth.

Writes follow the consistency protocol (see desktop_rag/ingest/recovery.py):
  add_pending (doc row `pending` + chunks)  ->  vectors upserted  ->  finalize (FTS rows +
  `indexed`, older versions at the same path marked `removing`).
  begin_remove (`removing`, FTS rows gone)  ->  vectors deleted  ->  finish_remove (rows gone).
Readers only ever see chunks of `indexed` documents.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from desktop_rag.domain import Chunk, DocStatus, Document, PageRefs
from desktop_rag.domain.errors import StoreError
from desktop_rag.store import schema
from desktop_rag.store.catalog_steps import (
    begin_remove,
    drop_unindexed,
    holes,
    index_title,
    keep_user_title,
    reindex_title,
    supersede,
    with_status,
)
from desktop_rag.store.followed import FollowedFolders
from desktop_rag.store.sparse import FtsSparseIndex, index_chunks
from desktop_rag.store.switch_state import SwitchStore
from desktop_rag.store.table_steps import TableSteps, mark_read, queue_tables

_SELECT_DOCS = f"SELECT {schema.DOC_COLUMNS} FROM documents"
_SELECT_CHUNKS = (
    f"SELECT {schema.CHUNK_COLUMNS} FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
)


_INSERT_DOC = (
    f"INSERT INTO documents({schema.DOC_COLUMNS}) VALUES ({holes(schema.DOC_COLUMN_COUNT)})"
)
_BUMP_GENERATION = (
    "INSERT INTO meta(key, value) VALUES('generation', '1') ON CONFLICT(key)"
    " DO UPDATE SET value = CAST(value AS INTEGER) + 1"
)


def text_sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Catalog:
    """Thread-safe (one connection behind a lock); other processes may read concurrently."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self._conn = schema.connect(db_path)
        self._lock = threading.RLock()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def sparse_index(self) -> FtsSparseIndex:
        return FtsSparseIndex(self._conn, self._lock)

    def followed(self) -> FollowedFolders:
        return FollowedFolders(self._tx, self._rows, now_iso)

    def tables(self) -> TableSteps:
        """The table pass's queue and chunk swap (store/table_steps.py)."""
        return TableSteps(self._tx, self._rows)

    def spaces(self) -> SwitchStore:
        """The active embedding space and an embedder switch's state (store/switch_state.py)."""
        return SwitchStore(self._tx, lambda: self._tx(bump=False), self._rows)

    @contextmanager
    def _tx(self, bump: bool = True) -> Iterator[sqlite3.Connection]:
        """One write transaction; SQLite failures (disk full, read-only) become StoreError.
        `bump=False`: a write no cached view depends on (a switch's progress) leaves the
        generation as it is."""
        with self._lock, _store_errors(self.db_path):
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            if bump:
                self._conn.execute(_BUMP_GENERATION)
            self._conn.execute("COMMIT")

    def generation(self) -> int:
        """A number every committed write changes (in any process): caches compare it."""
        rows = self._rows("SELECT value FROM meta WHERE key = 'generation'")
        return int(str(rows[0][0])) if rows else 0

    def _rows(self, sql: str, params: Sequence[object] = ()) -> list[tuple[object, ...]]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    # ---- documents -------------------------------------------------------------------------
    def documents(self, status: DocStatus | None = None) -> list[Document]:
        if status is None:
            rows = self._rows(f"{_SELECT_DOCS} ORDER BY path")
        else:
            rows = self._rows(f"{_SELECT_DOCS} WHERE status = ? ORDER BY path", (status.value,))
        return [schema.row_to_document(r) for r in rows]

    def get_document(self, doc_id: str) -> Document | None:
        rows = self._rows(f"{_SELECT_DOCS} WHERE doc_id = ?", (doc_id,))
        return schema.row_to_document(rows[0]) if rows else None

    def documents_at(self, path: str) -> list[Document]:
        rows = self._rows(f"{_SELECT_DOCS} WHERE path = ?", (path,))
        return [schema.row_to_document(r) for r in rows]

    def document_with_sha(self, sha256: str) -> Document | None:
        rows = self._rows(f"{_SELECT_DOCS} WHERE sha256 = ? AND status = 'indexed'", (sha256,))
        return schema.row_to_document(rows[0]) if rows else None

    def documents_under(self, folder: str) -> list[Document]:
        prefix = folder.rstrip("/\\") + "/"
        rows = self._rows(f"{_SELECT_DOCS} WHERE substr(path, 1, ?) = ?", (len(prefix), prefix))
        return [schema.row_to_document(r) for r in rows]

    def set_core(self, doc_id: str, core: bool) -> None:
        with self._tx() as conn:
            conn.execute("UPDATE documents SET is_core = ? WHERE doc_id = ?", (int(core), doc_id))

    def core_doc_ids(self) -> set[str]:
        rows = self._rows("SELECT doc_id FROM documents WHERE is_core = 1 AND status = 'indexed'")
        return {str(r[0]) for r in rows}

    # ---- chunks ----------------------------------------------------------------------------
    def get_chunks(self, ids: Sequence[str]) -> dict[str, Chunk]:
        """ChunkLookup: chunks of indexed documents only (others are silently absent)."""
        out: dict[str, Chunk] = {}
        for start in range(0, len(ids), 500):
            part = list(ids[start : start + 500])
            holes = ",".join("?" * len(part))
            sql = f"{_SELECT_CHUNKS} WHERE c.chunk_id IN ({holes}) AND d.status = 'indexed'"
            for row in self._rows(sql, part):
                chunk = schema.row_to_chunk(row)
                out[chunk.chunk_id] = chunk
        return out

    def chunk_ids_on_pages(self, doc_ids: Collection[str], pages: PageRefs) -> list[str]:
        """PageLookup: the indexed chunks of these documents that lie on the pages named, in
        reading order."""
        ids = sorted(doc_ids)
        if not ids or not pages:
            return []
        sql = (
            "SELECT c.chunk_id, c.pages, d.pages FROM chunks c JOIN documents d"
            f" ON d.doc_id = c.doc_id WHERE d.doc_id IN ({holes(len(ids))})"
            " AND d.status = 'indexed' ORDER BY c.doc_id, c.ordinal"
        )
        return [
            str(cid) for cid, on, count in self._rows(sql, ids)
            if pages.matches(json.loads(str(on)), int(str(count)))
        ]

    def chunks_of(self, doc_id: str) -> list[Chunk]:
        """All chunks of one document in order, whatever its status."""
        rows = self._rows(f"{_SELECT_CHUNKS} WHERE c.doc_id = ? ORDER BY c.ordinal", (doc_id,))
        return [schema.row_to_chunk(r) for r in rows]

    def chunk_ids_of(self, doc_id: str) -> list[str]:
        sql = "SELECT chunk_id FROM chunks WHERE doc_id = ? ORDER BY ordinal"
        rows = self._rows(sql, (doc_id,))
        return [str(r[0]) for r in rows]

    def chunk_ids(self, statuses: Sequence[DocStatus]) -> set[str]:
        holes = ",".join("?" * len(statuses))
        sql = (
            "SELECT c.chunk_id FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
            f" WHERE d.status IN ({holes})"
        )
        return {str(r[0]) for r in self._rows(sql, [s.value for s in statuses])}

    def sparse_chunk_ids(self) -> set[str]:
        rows = self._rows("SELECT c.chunk_id FROM chunks_fts f JOIN chunks c ON c.id = f.rowid")
        return {str(r[0]) for r in rows}

    def sparse_row_count(self) -> int:
        return int(str(self._rows("SELECT count(*) FROM chunks_fts")[0][0]))

    def chunk_ids_with_text(self, shas: Sequence[str]) -> dict[str, list[str]]:
        """text sha -> chunk ids holding that exact text (pending or indexed documents)."""
        out: dict[str, list[str]] = {}
        for start in range(0, len(shas), 500):
            part = list(shas[start : start + 500])
            holes = ",".join("?" * len(part))
            sql = (
                "SELECT c.text_sha, c.chunk_id FROM chunks c JOIN documents d"
                f" ON d.doc_id = c.doc_id WHERE c.text_sha IN ({holes})"
                " AND d.status IN ('indexed', 'pending')"
            )
            for sha, cid in self._rows(sql, part):
                out.setdefault(str(sha), []).append(str(cid))
        return out

    # ---- writes ----------------------------------------------------------------------------
    def add_pending(
        self, doc: Document, chunks: Sequence[Chunk], table_pages: Sequence[int] = (),
        mark: str | None = None,
    ) -> None:
        """Step 1: the document row (pending) and its chunks, without FTS rows; `table_pages`
        (pages that look tabular) queue it for the table pass in the same transaction, and
        `mark` says what they were queued for (ingest/catch_up.py)."""
        pending = with_status(doc, status=DocStatus.PENDING, chunks=len(chunks))
        with self._tx() as conn:
            drop_unindexed(conn, doc.doc_id)
            conn.execute(
                _INSERT_DOC,
                schema.document_params(pending),
            )
            conn.executemany(
                schema.INSERT_CHUNK, [schema.chunk_params(c, text_sha(c.text)) for c in chunks]
            )
            queue_tables(conn, doc.doc_id, table_pages)
            mark_read(conn, doc.doc_id, mark)

    def finalize(self, doc_id: str) -> list[str]:
        """Step 3: FTS rows in, status indexed; returns other documents at the same path, which
        are now `removing` (the caller deletes their vectors, then calls finish_remove)."""
        with self._tx() as conn:
            keep_user_title(conn, doc_id)
            index_chunks(conn, doc_id, index_title(conn, doc_id))
            conn.execute(
                "UPDATE documents SET status = 'indexed', error = NULL, ingested_at = ?"
                " WHERE doc_id = ?",
                (now_iso(), doc_id),
            )
            return supersede(conn, doc_id)

    def record_failed(self, doc: Document) -> None:
        with self._tx() as conn:
            drop_unindexed(conn, doc.doc_id)
            conn.execute("DELETE FROM documents WHERE path = ? AND status = 'failed'", (doc.path,))
            failed = with_status(doc, status=DocStatus.FAILED, chunks=0)
            conn.execute(
                _INSERT_DOC,
                schema.document_params(failed),
            )

    def move(
        self, doc_id: str, path: str, size: int, mtime: float, title: str | None = None
    ) -> list[str]:
        """A known document found at a new path (and maybe a new title, when it was named after
        its file and not by the user); returns superseded documents (now removing)."""
        with self._tx() as conn:
            conn.execute(
                "UPDATE documents SET path = ?, size = ?, mtime = ?, title = CASE"
                " WHEN title_by_user = 1 THEN title ELSE COALESCE(?, title) END WHERE doc_id = ?",
                (path, size, mtime, title, doc_id),
            )
            reindex_title(conn, doc_id)
            return supersede(conn, doc_id)

    def rename(self, doc_id: str, title: str) -> None:
        """The user's title for a document: kept when the file moves or changes; the file's own
        title and name stay searchable."""
        with self._tx() as conn:
            conn.execute(
                "UPDATE documents SET title = ?, title_by_user = 1 WHERE doc_id = ?",
                (title, doc_id),
            )
            reindex_title(conn, doc_id)

    def touch(self, doc_id: str, size: int, mtime: float) -> None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE documents SET size = ?, mtime = ? WHERE doc_id = ?", (size, mtime, doc_id)
            )

    def begin_remove(self, doc_id: str) -> None:
        with self._tx() as conn:
            begin_remove(conn, doc_id)

    def finish_remove(self, doc_id: str) -> None:
        with self._tx() as conn:
            conn.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
            conn.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))


@contextmanager
def _store_errors(db_path: Path) -> Iterator[None]:
    try:
        yield
    except sqlite3.Error as exc:
        raise StoreError(
            f"Cannot write the library catalog {db_path}: {exc}",
            "check free disk space and permissions; the library is left as it was",
        ) from exc
