"""Citation markers in an answer: parse [n], [n, m] and [n-m]; keep only numbers that were given;
score each cited sentence against its passages; flag weakly supported and uncited factual ones.
An answer with no valid marker at all (small models write none) has each factual sentence
attributed to its best-supporting passage when that support reaches the threshold."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from desktop_rag.domain import Citation, Passage
from desktop_rag.protocols import Embedder

SUPPORT_THRESHOLD = 0.35
MAX_RANGE = 50
_MARKER = re.compile(r"\[(\s*\d+(?:\s*(?:,|;|-|–)\s*\d+)*\s*)\]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|\n+")
_WORD = re.compile(r"\w+", re.UNICODE)
_STOP_WORDS = (
    "a an and are as at be been but by for from has have he her his i in is it its of on or "
    "she that the their them there these they this to was were which who will with you your "
    "not no do does did can could would should may might also than then so such into about"
)
_STOP = frozenset(_STOP_WORDS.split(" "))
_HEDGES = ("do not contain", "does not contain", "not found", "i don't know", "cannot find")


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str  # without citation markers
    cited: tuple[int, ...]  # valid numbers only, in order of appearance
    scores: dict[int, float]  # support against each cited passage
    inferred: bool = False  # attributed by support, not cited by the model

    @property
    def support(self) -> float | None:
        """The best support among the cited passages; None when uncited."""
        return max(self.scores.values()) if self.scores else None


def parse_numbers(body: str) -> list[int]:
    """'1, 3-5' -> [1, 3, 4, 5]; ranges longer than MAX_RANGE are ignored."""
    numbers: list[int] = []
    for part in re.split(r"[,;]", body):
        bounds = [int(x) for x in re.split(r"[-–]", part) if x.strip()]
        if len(bounds) == 1:
            numbers.append(bounds[0])
        elif len(bounds) == 2 and 0 <= bounds[1] - bounds[0] <= MAX_RANGE:
            numbers.extend(range(bounds[0], bounds[1] + 1))
    return numbers


def cited_numbers(text: str, valid: set[int]) -> list[int]:
    """Every valid number cited in `text`, first appearance first, without duplicates."""
    seen: list[int] = []
    for match in _MARKER.finditer(text):
        seen += [n for n in parse_numbers(match.group(1)) if n in valid and n not in seen]
    return seen


def strip_markers(text: str) -> str:
    return " ".join(_MARKER.sub(" ", text).split())


def split_sentences(answer: str) -> list[str]:
    """Sentences; markers opening a sentence ("... end. [2] Next") go to the one before."""
    pieces = [p.strip() for p in _SENTENCE_END.split(answer) if p.strip()]
    out: list[str] = []
    for piece in pieces:
        lead = re.match(r"^((?:\s*\[[^\]]*\])+)\s*", piece)
        if lead and out:
            out[-1] += " " + lead.group(1).strip()
            piece = piece[lead.end() :]
        if piece:
            out.append(piece)
    return out


def content_words(text: str) -> set[str]:
    return {w for w in (m.lower() for m in _WORD.findall(text)) if w not in _STOP and len(w) > 1}


def overlap(sentence: str, passage: str) -> float:
    words = content_words(sentence)
    return len(words & content_words(passage)) / len(words) if words else 0.0


def states_facts(sentence: str) -> bool:
    """A sentence that asserts something checkable: has a number or several content words."""
    lowered = sentence.lower()
    if sentence.rstrip().endswith("?") or any(h in lowered for h in _HEDGES):
        return False
    return bool(re.search(r"\d", sentence)) or len(content_words(sentence)) >= 5


class CitationChecker:
    """Scores answers against their numbered passages."""

    def __init__(self, embedder: Embedder | None, threshold: float = SUPPORT_THRESHOLD) -> None:
        self.embedder = embedder
        self.threshold = threshold

    def sentences(self, answer: str, passages: Sequence[Passage]) -> list[Sentence]:
        by_n = {p.n: p for p in passages}
        raw = split_sentences(answer)
        cited = [cited_numbers(s, set(by_n)) for s in raw]
        texts = [strip_markers(s) for s in raw]
        sims = self._similarities(texts, cited, by_n)
        return [
            Sentence(t, tuple(ns), {n: self._pair(t, by_n[n].text, sim.get(n)) for n in ns})
            for t, ns, sim in zip(texts, cited, sims, strict=True)
        ]

    def _similarities(
        self, texts: list[str], cited: list[list[int]], by_n: dict[int, Passage]
    ) -> list[dict[int, float]]:
        if self.embedder is None or not any(cited):
            return [{} for _ in texts]
        needed = sorted({n for ns in cited for n in ns})
        vectors = self.embedder.embed_documents([*texts, *(by_n[n].text for n in needed)])
        passage_vec = dict(zip(needed, vectors[len(texts) :], strict=True))
        return [
            {n: float(np.dot(vectors[i], passage_vec[n])) for n in ns} for i, ns in enumerate(cited)
        ]

    def attribute(
        self, sentences: Sequence[Sentence], passages: Sequence[Passage]
    ) -> list[Sentence]:
        """Without any valid marker in the answer, each factual sentence is attributed to the
        passage that supports it best, if that support reaches the threshold; an answer with
        markers is returned unchanged."""
        if any(s.cited for s in sentences) or not passages:
            return list(sentences)
        out = list(sentences)
        factual = [i for i, s in enumerate(sentences) if states_facts(s.text)]
        rows = self._support_rows([sentences[i].text for i in factual], passages)
        for i, row in zip(factual, rows, strict=True):
            n, score = max(row.items(), key=lambda item: (item[1], -item[0]))
            if score >= self.threshold:
                out[i] = Sentence(sentences[i].text, (n,), {n: score}, inferred=True)
        return out

    def _support_rows(
        self, texts: list[str], passages: Sequence[Passage]
    ) -> list[dict[int, float]]:
        """Each text's support against every passage."""
        if not texts:
            return []
        sims: Any = None
        if self.embedder is not None:
            vectors = np.asarray(
                self.embedder.embed_documents([*texts, *(p.text for p in passages)])
            )
            sims = vectors[: len(texts)] @ vectors[len(texts) :].T
        return [
            {
                p.n: self._pair(t, p.text, None if sims is None else float(sims[i, j]))
                for j, p in enumerate(passages)
            }
            for i, t in enumerate(texts)
        ]

    @staticmethod
    def _pair(text: str, passage: str, similarity: float | None) -> float:
        lexical = overlap(text, passage)
        if similarity is None:
            return round(lexical, 4)
        return round(0.5 * max(similarity, 0.0) + 0.5 * lexical, 4)

    def unsupported(self, sentences: Sequence[Sentence]) -> list[str]:
        """Cited sentences with low support, and uncited sentences that state facts."""
        return [
            s.text
            for s in sentences
            if (s.support is not None and s.support < self.threshold)
            or (s.support is None and states_facts(s.text))
        ]

    def citations(
        self, sentences: Sequence[Sentence], passages: Sequence[Passage]
    ) -> list[Citation]:
        """One citation per cited passage, with the best support any sentence gives it; inferred
        when no sentence cited it with a marker."""
        by_n = {p.n: p for p in passages}
        best: dict[int, float] = {}
        marked: set[int] = set()
        for s in sentences:
            for n, score in s.scores.items():
                best[n] = max(best.get(n, 0.0), score)
            if not s.inferred:
                marked.update(s.scores)
        return [Citation(n, by_n[n].chunk, best[n], n not in marked) for n in sorted(best)]
