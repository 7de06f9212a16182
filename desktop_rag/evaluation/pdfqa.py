"""Evidence-page hit@k for questions over PDFs (MMLongBench-Doc style), split by evidence source.

A question is hit at k when one of the top-k results comes from the gold document (matched by
file name) and lies on one of its gold pages (1-based, as the chunks record them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop_rag.domain import Chunk, ScoredChunk, SearchResult
from desktop_rag.evaluation.jsonl import read_jsonl
from desktop_rag.retrieval.doc_prior import DOCUMENT as PRIOR

CUTOFFS = (1, 5, 10)
ALL = "all"
LIBRARY, DOCUMENT = "library", "document"  # search the whole library, or the question's document


@dataclass(frozen=True, slots=True)
class PdfQuestion:
    qid: str
    doc: str
    question: str
    pages: frozenset[int]
    sources: tuple[str, ...]

    @property
    def answerable(self) -> bool:
        return bool(self.pages)


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The question file's rows: one JSON object a line (MMLongBench-Doc's fields)."""
    return read_jsonl(path, "questions", ("id", "doc", "question"))


def question_of(q: dict[str, Any]) -> PdfQuestion:
    unanswerable = str(q.get("answer", "")).strip().lower() == "not answerable"
    pages = frozenset() if unanswerable else frozenset(int(p) for p in q["evidence_pages"])
    sources = tuple(str(s) for s in q.get("evidence_sources", ()))
    return PdfQuestion(str(q["id"]), str(q["doc"]), str(q["question"]), pages, sources)


def load_questions(path: Path) -> list[PdfQuestion]:
    return [question_of(row) for row in read_rows(path)]


def in_gold_document(question: PdfQuestion, chunk: Chunk) -> bool:
    """The chunk comes from the gold document (matched by file name)."""
    return Path(chunk.path).name == question.doc


def on_gold_page(question: PdfQuestion, chunk: Chunk) -> bool:
    """The chunk comes from the gold document and spans a gold page."""
    return in_gold_document(question, chunk) and bool(question.pages.intersection(chunk.pages))


def first_hit(question: PdfQuestion, results: Sequence[ScoredChunk]) -> int | None:
    """1-based rank of the first result on a gold page of the gold document."""
    for rank, item in enumerate(results, start=1):
        if on_gold_page(question, item.chunk):
            return rank
    return None


@dataclass(slots=True)
class HitTable:
    """hit@k counts per evidence source (a question counts once under each of its sources)."""

    counts: dict[str, list[int]] = field(default_factory=dict)  # source -> [n, hit@1, @5, @10]

    def add(self, question: PdfQuestion, rank: int | None) -> None:
        for source in (ALL, *dict.fromkeys(question.sources or ("unknown",))):
            row = self.counts.setdefault(source, [0] * (1 + len(CUTOFFS)))
            row[0] += 1
            for i, cutoff in enumerate(CUTOFFS, start=1):
                row[i] += int(rank is not None and rank <= cutoff)

    def report(self) -> dict[str, dict[str, float]]:
        return {
            source: {"questions": row[0]}
            | {f"hit@{c}": round(row[i] / row[0], 4) for i, c in enumerate(CUTOFFS, start=1)}
            for source, row in sorted(self.counts.items(), key=lambda kv: (kv[0] != ALL, kv[0]))
        }


def gold_document_rank(question: PdfQuestion, result: SearchResult) -> int | None:
    """Where the search put the gold document among documents: its place among the documents
    the question names (a focused search), else the document prior's rank; None when none of
    its chunks is among the results (it ranked lower, or the prior did not run)."""
    own = [item for item in result.results if in_gold_document(question, item.chunk)]
    if not own:
        return None
    named = result.focus.doc_ids if result.focus else ()
    if own[0].chunk.doc_id in named:
        return named.index(own[0].chunk.doc_id) + 1
    ranks = [item.sources[PRIOR] for item in own if PRIOR in item.sources]
    return min(ranks, default=None)


@dataclass(slots=True)
class DocumentRanks:
    """How often a library-wide search ranked the gold document first, or among the first
    three: the ceiling of any choice of passages within the documents it favours."""

    counts: list[int] = field(default_factory=lambda: [0, 0, 0])  # questions, first, top 3

    def add(self, rank: int | None) -> None:
        self.counts[0] += 1
        self.counts[1] += int(rank == 1)
        self.counts[2] += int(rank is not None and rank <= 3)

    def report(self) -> dict[str, float]:
        n, first, top3 = self.counts
        return {"questions": n, "first": round(first / max(n, 1), 4),
                "top3": round(top3 / max(n, 1), 4)}  # fmt: skip
