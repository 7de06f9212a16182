"""The evidence gate: says when retrieval found nothing worth answering from.

Two independent signals, so that either kind of match counts as evidence:
- semantic: the best cosine similarity the dense retriever saw (MiniLM scores unrelated text
  around 0.0-0.2 and paraphrases of the same statement well above 0.3);
- lexical: the share of the query's content words that the best candidates contain, which keeps
  exact identifiers ("XK-4471-B") that dense retrieval scores low from being called weak.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from desktop_rag.text.words import STOPWORDS  # the words BM25 ignores, so both agree

_TERM = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class EvidenceGate:
    min_similarity: float = 0.30
    min_term_coverage: float = 0.60

    def insufficient(self, best_similarity: float | None, coverage: float | None) -> bool:
        """Weak when no signal that was measured reaches its threshold."""
        semantic = best_similarity is not None and best_similarity >= self.min_similarity
        lexical = coverage is not None and coverage >= self.min_term_coverage
        return not (semantic or lexical)


def content_terms(text: str) -> set[str]:
    return {t for t in _TERM.findall(text.lower()) if t not in STOPWORDS and len(t) > 1}


def term_coverage(query: str, texts: Iterable[str]) -> float:
    """Best share of the query's content terms found in any one of `texts` (0 when none)."""
    terms = content_terms(query)
    if not terms:
        return 0.0
    return max((len(terms & content_terms(t)) / len(terms) for t in texts), default=0.0)
