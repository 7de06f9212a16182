"""Section summaries and final summaries, kept in the data folder (`summaries.sqlite3`).

Reading a long document costs minutes on a CPU; its section summaries do not change while its
text, the model and the prompt stay the same. So each is kept under those three: the section's
content hash (of the very text the model read), the model's identity and the prompt version;
a second summary of the same document reads none of it again. A final summary is kept too,
under its sections' hashes and the request (its format and words), so that the same question
asked again answers at once; another format is written anew from the kept sections.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS section_summaries (
    section_sha TEXT NOT NULL, model TEXT NOT NULL, prompt_version TEXT NOT NULL,
    doc_sha TEXT NOT NULL, pages TEXT NOT NULL, summary TEXT NOT NULL,
    created TEXT NOT NULL DEFAULT (datetime('now')),
    PRIMARY KEY (section_sha, model, prompt_version));
CREATE TABLE IF NOT EXISTS final_summaries (
    request_sha TEXT NOT NULL, model TEXT NOT NULL, prompt_version TEXT NOT NULL,
    summary TEXT NOT NULL, created TEXT NOT NULL DEFAULT (datetime('now')),
    PRIMARY KEY (request_sha, model, prompt_version));
"""


@dataclass(frozen=True, slots=True)
class Identity:
    """What a kept summary depends on besides its text: the model and the prompt."""

    model: str
    prompt_version: str


class SummaryStore:
    """A small SQLite file; each call opens its own connection, so any thread may use it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._db() as db:
            db.executescript(_SCHEMA)

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        with self._lock, closing(sqlite3.connect(self.path, timeout=10)) as db, db:
            yield db

    def section(self, section_sha: str, who: Identity) -> str | None:
        with self._db() as db:
            row = db.execute(
                "SELECT summary FROM section_summaries WHERE section_sha=? AND model=? AND "
                "prompt_version=?", (section_sha, who.model, who.prompt_version),
            ).fetchone()  # fmt: skip
        return None if row is None else str(row[0])

    def put_section(
        self, section_sha: str, who: Identity, doc_sha: str, pages: str, summary: str
    ) -> None:
        with self._db() as db:
            db.execute(
                "INSERT OR REPLACE INTO section_summaries (section_sha, model, prompt_version, "
                "doc_sha, pages, summary) VALUES (?, ?, ?, ?, ?, ?)",
                (section_sha, who.model, who.prompt_version, doc_sha, pages, summary),
            )

    def final(self, request_sha: str, who: Identity) -> str | None:
        with self._db() as db:
            row = db.execute(
                "SELECT summary FROM final_summaries WHERE request_sha=? AND model=? AND "
                "prompt_version=?", (request_sha, who.model, who.prompt_version),
            ).fetchone()  # fmt: skip
        return None if row is None else str(row[0])

    def put_final(self, request_sha: str, who: Identity, summary: str) -> None:
        with self._db() as db:
            db.execute(
                "INSERT OR REPLACE INTO final_summaries (request_sha, model, prompt_version, "
                "summary) VALUES (?, ?, ?, ?)", (request_sha, who.model, who.prompt_version,
                                                 summary),
            )  # fmt: skip

    def sections_kept(self, who: Identity) -> int:
        with self._db() as db:
            row = db.execute(
                "SELECT count(*) FROM section_summaries WHERE model=? AND prompt_version=?",
                (who.model, who.prompt_version),
            ).fetchone()
        return int(row[0])
