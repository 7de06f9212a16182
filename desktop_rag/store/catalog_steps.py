"""The SQL steps the catalog's write transactions are made of (each runs inside one), and the
title the keyword index sees."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import replace
from pathlib import Path

from desktop_rag.domain import DocStatus, Document


def searchable_title(title: str, path: str) -> str:
    """The title as the keyword index sees it: with the file's name when the title does not
    already say it ("0000320187-21-000028" for NIKE_2021_10K.pdf), since people search for a
    file by what they called it."""
    named = re.split(r"[\W_]+", Path(path).stem.lower())
    have = set(re.split(r"[\W_]+", title.lower()))
    extra = [w for w in named if w and w not in have]
    return f"{title} {' '.join(extra)}" if extra else title


def holes(n: int) -> str:
    return ",".join("?" * n)


def with_status(doc: Document, status: DocStatus, chunks: int) -> Document:
    return replace(doc, status=status, chunks=chunks)


def drop_unindexed(conn: sqlite3.Connection, doc_id: str) -> None:
    """Clears a leftover pending/failed row of the same id (never an indexed one)."""
    row = conn.execute("SELECT status FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
    if row is not None and row[0] in ("indexed", "removing"):
        raise ValueError(f"document {doc_id} is {row[0]}; remove it before adding it again")
    conn.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
    conn.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))


def begin_remove(conn: sqlite3.Connection, doc_id: str) -> None:
    row = conn.execute("SELECT status FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
    if row is None:
        return
    if row[0] == "indexed":
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
