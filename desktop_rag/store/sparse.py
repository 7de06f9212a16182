"""BM25 search over the catalog's FTS5 table (SQLite's own bm25(); nothing hand-written).

User text never reaches FTS5 as query syntax: words are extracted, stopwords dropped, and each
remaining word is quoted and OR-ed.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Collection

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 32
# Column weights for bm25(): chunk text, document title, heading path.
WEIGHTS = (1.0, 0.5, 0.75)

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not of off on once only or other our ours ourselves out over own
    same she should so some such than that the their theirs them themselves then there these they
    this those through to too under until up very was we were what when where which while who whom
    why will with would you your yours yourself yourselves""".split()  # noqa: SIM905
)


def words(text: str) -> list[str]:
    """The lower-cased words of `text`, as both BM25 indexes see them before stopwords go."""
    return [w.lower() for w in _WORD.findall(text)]


def match_query(text: str) -> str | None:
    """An FTS5 MATCH expression for `text`, or None when it has no searchable word."""
    found = words(text)
    kept = [w for w in found if w not in STOPWORDS] or found
    unique = list(dict.fromkeys(kept))[:MAX_TERMS]
    if not unique:
        return None
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in unique)


class FtsSparseIndex:
    """SparseIndex over the catalog database; returns chunks of indexed documents only."""

    def __init__(self, conn: sqlite3.Connection, lock: threading.RLock) -> None:
        self._conn = conn
        self._lock = lock

    def search(
        self, query: str, k: int, exclude_doc_ids: Collection[str] = ()
    ) -> list[tuple[str, float]]:
        expr = match_query(query)
        if expr is None or k <= 0:
            return []
        excluded = sorted(exclude_doc_ids)
        holes = ",".join("?" * len(excluded))
        sql = (
            "SELECT c.chunk_id, f.score FROM ("
            "  SELECT rowid, bm25(chunks_fts, ?, ?, ?) AS score FROM chunks_fts"
            "  WHERE chunks_fts MATCH ? ORDER BY score LIMIT ?) AS f"
            " JOIN chunks c ON c.id = f.rowid JOIN documents d ON d.doc_id = c.doc_id"
            " WHERE d.status = 'indexed'"
            + (f" AND d.doc_id NOT IN ({holes})" if excluded else "")
            + " ORDER BY f.score"
        )
        extra = self._excluded_chunks(excluded)
        params = (*WEIGHTS, expr, k + extra, *excluded)
        with self._lock:
            rows = self._conn.execute(sql, params).fetchall()
        return [(str(cid), -float(score)) for cid, score in rows[:k]]

    def _excluded_chunks(self, excluded: list[str]) -> int:
        if not excluded:
            return 0
        holes = ",".join("?" * len(excluded))
        with self._lock:
            row = self._conn.execute(
                f"SELECT COALESCE(SUM(chunks), 0) FROM documents WHERE doc_id IN ({holes})",
                excluded,
            ).fetchone()
        return int(row[0])
