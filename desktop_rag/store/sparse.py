"""BM25 search over the catalog's FTS5 table (SQLite's own bm25(); nothing hand-written).

User text never reaches FTS5 as query syntax: words are extracted, stopwords dropped, and each
remaining word is quoted and OR-ed.

Numbers are words too. FTS5's unicode61 tokenizer splits "4,180,339" into "4", "180" and "339",
so a question writing "4180339" (or "$4,180,339" next to a passage writing "4180339") finds
nothing, and "FY2015" is one word "fy2015" that "fiscal 2015" misses. So each row carries a
fourth column, `numbers`, holding the number tokens of its text (numbers.number_tokens) that the
tokenizer does not already make ("4180339", "2015" for "FY2015"), and a query's numbers are
searched as those tokens. The chunk's own text, which snippets, highlights and the exact
identifier list read, is stored as it was.
"""

from __future__ import annotations

import re
import sqlite3
import threading

from desktop_rag.domain import EVERYWHERE, DocScope
from desktop_rag.text.numbers import GROUPED_PATTERN, number_tokens
from desktop_rag.text.spelling import near
from desktop_rag.text.words import STOPWORDS, porter_stem, words

# A number with group separators, as number_tokens reads one ("4,180,339", "3,02,16,492", not
# "A1,234")
_GROUPED = re.compile(rf"(?<![^\W_])(?:{GROUPED_PATTERN})")
MAX_TERMS = 32
# Column weights for bm25(): chunk text, document title, heading path, number tokens.
WEIGHTS = (1.0, 0.5, 0.75, 1.0)
# The BM25 table. Its layout's version is kept in `meta` (key SPARSE_VERSION_KEY); a library
# with an older one is re-indexed from the catalog's chunks once (store.migrations).
SPARSE_VERSION = 2  # 1: text, title, heading; 2: + numbers
SPARSE_VERSION_KEY = "sparse_version"
FTS_TABLE = """CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    text, title, heading, numbers, tokenize = 'porter unicode61 remove_diacritics 2'
);"""
_INSERT = "INSERT INTO chunks_fts(rowid, text, title, heading, numbers) VALUES (?, ?, ?, ?, ?)"

def indexed_numbers(text: str) -> str:
    """The `numbers` column of a chunk: its number tokens that `words` does not already give
    ("4180339" for "$4,180,339", "2015" for "FY2015"). A plain "2015" is left out, being a word
    of the text already: counted twice, a year would outweigh the other words of a query."""
    have = set(words(text))
    return " ".join(t for t in number_tokens(text) if t not in have)


def query_words(text: str) -> list[str]:
    """The words both BM25 indexes search for `text` (before stopwords go): its words, with
    each grouped number one word ("4,180,339" is "4180339", not "4", "180", "339", which would
    match every page with a 4 on it), and the number tokens the words lack ("2015" for
    "FY2015"). Every writing of a number then meets every other: in the text or in `numbers`."""
    found = words(_GROUPED.sub(lambda m: m.group(0).replace(",", ""), text))
    have = set(found)
    return found + [t for t in dict.fromkeys(number_tokens(text)) if t not in have]


def index_chunks(conn: sqlite3.Connection, doc_id: str, title: str) -> None:
    """The BM25 rows of one document's chunks (inside the caller's write transaction): each
    chunk's text, the document's searchable title, its heading path and its number tokens."""
    sql = "SELECT id, text, heading FROM chunks WHERE doc_id = ?"
    rows = conn.execute(sql, (doc_id,)).fetchall()
    conn.executemany(
        _INSERT,
        [(rowid, text, title, heading, indexed_numbers(text)) for rowid, text, heading in rows],
    )


def match_query(text: str) -> str | None:
    """An FTS5 MATCH expression for `text`, or None when it has no searchable word."""
    found = query_words(text)
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
            "  SELECT rowid, bm25(chunks_fts, ?, ?, ?, ?) AS score FROM chunks_fts"
            f"  WHERE chunks_fts MATCH ?{clause} ORDER BY score LIMIT ?) AS f"
            " JOIN chunks c ON c.id = f.rowid JOIN documents d ON d.doc_id = c.doc_id"
            " WHERE d.status = 'indexed' ORDER BY f.score"
        )
        with self._lock:
            rows = self._conn.execute(sql, (*WEIGHTS, expr, *ids, k)).fetchall()
        return [(str(cid), -float(score)) for cid, score in rows]

    def mentions(
        self, found: tuple[str, ...], scope: DocScope = EVERYWHERE, exact: bool = False
    ) -> bool:
        """Whether the indexed documents in `scope` hold every word of `found` (words as
        `words` gives them, stemmed as the index stems), each somewhere, or, for a word of
        five letters or more, a word its stem begins ("Europe": "European"), a word one typo
        away ("Americen" for "American") or two words run together ("Liabilitiesfor").
        `exact` keeps to the words themselves: "green" is not in "greenhouse"."""
        if not found or scope.empty:
            return False
        if exact:
            return all(self._matches(w, scope) for w in found)
        return all(self._holds(w, scope) for w in found)

    def documents_mentioning(
        self, found: tuple[str, ...], scope: DocScope = EVERYWHERE
    ) -> set[str]:
        """The indexed documents in `scope` that hold every word of `found` themselves (as
        `mentions` with `exact`): where a name the chosen documents lack can be found."""
        holders: set[str] | None = None
        for word in found:
            with self._lock:
                rows = self._in_scope("DISTINCT c.doc_id", word, scope).fetchall()
            docs = {str(doc_id) for (doc_id,) in rows}
            holders = docs if holders is None else holders & docs
            if not holders:
                break
        return holders or set()

    def _holds(self, word: str, scope: DocScope) -> bool:
        """A word, or one ending in "*" as a prefix ("oct*"); a word of five letters or more
        also as its stem's beginning ("Europe" in "European") or one typo away."""
        if self._matches(word, scope):
            return True
        if word.endswith("*") or len(word) < NEAR_MIN:
            return False
        stem = porter_stem(word)
        if len(stem) >= NEAR_MIN and self._matches(stem + "*", scope):
            return True
        if any(self._matches(other, scope) for other in self._near_terms(word, stem)):
            return True
        return any(
            all(part in STOPWORDS or self._matches(part, scope) for part in pair)
            for pair in _run_together(word)
        )

    def _matches(self, word: str, scope: DocScope) -> bool:
        with self._lock:
            return self._in_scope("1", word, scope, " LIMIT 1").fetchone() is not None

    def _in_scope(self, columns: str, word: str, scope: DocScope, tail: str = "") -> sqlite3.Cursor:
        """`columns` of the indexed chunks in `scope` holding `word` (the caller holds the
        lock)."""
        clause, ids = _scope_clause(scope)
        sql = (
            f"SELECT {columns} FROM (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?"
            f"{clause}) AS f JOIN chunks c ON c.id = f.rowid JOIN documents d ON d.doc_id = "
            f"c.doc_id WHERE d.status = 'indexed'{tail}"
        )
        return self._conn.execute(sql, (_quoted(word), *ids))

    def _near_terms(self, word: str, stem: str) -> list[str]:
        """The index's terms one typo from `word` that begin with its letter (FTS5's own
        vocabulary, stems as its porter tokenizer makes them)."""
        with self._lock:
            self._conn.execute(_VOCAB)
            rows = self._conn.execute(
                "SELECT term FROM temp.chunks_vocab WHERE term >= ? AND term < ?",
                (word[0], chr(ord(word[0]) + 1)),
            ).fetchall()
        return [str(t) for (t,) in rows if near(word, str(t)) or near(stem, str(t))]


def _run_together(word: str) -> list[tuple[str, str]]:
    """Two words typed without the space between ("liabilitiesfor"): each split whose left part
    has three letters or more and whose right part too, or is a stopword ("for")."""
    return [(word[:i], word[i:]) for i in range(3, len(word) - 1)
            if len(word) - i >= 3 or word[i:] in STOPWORDS]  # fmt: skip


def _quoted(word: str) -> str:
    """One word as an FTS5 string; "oct*" as a prefix query."""
    prefix = word.endswith("*")
    quoted = '"' + word.rstrip("*").replace('"', '""') + '"'
    return quoted + "*" if prefix else quoted


NEAR_MIN = 5  # shorter words one letter apart are other words ("cars", "care")
_VOCAB = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocab USING fts5vocab(main, chunks_fts, row)"
)


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
