"""The SQL steps the catalog's write transactions are made of (each runs inside one), and the
title the keyword index sees."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import replace
from pathlib import Path

from desktop_rag.domain import DocStatus, Document


def searchable_title(title: str, path: str, stated: str | None = None) -> str:
    """The title as the keyword index sees it: the shown title; the file's own (metadata) title
    when another is shown (the accession number behind "NIKE 2021 10K", the paper's title behind
    a user's rename), so that it is still found; and the words of the file's name the titles do
    not already say, since people search for a file by what they called it."""
    titles = title if not stated or stated == title else f"{title} {stated}"
    named = re.split(r"[\W_]+", Path(path).stem.lower())
    have = set(re.split(r"[\W_]+", titles.lower()))
    extra = [w for w in named if w and w not in have]
    return f"{titles} {' '.join(extra)}" if extra else titles


def index_title(conn: sqlite3.Connection, doc_id: str) -> str:
    """searchable_title of a document as it is stored now."""
    title, stated, path = conn.execute(
        "SELECT title, stated_title, path FROM documents WHERE doc_id = ?", (doc_id,)
    ).fetchone()
    return searchable_title(str(title), str(path), None if stated is None else str(stated))


def reindex_title(conn: sqlite3.Connection, doc_id: str) -> None:
    """The keyword index's title rows of a document follow its stored title."""
    conn.execute(
        "UPDATE chunks_fts SET title = ? WHERE rowid IN (SELECT id FROM chunks WHERE doc_id = ?)",
        (index_title(conn, doc_id), doc_id),
    )


def keep_user_title(conn: sqlite3.Connection, doc_id: str) -> None:
    """A new version of a file the user gave a title to keeps that title (the versions share
    the path; the older one is about to be superseded)."""
    row = conn.execute(
        "SELECT o.title FROM documents d JOIN documents o ON o.path = d.path"
        " AND o.doc_id != d.doc_id WHERE d.doc_id = ? AND d.title_by_user = 0"
        " AND o.title_by_user = 1 ORDER BY o.status = 'indexed' DESC LIMIT 1",
        (doc_id,),
    ).fetchone()
    if row is not None:
        conn.execute(
            "UPDATE documents SET title = ?, title_by_user = 1 WHERE doc_id = ?", (row[0], doc_id)
        )


def holes(n: int) -> str:
    return ",".join("?" * n)


def with_status(doc: Document, status: DocStatus, chunks: int) -> Document:
    return replace(doc, status=status, chunks=chunks)


def drop_unindexed(conn: sqlite3.Connection, doc_id: str) -> None:
    """Clears a leftover pending/failed row of the same id (never an indexed one)."""
    row = conn.execute("SELECT status FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
    if row is not None and row[0] in (DocStatus.INDEXED, DocStatus.REMOVING):
        raise ValueError(f"document {doc_id} is {row[0]}; remove it before adding it again")
    conn.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
    conn.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))


def begin_remove(conn: sqlite3.Connection, doc_id: str) -> None:
    row = conn.execute("SELECT status FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
    if row is None:
        return
    if row[0] == DocStatus.INDEXED:
        conn.execute(
            "DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE doc_id = ?)",
            (doc_id,),
        )
    conn.execute("UPDATE documents SET status = 'removing' WHERE doc_id = ?", (doc_id,))


def supersede(conn: sqlite3.Connection, doc_id: str) -> list[str]:
    rows = conn.execute(
        "SELECT doc_id FROM documents WHERE path = (SELECT path FROM documents WHERE doc_id = ?)"
        " AND doc_id != ?",
        (doc_id, doc_id),
    ).fetchall()
    old = [str(r[0]) for r in rows]
    for other in old:
        begin_remove(conn, other)
    return old
