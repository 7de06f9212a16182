"""The tokens of the keyword index: lower-cased words without stopwords, Snowball-stemmed, numbers
as FTS5 indexes them (store.sparse.query_words), each distinct stem interned."""

from __future__ import annotations

import sys

from desktop_rag.store.sparse import MAX_TERMS, query_words
from desktop_rag.text.words import STOPWORDS, stem_words, words


class Tokenizer:
    """Lower-cased words without stopwords, Snowball-stemmed (PyStemmer, one stemmer per
    thread: the index is built on a background thread while searches stem their queries)."""

    def __call__(self, text: str) -> list[str]:
        """Interned stems: a snapshot of 50,000 chunks holds millions of tokens but few distinct
        ones, so each distinct stem is kept once while the index is built."""
        return self._stems(words(text))

    def plain(self, text: str) -> list[str]:
        """As calling it, without interning (for an index that keeps term ids, not strings)."""
        return stem_words([w for w in words(text) if w not in STOPWORDS])

    def query(self, text: str) -> list[str]:
        """A query's stems, its numbers as FTS5 searches them (store.sparse.query_words)."""
        return list(dict.fromkeys(self._stems(query_words(text))))[:MAX_TERMS]

    def _stems(self, found: list[str]) -> list[str]:
        kept = [w for w in found if w not in STOPWORDS]
        return [sys.intern(w) for w in stem_words(kept)]
