"""A revision number per document that changes whenever what the keyword index holds for it may
have changed, kept by SQLite triggers so that no write path can forget it.

The persisted keyword index (store/keyword_index.py) records the revision of each document it
indexed; a document whose revision differs (or that is gone) is masked out of its segment and
indexed again, and nothing else is touched. A document's keyword rows change only with its
status (indexed on finalize, removing on removal), its chunks (the table pass's swap updates
`chunks`) and the words of its title (title, stated title, path): every write of those columns
fires the trigger, even one that writes the same value. Revisions come from one counter in
`meta` that only grows, so a document removed and added again never gets an old number back.
"""

from __future__ import annotations

import sqlite3

_NEXT = (
    "INSERT INTO meta(key, value) VALUES('keyword_rev', '1') ON CONFLICT(key)"
    " DO UPDATE SET value = CAST(value AS INTEGER) + 1;"
    " INSERT OR REPLACE INTO keyword_marks(doc_id, rev)"
    " SELECT NEW.doc_id, CAST(value AS INTEGER) FROM meta WHERE key = 'keyword_rev';"
)

MARKS_SQL = f"""
CREATE TABLE IF NOT EXISTS keyword_marks (doc_id TEXT PRIMARY KEY, rev INTEGER NOT NULL);
CREATE TRIGGER IF NOT EXISTS keyword_mark_new AFTER INSERT ON documents BEGIN {_NEXT} END;
CREATE TRIGGER IF NOT EXISTS keyword_mark_changed
    AFTER UPDATE OF status, chunks, title, stated_title, path ON documents BEGIN {_NEXT} END;
CREATE TRIGGER IF NOT EXISTS keyword_mark_gone AFTER DELETE ON documents BEGIN
    DELETE FROM keyword_marks WHERE doc_id = OLD.doc_id; END;
"""


def indexed_revisions(conn: sqlite3.Connection) -> dict[str, int]:
    """Indexed document -> its revision (0: last written before the triggers existed)."""
    rows = conn.execute(
        "SELECT d.doc_id, COALESCE(m.rev, 0) FROM documents d"
        " LEFT JOIN keyword_marks m ON m.doc_id = d.doc_id WHERE d.status = 'indexed'"
    ).fetchall()
    return {str(doc_id): int(rev) for doc_id, rev in rows}
