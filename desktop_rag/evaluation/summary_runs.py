"""`eval summaries`: each paper summarised by the summary route with its abstract held out,
scored against that abstract (routes/summary_eval), then summarised again to time the second,
cached summary. The route is called directly (not through `ask`) so that it reads the catalog
through the held-out view; everything else is the real route: sections, passes, the store."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop_rag.answering.alignment import SUPPORT_THRESHOLD, Aligner
from desktop_rag.answering.citations import CitationChecker
from desktop_rag.bootstrap import AppContext
from desktop_rag.domain import Answer, DocScope, Document, RouteInfo, RouteName
from desktop_rag.domain.progress import ProgressCallback, ProgressEvent
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
from desktop_rag.routes.base import RouteRequest
from desktop_rag.services.routing import summary_route
from desktop_rag.text.locate import sentence_spans

PAPERS = ("2310.05634v2.pdf", "2303.05039v2.pdf", "STEPBACK.pdf", "2312.10997v5.pdf",
          "tacl_a_00660.pdf")  # fmt: skip
QUESTION = "Summarize this paper in five bullet points."
AGAIN = "Summarize this paper in three bullet points."  # other words: kept sections, new final


@dataclass(frozen=True, slots=True)
class SummaryEvalOptions:
    papers: tuple[str, ...] = PAPERS
    limit: int | None = None
    question: str = QUESTION
    pages: bool = False  # hold out the abstract's whole page(s), not only its text
    threshold: float = SUPPORT_THRESHOLD
    again: bool = True  # a second summary in other words (kept sections, a new final pass)
    on_record: Callable[[dict[str, Any]], None] = field(default=lambda _record: None)


def held_text(held: HeldOut, doc: Document) -> str:
    """Everything the summary route reads of `doc`: the ceiling a summary could reach is the
    share of key points that this text itself states in one sentence or two."""
    return "\n".join(c.text for c in held.chunks_of(doc.doc_id))


def _ask(ctx: AppContext, held: HeldOut, doc: Document, question: str) -> tuple[Answer, float]:
    info = RouteInfo(RouteName.SUMMARY, RouteName.SUMMARY, "eval summaries", True)
    request = RouteRequest(question, question, "eval", info, DocScope(only=frozenset({doc.doc_id})))
    start = time.perf_counter()
    answer = summary_route(ctx, source=held).answer(request)
    return answer, time.perf_counter() - start


def _paper(ctx: AppContext, doc: Document, opts: SummaryEvalOptions) -> dict[str, Any]:
    chunks = ctx.catalog.chunks_of(doc.doc_id)
    abstract = pdf_abstract(doc.path) or abstract_text(chunks, abstract_spans(chunks))
    sentences = [abstract[a:b] for a, b in sentence_spans(abstract, ends=".!?")]
    spans = spans_of(sentences, chunks)
    record: dict[str, Any] = {"paper": Path(doc.path).name, "pages": doc.pages,
                              "abstract_found": bool(spans),
                              "abstract_words": len(abstract.split()),
                              "abstract_sentences": len(sentences),
                              "held_out_spans": len(spans)}  # fmt: skip
    if not spans:
        return record
    points = key_points(abstract)
    held = HeldOut(ctx.catalog, {doc.doc_id: spans}, pages=opts.pages)
    answer, seconds = _ask(ctx, held, doc, opts.question)
    body = summary_body(answer.answer)
    aligner = Aligner(ctx.embedder, opts.threshold)
    covered, scores = coverage(points, body, aligner)
    ceiling = sum(coverage(points, held_text(held, doc), aligner)[0])
    supported, checked = supported_share(body, answer.passages, CitationChecker(ctx.embedder))
    second, _ = _ask(ctx, held, doc, opts.question)
    record |= {
        "key_points": len(points), "covered": sum(covered),
        "coverage": round(sum(covered) / max(len(points), 1), 3),
        "covered_by_text": ceiling,  # by the paper's own text, the abstract held out
        "ceiling": round(ceiling / max(len(points), 1), 3),
        "coverage_by_score": round(sum(x >= opts.threshold for x in scores)
                                   / max(len(points), 1), 3),  # no number/name check
        "sentences_checked": checked, "sentences_supported": supported,
        "supported_share": round(supported / max(checked, 1), 3),
        "time_s": round(seconds, 1), "ttft_ms": answer.timings.get("ttft_ms"),
        "second_ttft_ms": second.timings.get("ttft_ms"),
        "second_model_calls": second.route.details.get("model_calls"),
        "details": dict(answer.route.details), "summary": body,
        "points": [{"text": p, "covered": c, "support": s}
                   for p, c, s in zip(points, covered, scores, strict=True)],
    }  # fmt: skip
    if opts.again:
        other, other_s = _ask(ctx, held, doc, AGAIN)
        record |= {"reworded_ttft_ms": other.timings.get("ttft_ms"),
                   "reworded_time_s": round(other_s, 1),
                   "reworded_sections_reused": other.route.details.get("sections_reused")}
    return record


def _mean(records: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in records if r.get(key) is not None]
    return round(statistics.mean(values), 3) if values else None


def summary_runs(
    ctx: AppContext, opts: SummaryEvalOptions, progress: ProgressCallback
) -> dict[str, Any]:
    """Every indexed paper of the evaluation library, scored (see the module docstring)."""
    wanted = opts.papers[: opts.limit]
    docs = sorted((d for d in ctx.catalog.documents() if Path(d.path).name in wanted),
                  key=lambda d: wanted.index(Path(d.path).name))  # fmt: skip
    records: list[dict[str, Any]] = []
    for n, doc in enumerate(docs, start=1):
        records.append(_paper(ctx, doc, opts))
        opts.on_record(records[-1])
        progress(ProgressEvent("answer", done=n, total=len(docs),
                               message=f"coverage {_mean(records, 'coverage')}"))  # fmt: skip
    scored = [r for r in records if r.get("abstract_found")]
    return {
        "papers": len(records), "scored": len(scored), "question": opts.question,
        "held_out": "pages" if opts.pages else "abstract", "threshold": opts.threshold,
        "key_points": sum(r["key_points"] for r in scored),
        "covered": sum(r["covered"] for r in scored),
        "covered_by_text": sum(r["covered_by_text"] for r in scored),
        **{f"mean_{k}": _mean(scored, k) for k in ("coverage", "coverage_by_score", "ceiling",
                                                    "supported_share", "time_s",
                                                    "ttft_ms", "second_ttft_ms",
                                                    "reworded_ttft_ms")},
        "per_paper": records,
    }  # fmt: skip
