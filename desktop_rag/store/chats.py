"""Chats, their messages, the citations of each answer and its checked calculations, in SQLite
(paths.chats_db)."""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from desktop_rag.domain import Answer, CheckedCalculation
from desktop_rag.domain.errors import NotFoundError

SCHEMA = """
CREATE TABLE IF NOT EXISTS chats (
    chat_id TEXT PRIMARY KEY, title TEXT NOT NULL, created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS messages (
    message_id INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id TEXT NOT NULL REFERENCES chats(chat_id) ON DELETE CASCADE,
    role TEXT NOT NULL, content TEXT NOT NULL, query TEXT, refused INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL, calculations TEXT NOT NULL DEFAULT '[]');
CREATE TABLE IF NOT EXISTS citations (
    message_id INTEGER NOT NULL REFERENCES messages(message_id) ON DELETE CASCADE,
    n INTEGER NOT NULL, chunk_id TEXT NOT NULL, doc_id TEXT NOT NULL, path TEXT NOT NULL,
    title TEXT NOT NULL, page INTEGER, char_span TEXT NOT NULL, support REAL NOT NULL,
    inferred INTEGER NOT NULL DEFAULT 0, evidence TEXT NOT NULL DEFAULT '[]');
CREATE INDEX IF NOT EXISTS messages_by_chat ON messages(chat_id, message_id);
"""


_CITATION_COLUMNS = (
    "n, chunk_id, doc_id, path, title, page, char_span, support, inferred, evidence"
)


@dataclass(frozen=True, slots=True)
class ChatSummary:
    chat_id: str
    title: str
    created_at: str
    updated_at: str
    messages: int


TurnRole = Literal["user", "assistant"]


@dataclass(frozen=True, slots=True)
class ChatTurn:
    role: TurnRole
    content: str
    created_at: str
    query: str | None = None  # the standalone retrieval query of a user turn
    refused: bool = False
    citations: list[dict[str, Any]] = field(default_factory=list)
    calculations: tuple[CheckedCalculation, ...] = ()  # of an assistant turn, as checked then


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class ChatStore:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False)
        self._lock = threading.Lock()
        self._db.execute("PRAGMA foreign_keys = ON")
        self._db.executescript(SCHEMA)
        self._migrate()

    def _migrate(self) -> None:
        """Chat files written before citations recorded `inferred` or their evidence, or before
        answers kept their calculations, gain the columns (not inferred, no evidence: a click
        then shows the whole passage; no calculations: the answer's text is shown as it was)."""
        added = {
            "citations": {"inferred": "INTEGER NOT NULL DEFAULT 0",
                          "evidence": "TEXT NOT NULL DEFAULT '[]'"},
            "messages": {"calculations": "TEXT NOT NULL DEFAULT '[]'"},
        }  # fmt: skip
        with self._db:
            for table, wanted in added.items():
                columns = {row[1] for row in self._db.execute(f"PRAGMA table_info({table})")}
                for name, kind in wanted.items():
                    if name not in columns:
                        self._db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")

    def new_chat(self, title: str = "New chat") -> str:
        chat_id = uuid.uuid4().hex[:12]
        with self._lock, self._db:
            self._db.execute(
                "INSERT INTO chats VALUES (?, ?, ?, ?)", (chat_id, title, _now(), _now())
            )
        return chat_id

    def exists(self, chat_id: str) -> bool:
        with self._lock:
            row = self._db.execute("SELECT 1 FROM chats WHERE chat_id = ?", (chat_id,)).fetchone()
        return row is not None

    def require(self, chat_id: str) -> None:
        if not self.exists(chat_id):
            raise NotFoundError(
                f"No chat with id {chat_id}", "list chats in the GUI or start a new one"
            )

    def list_chats(self) -> list[ChatSummary]:
        with self._lock:
            rows = self._db.execute(
                "SELECT c.chat_id, c.title, c.created_at, c.updated_at, COUNT(m.message_id) "
                "FROM chats c LEFT JOIN messages m ON m.chat_id = c.chat_id "
                "GROUP BY c.chat_id ORDER BY c.updated_at DESC, c.rowid DESC"
            ).fetchall()
        return [ChatSummary(*row) for row in rows]

    def history(self, chat_id: str) -> list[ChatTurn]:
        self.require(chat_id)
        with self._lock:
            rows = self._db.execute(
                "SELECT message_id, role, content, created_at, query, refused, calculations "
                "FROM messages WHERE chat_id = ? ORDER BY message_id",
                (chat_id,),
            ).fetchall()
            return [
                ChatTurn(role, content, at, query, bool(refused), self._citations(mid),
                         _calculations(calculations))
                for mid, role, content, at, query, refused, calculations in rows
            ]  # fmt: skip

    def _citations(self, message_id: int) -> list[dict[str, Any]]:
        rows = self._db.execute(
            f"SELECT {_CITATION_COLUMNS} FROM citations WHERE message_id = ? ORDER BY n",
            (message_id,),
        ).fetchall()
        keys = _CITATION_COLUMNS.split(", ")
        cited = [dict(zip(keys, r, strict=True)) for r in rows]
        return [{**c, "char_span": json.loads(c["char_span"]), "inferred": bool(c["inferred"]),
                 "evidence": json.loads(c["evidence"])} for c in cited]  # fmt: skip

    def add_exchange(self, chat_id: str, query: str, answer: Answer) -> None:
        """Stores a question (with its standalone query) and its answer with citations."""
        with self._lock, self._db:
            self._insert(chat_id, "user", answer.question, query, False)
            mid = self._insert(chat_id, "assistant", answer.answer, None, answer.refused,
                               answer.calculations)
            self._db.executemany(
                f"INSERT INTO citations (message_id, {_CITATION_COLUMNS})"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [_citation_row(mid, c) for c in answer.citations],
            )
            self._touch(chat_id, answer.question)

    def _insert(
        self, chat_id: str, role: TurnRole, text: str, query: str | None, refused: bool,
        calculations: tuple[CheckedCalculation, ...] = (),
    ) -> int:
        records = json.dumps([c.to_record() for c in calculations], ensure_ascii=False)
        cursor = self._db.execute(
            "INSERT INTO messages (chat_id, role, content, query, refused, created_at, "
            "calculations) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (chat_id, role, text, query, int(refused), _now(), records),
        )
        return int(cursor.lastrowid or 0)

    def _touch(self, chat_id: str, question: str) -> None:
        self._db.execute(
            "UPDATE chats SET updated_at = ?, title = CASE WHEN title = 'New chat' THEN ? "
            "ELSE title END WHERE chat_id = ?",
            (_now(), question.strip()[:80] or "New chat", chat_id),
        )

    def delete_chat(self, chat_id: str) -> None:
        self.require(chat_id)
        with self._lock, self._db:
            self._db.execute("DELETE FROM chats WHERE chat_id = ?", (chat_id,))

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _calculations(stored: str) -> tuple[CheckedCalculation, ...]:
    """The calculations kept with a message (the JSON of their records)."""
    return tuple(CheckedCalculation.from_record(r) for r in json.loads(stored or "[]"))


def _citation_row(message_id: int, citation: Any) -> tuple[Any, ...]:
    chunk = citation.chunk
    return (
        message_id,
        citation.n,
        chunk.chunk_id,
        chunk.doc_id,
        chunk.path,
        chunk.title,
        citation.page,
        json.dumps(list(chunk.char_span)),
        citation.support,
        int(citation.inferred),
        json.dumps([e.to_record() for e in citation.evidence], ensure_ascii=False),
    )

