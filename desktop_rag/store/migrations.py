"""Brings a catalog made by an older version up to the current schema, once, when it is opened.

New tables come with `CREATE TABLE IF NOT EXISTS` in the schema itself (`followed_folders` was
added that way); new columns of an existing table need `ALTER TABLE`, done here in one write
transaction, so that two processes opening the same old library do it only once.

The BM25 table is re-indexed the same way when its layout changes (store.sparse.SPARSE_VERSION):
FTS5 tables take no new columns, so it is made again and filled from the chunks the catalog
already holds, without reading a file or embedding a chunk again.
"""

from __future__ import annotations

import logging
import sqlite3
import time

from desktop_rag.store.catalog_steps import index_title
from desktop_rag.store.sparse import FTS_TABLE, SPARSE_VERSION, SPARSE_VERSION_KEY, index_chunks
from desktop_rag.store.switch_state import create_tables as create_switch_tables
from desktop_rag.store.titles import file_stem, shown_title

log = logging.getLogger(__name__)

# Columns added to `documents` after its first release: name -> declaration.
DOCUMENT_COLUMNS_ADDED = {
    "stated_title": "TEXT",
    "title_by_user": "INTEGER NOT NULL DEFAULT 0",
}


def migrate(conn: sqlite3.Connection) -> None:
    """Brings an older catalog up to date (a no-op for a current one, without a write lock)."""
    create_switch_tables(conn)  # an embedder switch's state (store/switch_state.py)
    add_columns(conn)
    reindex_sparse(conn)


def add_columns(conn: sqlite3.Connection) -> None:
    """Adds the missing columns of `documents`."""
    if not _missing_columns(conn):
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        missing = _missing_columns(conn)  # another process may have just done it
        for name in missing:
            conn.execute(f"ALTER TABLE documents ADD COLUMN {name} {DOCUMENT_COLUMNS_ADDED[name]}")
        if "stated_title" in missing:
            retitle(conn)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def retitle(conn: sqlite3.Connection) -> None:
    """Readable titles for the documents of an older library at once, without reading their
    files again. Its PDFs showed their metadata title, or the file's stem when it had none
    fit to show: the metadata title is kept as the stated title (searchable after a rename),
    and one that is an identifier (an SEC accession number, a hash) gives way to the file's
    name. The keyword index needs no change: it already holds the old title and the file
    name's words."""
    rows = conn.execute(
        "SELECT doc_id, path, title FROM documents WHERE kind IN ('pdf', 'other')"
    ).fetchall()
    for doc_id, path, title in rows:
        stated = None if title == file_stem(str(path)) else str(title)
        conn.execute(
            "UPDATE documents SET title = ?, stated_title = ? WHERE doc_id = ?",
            (shown_title(str(title), str(path)), stated, doc_id),
        )


def _missing_columns(conn: sqlite3.Connection) -> list[str]:
    have = {str(row[1]) for row in conn.execute("PRAGMA table_info(documents)")}
    return [name for name in DOCUMENT_COLUMNS_ADDED if name not in have]


_SET_VERSION = "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = ?"
_BUMP_GENERATION = (  # as every catalog write does: cached views (the BM25 snapshot) rebuild
    "INSERT INTO meta(key, value) VALUES('generation', '1') ON CONFLICT(key)"
    " DO UPDATE SET value = CAST(value AS INTEGER) + 1"
)


def reindex_sparse(conn: sqlite3.Connection) -> None:
    """Makes the BM25 table again in the current layout and fills it from the catalog's chunks
    of indexed documents (the only ones it holds rows for), when it was made in an older layout
    (a library from before number tokens); once, logged. A new library's empty table is made
    again too, unseen: it has no version stamped yet."""
    if _sparse_version(conn) == SPARSE_VERSION:
        return
    start = time.perf_counter()
    conn.execute("BEGIN IMMEDIATE")
    try:
        if _sparse_version(conn) == SPARSE_VERSION:  # another process has just done it
            conn.execute("ROLLBACK")
            return
        before = int(conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0])
        docs = _refill(conn)
        version = str(SPARSE_VERSION)
        conn.execute(_SET_VERSION, (SPARSE_VERSION_KEY, version, version))
        conn.execute(_BUMP_GENERATION)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    if before:
        log.info("keyword index rebuilt for number search: %d chunks of %d documents in %.1f s",
                 before, docs, time.perf_counter() - start)  # fmt: skip


def _refill(conn: sqlite3.Connection) -> int:
    """The BM25 table dropped, made in the current layout and filled; returns the documents."""
    conn.execute("DROP TABLE IF EXISTS chunks_fts")
    conn.execute(FTS_TABLE)
    rows = conn.execute("SELECT doc_id FROM documents WHERE status = 'indexed'").fetchall()
    for (doc_id,) in rows:
        index_chunks(conn, str(doc_id), index_title(conn, str(doc_id)))
    return len(rows)


def _sparse_version(conn: sqlite3.Connection) -> int:
    """The BM25 table's layout version; 1 (the first) when none was stamped."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (SPARSE_VERSION_KEY,)).fetchone()
    return 1 if row is None else int(str(row[0]))
