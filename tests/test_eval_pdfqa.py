"""`eval pdfqa`: evidence-page hit@k by evidence source over PDFs generated here."""

from __future__ import annotations

import json
from pathlib import Path

from desktop_rag.bootstrap import AppContext
from desktop_rag.domain import Chunk, DocFocus, DocKind, ScoredChunk, SearchResult
from desktop_rag.evaluation import Evaluations
from desktop_rag.evaluation.pdfqa import (
    DocumentRanks,
    HitTable,
    PdfQuestion,
    first_hit,
    gold_document_rank,
    load_questions,
)
from desktop_rag.services import Services
from tests.ingest_docs import text_pdfs

PAGES = {
    "alpha.pdf": ["Cover page of the alpha report.", "The alpha reactor runs at 350 kelvin.",
                  "Appendix with unrelated tables."],
    "beta.pdf": ["Beta guide introduction.", "Opening hours are nine to five.",
                 "The beta turbine spins at 1200 rpm."],
}  # fmt: skip


def make_pdfs(folder: Path) -> Path:
    return text_pdfs(folder, PAGES)


def write_questions(path: Path) -> Path:
    rows = [
        {"id": "1", "doc": "alpha.pdf", "question": "How hot does the alpha reactor run?",
         "answer": "350 K", "evidence_pages": [2], "evidence_sources": ["Pure-text (Plain-text)"]},
        {"id": "2", "doc": "beta.pdf", "question": "How fast does the beta turbine spin?",
         "answer": "1200", "evidence_pages": [3], "evidence_sources": ["Table", "Chart"]},
        {"id": "3", "doc": "beta.pdf", "question": "Who founded beta?", "answer": "Not answerable",
         "evidence_pages": [], "evidence_sources": []},
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    return path


def test_hits_need_the_gold_document_and_a_gold_page() -> None:
    q = PdfQuestion("1", "a.pdf", "?", frozenset({2}), ("Table",))

    def hit(path: str, pages: tuple[int, ...]) -> ScoredChunk:
        chunk = Chunk("c", "d", path, "t", DocKind.PDF, "x", 0, pages, (0, 1))
        return ScoredChunk(chunk, 1.0)

    assert (
        first_hit(q, [hit("/x/b.pdf", (2,)), hit("/x/a.pdf", (1,)), hit("/x/a.pdf", (1, 2))]) == 3
    )
    assert first_hit(q, [hit("/x/b.pdf", (2,))]) is None
    table = HitTable()
    table.add(q, 3)
    table.add(PdfQuestion("2", "a.pdf", "?", frozenset({1}), ("Chart", "Table")), 1)
    report = table.report()
    assert report["all"] == {"questions": 2, "hit@1": 0.5, "hit@5": 1.0, "hit@10": 1.0}
    assert report["Table"]["questions"] == 2 and report["Chart"]["hit@1"] == 1.0


def _found(*hits: tuple[str, dict[str, int]], focus: DocFocus | None = None) -> SearchResult:
    items = tuple(
        ScoredChunk(Chunk(f"{doc}:0", doc, f"/x/{doc}.pdf", "t", DocKind.PDF, "x", 0, (1,), (0, 1)),
                    1.0, ranks)
        for doc, ranks in hits
    )  # fmt: skip
    return SearchResult("?", "hybrid", "none", False, items, focus=focus)


def test_the_gold_document_rank_comes_from_the_prior_or_the_named_documents() -> None:
    q = PdfQuestion("1", "a.pdf", "?", frozenset({1}), ())
    prior = _found(("b", {"document": 1}), ("a", {"document": 2, "dense": 3}), ("a", {}))
    assert gold_document_rank(q, prior) == 2
    named = DocFocus(("b", "a"), ("B", "A"), ("a",), 3.0, 1.0)
    assert gold_document_rank(q, _found(("b", {}), ("a", {}), focus=named)) == 2
    assert gold_document_rank(q, _found(("b", {"document": 1}))) is None  # not among them
    assert gold_document_rank(q, _found(("a", {"dense": 1}))) is None  # the prior did not run
    ranks = DocumentRanks()
    for rank in (1, 3, None, 4):
        ranks.add(rank)
    assert ranks.report() == {"questions": 4, "first": 0.25, "top3": 0.5}


def test_eval_pdfqa_end_to_end(fake_context: AppContext, tmp_path: Path) -> None:
    questions = write_questions(tmp_path / "q.jsonl")
    assert [q.answerable for q in load_questions(questions)] == [True, True, False]
    report = Evaluations(Services(fake_context)).eval_pdfqa(questions, make_pdfs(tmp_path / "docs"))
    assert report["documents"] == 2 and report["questions"] == 2
    assert report["by_source"]["all"]["hit@10"] == 1.0
    assert report["by_source"]["Pure-text (Plain-text)"]["hit@1"] == 1.0
    assert set(report["by_mode"]) == {"hybrid", "dense", "bm25"}
    assert set(report["insufficient_evidence_rate"]) == {"answerable", "not_answerable"}
    assert report["gold_document"] == {"questions": 2, "first": 1.0, "top3": 1.0}
    within = report["within_document"]
    assert set(within["by_mode"]) == {"hybrid", "dense", "bm25"}
    assert within["by_source"]["all"]["hit@1"] == 1.0  # two pages of each document
