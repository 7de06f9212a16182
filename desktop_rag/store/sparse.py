"""BM25 search over the catalog's FTS5 table (SQLite's own bm25(); nothing hand-written).

User text never reaches FTS5 as query syntax: words are extracted, stopwords dropped, and each
remaining word is quoted and OR-ed.
"""

from __future__ import annotations

import re
import sqlite3
import threading

from desktop_rag.domain import EVERYWHERE, DocScope

_WORD = re.compile(r"[^\W_]+", re.UNICODE)  # as FTS5's unicode61: "_" separates words
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
        self, query: str, k: int, scope: DocScope = EVERYWHERE
    ) -> list[tuple[str, float]]:
        expr = match_query(query)
        if expr is None or k <= 0 or scope.empty:
            return []
        clause, ids = _scope_clause(scope)
        sql = (
            "SELECT c.chunk_id, f.score FROM ("
            "  SELECT rowid, bm25(chunks_fts, ?, ?, ?) AS score FROM chunks_fts"
            f"  WHERE chunks_fts MATCH ?{clause} ORDER BY score LIMIT ?) AS f"
            " JOIN chunks c ON c.id = f.rowid JOIN documents d ON d.doc_id = c.doc_id"
            " WHERE d.status = 'indexed' ORDER BY f.score"
        )
        with self._lock:
            rows = self._conn.execute(sql, (*WEIGHTS, expr, *ids, k)).fetchall()
        return [(str(cid), -float(score)) for cid, score in rows]


def _scope_clause(scope: DocScope) -> tuple[str, list[str]]:
    """The rowid condition that keeps FTS5 inside `scope` (before its LIMIT), and its values."""
    if scope.included is not None:
        ids, negate = sorted(scope.included), ""
    elif scope.exclude:
        ids, negate = sorted(scope.exclude), "NOT "
    else:
        return "", []
    holes = ",".join("?" * len(ids))
    return f" AND rowid {negate}IN (SELECT id FROM chunks WHERE doc_id IN ({holes}))", ids
