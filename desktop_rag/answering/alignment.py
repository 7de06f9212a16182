"""Sentence-level evidence alignment: each answer sentence is matched with the source sentence (or
two adjacent sentences) that supports it best, not with a whole passage.

A short answer sentence scored against a 200-word passage looks weakly supported even when it was
copied from it; scored against the sentence it came from, it is plainly supported. The match
gives the support score and the evidence's place: its chunk, page, character span and line boxes.

Support = mean of (a) the share of the answer sentence's content words found in the source
sentence and (b) their embedding similarity. A sentence is supported when that reaches the
threshold AND the source has every number and name the sentence states (a name may be in its
document's title instead) and agrees with it on negation; a changed figure or a "not" is what
similarity misses and users care about most.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from desktop_rag.answering.claims import Claim
from desktop_rag.domain import Chunk, Evidence, Passage
from desktop_rag.domain.protocols import Embedder
from desktop_rag.text.locate import boxes_in, page_of, sentence_spans

SUPPORT_THRESHOLD = 0.55
CANDIDATES = 6  # units per sentence whose embeddings are compared (best by word overlap first)
MAX_UNIT_CHARS = 1200


@dataclass(frozen=True, slots=True)
class Unit:
    """A sentence (or two adjacent ones) of a chunk, with its span in the chunk's text."""

    passage: int  # the passage number it belongs to
    chunk: Chunk
    start: int
    end: int

    @property
    def text(self) -> str:
        return self.chunk.text[self.start : self.end]


@dataclass(frozen=True, slots=True)
class Match:
    """The best evidence for one answer sentence, and whether it supports it."""

    unit: Unit | None
    score: float
    conflict: str | None = None  # why the best candidate fails (a number, a name, a negation)

    @property
    def supported(self) -> bool:
        return self.unit is not None and self.conflict is None

    def evidence(self, sentence: str) -> Evidence | None:
        u = self.unit
        if u is None:
            return None
        span = (u.start, u.end)
        return Evidence(u.chunk.chunk_id, page_of(u.chunk, span), span, boxes_in(u.chunk, span),
                        u.text, self.score, sentence)  # fmt: skip


def units(passages: Sequence[Passage]) -> list[Unit]:
    """Every sentence of every chunk the passages hold, and every pair of adjacent sentences."""
    out: list[Unit] = []
    for p in passages:
        for chunk in p.members:
            out += _chunk_units(p.n, chunk)
    return out


def _chunk_units(n: int, chunk: Chunk) -> Iterator[Unit]:
    spans = sentence_spans(chunk.text)
    for i, (a, b) in enumerate(spans):
        yield Unit(n, chunk, a, min(b, a + MAX_UNIT_CHARS))
        if i + 1 < len(spans) and spans[i + 1][1] - a <= MAX_UNIT_CHARS:
            yield Unit(n, chunk, a, spans[i + 1][1])


class Aligner:
    """Finds each answer sentence's evidence among the given passages' sentences."""

    def __init__(self, embedder: Embedder | None, threshold: float = SUPPORT_THRESHOLD) -> None:
        self.embedder = embedder
        self.threshold = threshold

    def align(self, sentences: Sequence[str], pools: Sequence[Sequence[Unit]]) -> list[Match]:
        """The best match of each sentence within its own pool of units."""
        claims = [Claim(s) for s in sentences]
        shortlists = [self._shortlist(c, pool) for c, pool in zip(claims, pools, strict=True)]
        similarity = self._similarity(sentences, shortlists)
        return [
            self._best(claim, shortlist, similarity)
            for claim, shortlist in zip(claims, shortlists, strict=True)
        ]

    @staticmethod
    def _shortlist(claim: Claim, pool: Sequence[Unit]) -> list[tuple[Unit, Claim, float]]:
        sources = ((u, Claim(u.text, u.chunk.title)) for u in pool)
        scored = [(u, c, claim.recall_in(c)) for u, c in sources]
        scored.sort(key=lambda item: (claim.conflicts(item[1]) is not None, -item[2]))
        return scored[:CANDIDATES]

    def _similarity(
        self, sentences: Sequence[str], shortlists: Sequence[Sequence[tuple[Unit, Claim, float]]]
    ) -> dict[tuple[str, str], float]:
        """Cosine similarity of each sentence with each of its shortlisted units (one batch)."""
        if self.embedder is None:
            return {}
        texts = sorted({*sentences, *(u.text for s in shortlists for u, _, _ in s)})
        if not texts:
            return {}
        vectors = dict(zip(texts, np.asarray(self.embedder.embed_documents(texts)), strict=True))
        return {
            (sentence, u.text): float(np.dot(vectors[sentence], vectors[u.text]))
            for sentence, shortlist in zip(sentences, shortlists, strict=True)
            for u, _, _ in shortlist
        }

    def _best(
        self,
        claim: Claim,
        shortlist: Sequence[tuple[Unit, Claim, float]],
        similarity: dict[tuple[str, str], float],
    ) -> Match:
        """The best-scoring unit without a conflict; else the best one, with its conflict."""
        ranked = sorted(
            ((self._score(lex, similarity.get((claim.text, u.text))), u, c)
             for u, c, lex in shortlist),
            key=lambda item: -item[0],
        )  # fmt: skip
        if not ranked:
            return Match(None, 0.0)
        for score, unit, source in ranked:
            if score >= self.threshold and claim.conflicts(source) is None:
                return Match(unit, score)
        score, unit, source = ranked[0]
        return Match(unit, score, claim.conflicts(source) or "weak support")

    @staticmethod
    def _score(lexical: float, similarity: float | None) -> float:
        if similarity is None:
            return round(lexical, 4)
        return round(0.5 * max(similarity, 0.0) + 0.5 * lexical, 4)
