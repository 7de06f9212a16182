"""Evaluations of the question routes: the router's accuracy on a labelled set (no library
needed), the exact counts of the exhaustive route over documents whose counts are known,
asked through the real answer path (`ask`) in a throwaway library, and summaries of papers
scored against their held-out abstracts (routes/summary_eval)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop_rag.domain import EVERYWHERE, DocScope
from desktop_rag.domain.progress import ProgressCallback, ProgressEvent, no_progress
from desktop_rag.evaluation import count_eval, route_eval
from desktop_rag.evaluation.pdfqa import DOCUMENT
from desktop_rag.evaluation.runs import EvalLibrary, EvalService
from desktop_rag.evaluation.summary_runs import SummaryEvalOptions, summary_runs


@dataclass(frozen=True, slots=True)
class CountEvalOptions:
    limit: int | None = None  # the first N questions
    scope: str = DOCUMENT  # each question asked of its own document, or of the whole library
    route: str | None = None  # force a route (None: the router decides, as for a user)
    on_record: Callable[[dict[str, Any]], None] = field(default=lambda _record: None)


def _count_runs(
    lib: EvalLibrary,
    items: Sequence[count_eval.CountQuestion],
    opts: CountEvalOptions,
    progress: ProgressCallback,
) -> list[dict[str, Any]]:
    by_name = {Path(d.path).name: d.doc_id for d in lib.library.list_documents()}
    records: list[dict[str, Any]] = []
    for n, q in enumerate(items, start=1):
        own = DocScope(only=frozenset({by_name.get(q.doc, "")}))
        scope = own if opts.scope == DOCUMENT else EVERYWHERE
        answer = lib.answers.ask(q.question, scope=scope, route=opts.route)
        records.append(count_eval.record(q, answer))
        opts.on_record(records[-1])
        exact = sum(r["exact"] for r in records) / len(records)
        progress(ProgressEvent("answer", done=n, total=len(items), message=f"exact {exact:.2f}"))
    return records


def _model_name(lib: EvalLibrary) -> str:
    """The chat model that judged, or the profile's when no question needed it."""
    ctx = lib.answers.ctx
    return ctx.engine.name if ctx.loaded("engine") else f"{ctx.settings.profile} (not loaded)"


class RouteEvalService:
    """`eval routes` and `eval counts`, over the evaluation service's throwaway libraries."""

    def __init__(self, evaluation: EvalService) -> None:
        self.evaluation = evaluation

    def eval_routes(self, questions: str | Path) -> dict[str, Any]:
        """Router accuracy per split (dev: tuned on; test: held out) and its cost."""
        items = route_eval.load_labelled(Path(questions))
        return route_eval.evaluate(items) | {"file": str(questions)}

    def eval_counts(
        self,
        questions: str | Path,
        docs_dir: str | Path,
        progress: ProgressCallback = no_progress,
        workdir: Path | None = None,
        options: CountEvalOptions | None = None,
    ) -> dict[str, Any]:
        """Count exactness and item-page citation over generated documents with known counts
        (`python -m bench.count_docs OUT`); only the questions' documents are ingested."""
        opts = options or CountEvalOptions()
        items = count_eval.load_count_questions(Path(questions))[: opts.limit]
        files = sorted({Path(docs_dir) / q.doc for q in items})
        with self.evaluation.eval_library(files, workdir, progress) as (lib, ingested):
            records = _count_runs(lib, items, opts, progress)
            model = _model_name(lib)
        report = count_eval.summarise(records) | ingested
        return report | {"scope": opts.scope, "model": model, "forced_route": opts.route}

    def eval_summaries(
        self,
        docs_dir: str | Path,
        progress: ProgressCallback = no_progress,
        workdir: Path | None = None,
        options: SummaryEvalOptions | None = None,
    ) -> dict[str, Any]:
        """Abstract key-point coverage, supported sentences, time and the cached second
        summary's time to first token, over papers in `docs_dir` (their abstracts held out)."""
        opts = options or SummaryEvalOptions()
        files = [Path(docs_dir) / name for name in opts.papers[: opts.limit]]
        files = [f for f in files if f.exists()]
        with self.evaluation.eval_library(files, workdir, progress) as (lib, ingested):
            report = summary_runs(lib.answers.ctx, opts, progress)
            report["model"] = _model_name(lib)
        return report | ingested
