"""SQLite schema of the catalog and the row <-> domain mapping.

One database holds the documents, their chunks and the FTS5 (BM25) index over the chunks, so the
catalog and the sparse index always change in the same transaction.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from desktop_rag.domain import Chunk, DocKind, DocStatus, Document, LineBox
from desktop_rag.store.keyword_marks import MARKS_SQL
from desktop_rag.store.migrations import migrate
from desktop_rag.store.sparse import FTS_TABLE

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY, path TEXT NOT NULL, title TEXT NOT NULL, kind TEXT NOT NULL,
    sha256 TEXT NOT NULL, size INTEGER NOT NULL, mtime REAL NOT NULL, pages INTEGER NOT NULL,
    chunks INTEGER NOT NULL, status TEXT NOT NULL, error TEXT, ingested_at TEXT,
    is_core INTEGER NOT NULL DEFAULT 0, stated_title TEXT, title_by_user INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS documents_path ON documents(path);
CREATE INDEX IF NOT EXISTS documents_sha ON documents(sha256);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY, chunk_id TEXT NOT NULL UNIQUE,
    doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL, text TEXT NOT NULL, pages TEXT NOT NULL,
    char_start INTEGER NOT NULL, char_end INTEGER NOT NULL, bboxes TEXT NOT NULL,
    heading TEXT NOT NULL, token_count INTEGER NOT NULL, text_sha TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id, ordinal);
CREATE INDEX IF NOT EXISTS chunks_text_sha ON chunks(text_sha);
CREATE TABLE IF NOT EXISTS followed_folders (path TEXT PRIMARY KEY, added_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS removed_files (path TEXT PRIMARY KEY, removed_at TEXT NOT NULL);
-- the table pass (store.table_steps): documents whose table pages wait for it, and vectors
-- that no chunk may own any more (deleted after a swap, or after a crash by recovery)
CREATE TABLE IF NOT EXISTS table_queue (
    doc_id TEXT PRIMARY KEY REFERENCES documents(doc_id) ON DELETE CASCADE, pages TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS vector_outbox (chunk_id TEXT PRIMARY KEY);
-- what each PDF's pages were queued for ("tables-2,pictures-1"): a sync queues the pages of
-- those read before a reader existed or changed (ingest/catch_up.py)
CREATE TABLE IF NOT EXISTS reader_marks (
    doc_id TEXT PRIMARY KEY REFERENCES documents(doc_id) ON DELETE CASCADE, mark TEXT NOT NULL
);
""" + FTS_TABLE + MARKS_SQL  # the BM25 table (store.sparse), re-indexed when its layout changes
# (migrations), and the revisions the persisted keyword index follows (store.keyword_marks)

DOC_COLUMNS = (
    "doc_id, path, title, kind, sha256, size, mtime, pages, chunks, status, error, ingested_at, "
    "is_core, stated_title, title_by_user"
)
DOC_COLUMN_COUNT = DOC_COLUMNS.count(",") + 1
# A chunk's neighbours are the rows next to it in its document's order (after a table pass the
# ids of a document's chunks no longer follow their ordinals).
CHUNK_COLUMNS = (
    "c.chunk_id, c.doc_id, d.path, d.title, d.kind, c.text, c.ordinal, c.pages, c.char_start, "
    "c.char_end, c.bboxes, c.heading, c.token_count, "
    "(SELECT p.chunk_id FROM chunks p WHERE p.doc_id = c.doc_id AND p.ordinal = c.ordinal - 1), "
    "(SELECT n.chunk_id FROM chunks n WHERE n.doc_id = c.doc_id AND n.ordinal = c.ordinal + 1)"
)


def connect(db_path: Path) -> sqlite3.Connection:
    db_path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(db_path, isolation_level=None, check_same_thread=False, timeout=10.0)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.executescript(SCHEMA)
    migrate(conn)
    conn.execute(
        "INSERT OR IGNORE INTO meta(key, value) VALUES('schema_version', ?)", (str(SCHEMA_VERSION),)
    )
    return conn


def row_to_document(row: sqlite3.Row | tuple[object, ...]) -> Document:
    (doc_id, path, title, kind, sha, size, mtime, pages, chunks, status, error, at, core, stated,
     by_user) = row
    return Document(
        str(doc_id), str(path), str(title), DocKind(str(kind)), str(sha), int(str(size)),
        float(str(mtime)), int(str(pages)), int(str(chunks)), DocStatus(str(status)),
        None if error is None else str(error), None if at is None else str(at), bool(core),
        None if stated is None else str(stated), bool(by_user),
    )


def chunk_id(doc_id: str, ordinal: int) -> str:
    return f"{doc_id}:{ordinal:05d}"


def doc_of_chunk(chunk_id: str) -> str:
    """The document of a chunk id: every id is "<doc id>:<ordinal>" (the table pass's too,
    "<doc id>:t<ordinal>"), so a ranking can be grouped by document before any chunk is read."""
    return chunk_id.rpartition(":")[0]


def row_to_chunk(row: tuple[object, ...]) -> Chunk:
    (cid, doc_id, path, title, kind, text, ordinal, pages, start, end, boxes, heading, tokens,
     before, after) = row
    return Chunk(
        chunk_id=str(cid), doc_id=str(doc_id), path=str(path), title=str(title),
        kind=DocKind(str(kind)), text=str(text), ordinal=int(str(ordinal)),
        pages=tuple(json.loads(str(pages))), char_span=(int(str(start)), int(str(end))),
        bboxes=decode_boxes(str(boxes)), heading_path=tuple(json.loads(str(heading))),
        prev_id=None if before is None else str(before),
        next_id=None if after is None else str(after), token_count=int(str(tokens)),
    )


def encode_boxes(boxes: tuple[LineBox, ...]) -> str:
    rows = [
        [b.page, round(b.x0, 2), round(b.y0, 2), round(b.x1, 2), round(b.y1, 2), b.start, b.end]
        for b in boxes
    ]
    return json.dumps(rows, separators=(",", ":"))


def decode_boxes(text: str) -> tuple[LineBox, ...]:
    """Rows of 7 (with the line's span in the chunk text) or of 5 (older libraries)."""
    return tuple(_box(row) for row in json.loads(text))


def _box(row: list[float]) -> LineBox:
    page, x0, y0, x1, y1 = row[:5]
    start, end = (int(row[5]), int(row[6])) if len(row) >= 7 else (-1, -1)
    return LineBox(int(page), x0, y0, x1, y1, start, end)


INSERT_CHUNK = (
    "INSERT INTO chunks(chunk_id, doc_id, ordinal, text, pages, char_start, char_end, bboxes,"
    " heading, token_count, text_sha) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def chunk_params(chunk: Chunk, text_sha: str) -> tuple[object, ...]:
    return (
        chunk.chunk_id, chunk.doc_id, chunk.ordinal, chunk.text, json.dumps(list(chunk.pages)),
        chunk.char_span[0], chunk.char_span[1], encode_boxes(chunk.bboxes),
        json.dumps(list(chunk.heading_path), ensure_ascii=False), chunk.token_count, text_sha,
    )


def document_params(doc: Document) -> tuple[object, ...]:
    return (
        doc.doc_id, doc.path, doc.title, doc.kind.value, doc.sha256, doc.size, doc.mtime,
        doc.pages, doc.chunks, doc.status.value, doc.error, doc.ingested_at, int(doc.is_core),
        doc.stated_title, int(doc.title_by_user),
    )
