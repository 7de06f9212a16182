"""Citation markers in an answer, and the support check of each sentence.

Markers [n], [n, m] and [n-m] are parsed, keeping only numbers that were given. Each sentence that
cites a passage, or states a checkable fact, is aligned with the source sentence that supports it
best (llm/alignment.py): within the passages it cites first, then the other given passages. The
alignment gives its support, its evidence (page, span, line boxes) and, for a sentence without a
marker that a source supports, an inferred citation. A sentence no source supports is flagged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from desktop_rag.answering.alignment import (
    SUPPORT_THRESHOLD,
    Aligner,
    Match,
    Unit,
    units,
)
from desktop_rag.domain import Citation, Evidence, Passage
from desktop_rag.domain.protocols import Embedder
from desktop_rag.text.locate import sentence_spans

MAX_RANGE = 50
_MARKER = re.compile(r"\[(\s*\d+(?:\s*(?:,|;|-|–)\s*\d+)*\s*)\]")
_MARKER_RUN = re.compile(
    rf"{_MARKER.pattern}(?:\s*(?:,\s*)?(?:\b(?:and|or)\b|&)?\s*{_MARKER.pattern})*"
)
_DANGLING = re.compile(r"[,;:]+(?=[.!?]?$)")  # what a list of markers leaves at the end
_WORD = re.compile(r"\w+", re.UNICODE)
_STOP_WORDS = (
    "a an and are as at be been but by for from has have he her his i in is it its of on or "
    "she that the their them there these they this to was were which who will with you your "
    "not no do does did can could would should may might also than then so such into about"
)
_STOP = frozenset(_STOP_WORDS.split(" "))
_HEDGES = ("do not contain", "does not contain", "not found", "i don't know", "cannot find")
# A sentence that only points at the sources ("This can be found in the table provided in
# source [5].") states nothing to check; flagging it taught users to ignore the marks.
_POINTER = re.compile(
    r"(?i)^(?:this|that|it|these|the (?:answer|information|figure|value|data))(?: \w+){0,3}? "
    r"(?:can be |is |are )?(?:found|shown|given|provided|listed|stated|mentioned|reported) "
    r"(?:in|on|by)(?: \w+){0,5}? (?:sources?|tables?|passages?|documents?|pages?|reports?)"
    r"(?: (?:on |at )?(?:page |source )?\[?\d+\]?)?$"
)

__all__ = ["SUPPORT_THRESHOLD", "CitationChecker", "Sentence"]


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str  # without citation markers
    cited: tuple[int, ...]  # valid numbers only, in order of appearance
    scores: dict[int, float] = field(default_factory=dict)  # best support in each passage
    inferred: bool = False  # its evidence is in a passage it does not cite
    evidence: Evidence | None = None  # the source sentence(s) that support it
    evidence_n: int | None = None  # the passage that holds the evidence
    supported: bool | None = None  # None: not checked (no citation, states no fact)
    conflict: str | None = None  # why it is not supported

    @property
    def support(self) -> float | None:
        """The best support among the passages it was checked against; None when unchecked."""
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
    """The sentence without its markers: "Steel [1]." -> "Steel."; a list of markers goes
    with the commas and "and" between them and a colon left before the end: "There were 4:
    [1], [2] and [3]." -> "There were 4." """
    bare = " ".join(_MARKER_RUN.sub(" ", text).split())
    return _DANGLING.sub("", re.sub(r"\s+(?=[.,;:!?])", "", bare))


def split_sentences(answer: str) -> list[str]:
    """Sentences; markers opening a sentence ("... end. [2] Next") go to the one before."""
    pieces = [answer[a:b] for a, b in sentence_spans(answer, ends=".!?")]
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


def points_only(sentence: str) -> bool:
    """A sentence that only says where the answer is ("It is shown in the table on page 4.")."""
    return _POINTER.match(sentence.strip().rstrip(".")) is not None


def states_facts(sentence: str) -> bool:
    """A sentence that asserts something checkable: has a number or several content words."""
    lowered = sentence.lower()
    if sentence.rstrip().endswith("?") or any(h in lowered for h in _HEDGES):
        return False
    if points_only(sentence):
        return False
    return bool(re.search(r"\d", sentence)) or len(content_words(sentence)) >= 5


class CitationChecker:
    """Checks an answer's sentences against their numbered passages."""

    def __init__(self, embedder: Embedder | None, threshold: float = SUPPORT_THRESHOLD) -> None:
        self.aligner = Aligner(embedder, threshold)
        self.threshold = threshold

    def check(self, answer: str, passages: Sequence[Passage]) -> list[Sentence]:
        """Every sentence of `answer`, checked: support, evidence, inferred citations."""
        valid = {p.n for p in passages}
        raw = split_sentences(answer)
        texts = [strip_markers(s) for s in raw]
        cited = [tuple(cited_numbers(s, valid)) for s in raw]
        pool = {p.n: units([p]) for p in passages}
        first = self._first_round(texts, cited, pool)
        second = self._second_round(texts, cited, pool, first)
        return [
            _sentence(t, c, first.get(i, {}), second.get(i))
            for i, (t, c) in enumerate(zip(texts, cited, strict=True))
        ]

    def _first_round(
        self, texts: list[str], cited: list[tuple[int, ...]], pool: dict[int, list[Unit]]
    ) -> dict[int, dict[int | None, Match]]:
        """Cited sentences against each passage they cite; uncited factual ones against all."""
        jobs: list[tuple[int, int | None, list[Unit]]] = []
        every = [u for us in pool.values() for u in us]
        for i, (text, ns) in enumerate(zip(texts, cited, strict=True)):
            if ns and not points_only(text):  # a cited pointer states nothing to check
                jobs += [(i, n, pool[n]) for n in ns]
            elif states_facts(text):
                jobs.append((i, None, every))
        return self._run(texts, jobs)

    def _second_round(
        self,
        texts: list[str],
        cited: list[tuple[int, ...]],
        pool: dict[int, list[Unit]],
        first: dict[int, dict[int | None, Match]],
    ) -> dict[int, Match]:
        """A cited sentence its passages do not support is looked for in the other passages."""
        jobs: list[tuple[int, int | None, list[Unit]]] = []
        for i, ns in enumerate(cited):
            if ns and i in first and not any(m.supported for m in first[i].values()):
                others = [u for n, us in pool.items() if n not in ns for u in us]
                jobs.append((i, None, others))
        return {i: found[None] for i, found in self._run(texts, jobs).items()}

    def _run(
        self, texts: list[str], jobs: list[tuple[int, int | None, list[Unit]]]
    ) -> dict[int, dict[int | None, Match]]:
        matches = self.aligner.align([texts[i] for i, _, _ in jobs], [p for _, _, p in jobs])
        out: dict[int, dict[int | None, Match]] = {}
        for (i, n, _), match in zip(jobs, matches, strict=True):
            out.setdefault(i, {})[n] = match
        return out

    @staticmethod
    def unsupported(sentences: Sequence[Sentence]) -> list[str]:
        """The sentences that were checked and that no source supports."""
        return [s.text for s in sentences if s.supported is False]

    @staticmethod
    def citations(sentences: Sequence[Sentence], passages: Sequence[Passage]) -> list[Citation]:
        """One citation per passage a sentence cites or draws on, with its best support and the
        evidence of each sentence it supports (best first); inferred when no marker cites it."""
        by_n = {p.n: p for p in passages}
        best: dict[int, float] = {}
        marked: set[int] = set()
        evidence: dict[int, list[Evidence]] = {}
        for s in sentences:
            for n, score in s.scores.items():
                best[n] = max(best.get(n, 0.0), score)
            marked.update(s.cited)
            if s.supported and s.evidence is not None and s.evidence_n is not None:
                evidence.setdefault(s.evidence_n, []).append(s.evidence)
        return [
            Citation(n, by_n[n].chunk, best[n], n not in marked,
                     tuple(sorted(evidence.get(n, []), key=lambda e: -e.score)))
            for n in sorted(best)
        ]  # fmt: skip


def _sentence(
    text: str, cited: tuple[int, ...], first: dict[int | None, Match], second: Match | None
) -> Sentence:
    """A checked sentence from its matches: the supporting one with the best score wins."""
    if not first:
        return Sentence(text, cited)
    scores = {m.unit.passage: m.score for m in first.values() if m.unit is not None}
    if not cited and not first[None].supported:
        scores = {}  # an uncited sentence no source supports gets no citation
    candidates = [*first.values(), *([second] if second is not None else [])]
    supporting = [m for m in candidates if m.supported]
    if not supporting:
        best = max(first.values(), key=lambda m: m.score)
        return Sentence(text, cited, scores, supported=False, conflict=best.conflict)
    match = max(supporting, key=lambda m: m.score)
    assert match.unit is not None  # a supported match has a unit
    n = match.unit.passage
    scores[n] = max(scores.get(n, 0.0), match.score)
    return Sentence(text, cited, scores, n not in cited, match.evidence(text), n, True)
