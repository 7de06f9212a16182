"""Brings a catalog made by an older version up to the current schema, once, when it is opened.

New tables come with `CREATE TABLE IF NOT EXISTS` in the schema itself (`followed_folders` was
added that way); new columns of an existing table need `ALTER TABLE`, done here in one write
transaction, so that two processes opening the same old library do it only once.
"""

from __future__ import annotations

import sqlite3

from desktop_rag.store.titles import file_stem, shown_title

# Columns added to `documents` after its first release: name -> declaration.
DOCUMENT_COLUMNS_ADDED = {
    "stated_title": "TEXT",
    "title_by_user": "INTEGER NOT NULL DEFAULT 0",
}


def migrate(conn: sqlite3.Connection) -> None:
    """Adds the missing columns (a no-op for a current catalog, without taking a write lock)."""
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

