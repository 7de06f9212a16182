"""The summary evaluator on a generated paper whose answer is known: the abstract is found and
held out (the route never reads it), its key points are its sentences, and coverage and support
are what the summary's sentences make them."""

from __future__ import annotations

from pathlib import Path

from test_routes_summary import Library, SummaryEngine, request, route

from desktop_rag.answering.alignment import Aligner
from desktop_rag.answering.citations import CitationChecker
from desktop_rag.domain import DocScope, Passage
from desktop_rag.evaluation import Evaluations
from desktop_rag.evaluation.summary_eval import (
    HeldOut,
    abstract_spans,
    abstract_text,
    coverage,
    key_points,
    pdf_abstract,
    spans_of,
    summary_body,
    supported_share,
)

ABSTRACT = ("We propose Gadget Routing for sorting parcels in warehouses. Gadget Routing "
            "cuts the sorting time by 40 percent on three benchmarks. The code is released.")
PAGES = [
    f"Gadget Routing\nJane Doe\nAbstract\n{ABSTRACT}\n1\nIntroduction\nWarehouses sort "
    "parcels by hand today. Manual sorting of parcels is slow and costly for every warehouse.",
    "2\nMethod\nGadget Routing assigns each parcel to a belt by its weight class. "
    "The assignment uses a greedy rule over weight classes.",
    "3\nResults\nGadget Routing cuts the sorting time by 40 percent on three benchmarks. "
    "The gains hold across warehouse sizes.",
]


def _paper() -> tuple[Library, str]:
    lib = Library()
    doc = lib.add("Gadget paper", PAGES)
    return lib, doc.doc_id


def test_the_abstract_is_found_and_split_into_key_points() -> None:
    lib, doc_id = _paper()
    chunks = lib.chunks_of(doc_id)
    spans = abstract_spans(chunks)
    assert [s.chunk_id for s in spans] == [chunks[0].chunk_id]
    assert abstract_text(chunks, spans) == ABSTRACT
    assert key_points(ABSTRACT) == [
        "We propose Gadget Routing for sorting parcels in warehouses.",
        "Gadget Routing cuts the sorting time by 40 percent on three benchmarks.",
    ]  # "The code is released." states too little to score


def test_the_summarizer_never_reads_the_held_out_abstract(tmp_path: Path) -> None:
    lib, doc_id = _paper()
    held = HeldOut(lib, {doc_id: abstract_spans(lib.chunks_of(doc_id))})
    first = held.chunks_of(doc_id)[0]
    assert "We propose" not in first.text and "Introduction" in first.text
    assert len(first.text) == len(lib.chunks_of(doc_id)[0].text)  # offsets and boxes kept
    engine = SummaryEngine()
    answer = route(tmp_path, held, engine).answer(  # type: ignore[arg-type]
        request("Summarize.", DocScope(only=frozenset({doc_id}))))  # fmt: skip
    prompt = engine.prompts[0][-1].content
    assert "We propose" not in prompt and "Warehouses sort parcels" in prompt
    pages = HeldOut(lib, {doc_id: abstract_spans(lib.chunks_of(doc_id))}, pages=True)
    assert [c.pages for c in pages.chunks_of(doc_id)] == [(2,), (3,)]
    body = summary_body(answer.answer)
    assert "Warehouses sort parcels" in body and "We propose" not in body
    assert "Read the whole document" not in body


def test_coverage_and_support_count_what_the_summary_says() -> None:
    points = key_points(ABSTRACT)
    summary = ("- Gadget Routing cuts the sorting time by 40 percent on three benchmarks. [2]\n"
               "- The belts run at night in every warehouse of the company. [1]")  # fmt: skip
    covered, scores = coverage(points, summary, Aligner(None))
    assert covered == [False, True] and scores[1] > scores[0]
    lib, doc_id = _paper()
    chunks = lib.chunks_of(doc_id)
    passages = [Passage(1, chunks[1], chunks[1].text, 1.0), Passage(2, chunks[2], chunks[2].text,
                                                                    1.0)]  # fmt: skip
    assert supported_share(summary, passages, CitationChecker(None)) == (1, 2)


def test_the_pdf_abstract_is_read_from_its_blocks_and_found_in_the_chunks(
    tmp_path: Path,
) -> None:
    from test_routes_summary_real import write_paper

    pdf = write_paper(tmp_path / "paper.pdf", pages=2)
    abstract = pdf_abstract(str(pdf))
    assert abstract == ("We propose Gadget Routing, which sorts parcels by weight class and cuts "
                        "sorting time by 40 percent.")  # fmt: skip
    assert pdf_abstract(str(tmp_path / "missing.pdf")) == ""
    lib, doc_id = _paper()
    chunks = lib.chunks_of(doc_id)
    spans = spans_of(["Gadget Routing cuts the sorting time by 40 percent on three benchmarks.",
                      "Not in the paper at all, anywhere, in any of its pages."], chunks)
    assert [(s.chunk_id, chunks[0].text[s.start : s.end]) for s in spans] == [
        (chunks[0].chunk_id, "Gadget Routing cuts the sorting time by 40 percent on three "
                             "benchmarks")]  # fmt: skip


def test_eval_summaries_scores_generated_papers_end_to_end(tmp_path: Path) -> None:
    """Two generated papers through the evaluation library: the fake model's summary copies
    each section's first sentence (all supported by the text) and never states the held-out
    abstract (coverage 0); the second summary is the kept one (no model call)."""
    from test_routes_summary_real import write_paper

    from desktop_rag.bootstrap import build_context
    from desktop_rag.config import Settings
    from desktop_rag.evaluation.summary_runs import SummaryEvalOptions
    from desktop_rag.services import Services

    docs = tmp_path / "papers"
    for name in ("a.pdf", "b.pdf"):
        write_paper(docs / name, pages=3)
    ctx = build_context(str(tmp_path / "data"), settings=Settings(),
                        overrides={"engine": SummaryEngine(bullets=5)})  # fmt: skip
    services = Services(ctx)
    try:
        records: list[dict[str, object]] = []
        options = SummaryEvalOptions(("a.pdf", "b.pdf", "missing.pdf"), on_record=records.append)
        report = Evaluations(services).route_evaluation.eval_summaries(docs, options=options)
    finally:
        services.close()
    assert report["papers"] == report["scored"] == 2 and len(records) == 2
    for r in report["per_paper"]:
        assert r["key_points"] == 1 and r["covered"] == 0 and r["coverage"] == 0.0
        assert r["sentences_checked"] >= 3 and r["supported_share"] == 1.0
        assert r["second_model_calls"] == 0 and "We propose" not in r["summary"]
    assert report["mean_coverage"] == 0.0 and report["mean_supported_share"] == 1.0
