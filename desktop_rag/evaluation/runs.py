"""Service facade: evaluation on real data (BEIR folders, PDF question sets, answer accuracy).

Each evaluation builds a throwaway library in a temporary folder (or in `workdir` when given, so
that a second run reuses it), sharing this process's loaded models.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_rag.bootstrap import AppContext, build_context
from desktop_rag.domain import EVERYWHERE, DocScope
from desktop_rag.domain.errors import DesktopRagError
from desktop_rag.domain.progress import ProgressCallback, ProgressEvent, no_progress
from desktop_rag.domain.protocols import Reranker
from desktop_rag.evaluation.eval_sets import gap_of, qid, split_summary, with_rephrasings
from desktop_rag.evaluation.pdfqa import DOCUMENT, LIBRARY
from desktop_rag.evaluation.splits import ALL, only, side_by_side
from desktop_rag.retrieval import rerank as rr
from desktop_rag.services.answer import AnswerService
from desktop_rag.services.core import CoreService
from desktop_rag.services.library import LibraryService
from desktop_rag.services.ports import Warmable
from desktop_rag.services.rerankers import Rerankers
from desktop_rag.services.searching import SearchService

if TYPE_CHECKING:
    from desktop_rag.evaluation.answer_eval import AnswerQuestion

log = logging.getLogger(__name__)

PDFQA_MODES = ("hybrid", "dense", "bm25")
PDFQA_SCOPES = (LIBRARY, DOCUMENT)


@dataclass(frozen=True, slots=True)
class EvalLibrary:
    """The services of an evaluation library: what the evaluations call."""

    library: LibraryService
    search: SearchService
    answers: AnswerService

    @classmethod
    def over(cls, ctx: AppContext) -> EvalLibrary:
        search = SearchService(ctx, Rerankers(ctx))
        answers = AnswerService(ctx, search, CoreService(ctx), search.focus_finder.focus)
        return cls(LibraryService(ctx), search, answers)


def _pdfqa_runs(
    lib: EvalLibrary, items: Sequence[Any], rerank: str, progress: ProgressCallback
) -> dict[str, Any]:
    """Every answerable question in every mode, over the whole library and within its own
    document (MMLongBench asks each question of one document); refusal rates over the library."""
    from desktop_rag.evaluation import pdfqa
    by_name = {Path(d.path).name: d.doc_id for d in lib.library.list_documents()}
    tables = {(sc, mode): pdfqa.HitTable() for sc in PDFQA_SCOPES for mode in PDFQA_MODES}
    flagged = {True: [0, 0], False: [0, 0]}  # answerable -> [questions, flagged insufficient]
    documents = pdfqa.DocumentRanks()
    for n, q in enumerate(items, start=1):
        for mode in PDFQA_MODES if q.answerable else ("hybrid",):
            result = lib.search.search(q.question, k=10, mode=mode, rerank=rerank)
            if q.answerable:
                tables[LIBRARY, mode].add(q, pdfqa.first_hit(q, result.results))
                if mode == "hybrid":
                    documents.add(pdfqa.gold_document_rank(q, result))
                own = DocScope(only=frozenset({by_name.get(q.doc, "")}))
                scoped = lib.search.search(q.question, k=10, mode=mode, rerank=rerank, scope=own)
                tables[DOCUMENT, mode].add(q, pdfqa.first_hit(q, scoped.results))
            if mode == "hybrid":
                flagged[q.answerable][0] += 1
                flagged[q.answerable][1] += int(result.insufficient_evidence)
        progress(ProgressEvent("query", done=n, total=len(items)))
    return {
        "questions": sum(1 for q in items if q.answerable),
        "reranker": rerank,
        "by_source": tables[LIBRARY, "hybrid"].report(),
        "by_mode": {mode: tables[LIBRARY, mode].report() for mode in PDFQA_MODES},
        "gold_document": documents.report(),
        "within_document": {
            "by_source": tables[DOCUMENT, "hybrid"].report(),
            "by_mode": {mode: tables[DOCUMENT, mode].report() for mode in PDFQA_MODES},
        },
        "insufficient_evidence_rate": {
            "answerable": round(flagged[True][1] / max(flagged[True][0], 1), 4),
            "not_answerable": round(flagged[False][1] / max(flagged[False][0], 1), 4),
        },
    }


@dataclass(frozen=True, slots=True)
class AnswerEvalOptions:
    limit: int | None = None  # a stratified subset of this many questions
    scope: str = DOCUMENT  # each question asked of its own document, or of the whole library
    on_record: Callable[[dict[str, Any]], None] = field(default=lambda _record: None)
    sources: tuple[str, ...] = ()  # only questions with one of these evidence sources (all: ())
    route: str | None = None  # every question by this route (None: the router chooses)
    split: str = ALL  # dev, test or all (evaluation/splits.py: a hash of the question id)
    rephrasings: Path | None = None  # also ask each question's rewordings in this file


def _answer_sources(docs_dir: Path, items: Sequence[AnswerQuestion], scope: str) -> list[Path]:
    """Asked of their own documents, the questions need only those: a short run of a few
    questions then ingests a few documents, not the whole folder."""
    if scope != DOCUMENT:
        return [docs_dir]
    files = sorted({docs_dir / q.base.doc for q in items if q.base.doc})
    return [f for f in files if f.is_file()] or [docs_dir]


def _answer_runs(
    lib: EvalLibrary,
    items: Sequence[AnswerQuestion],
    opts: AnswerEvalOptions,
    progress: ProgressCallback,
) -> list[dict[str, Any]]:
    from desktop_rag.evaluation import answer_eval
    by_name = {Path(d.path).name: d.doc_id for d in lib.library.list_documents()}
    records: list[dict[str, Any]] = []
    for n, q in enumerate(items, start=1):
        own = DocScope(only=frozenset({by_name.get(q.base.doc, "")}))
        scope = own if opts.scope == DOCUMENT else EVERYWHERE
        answer = lib.answers.ask(q.base.question, scope=scope, route=opts.route)
        records.append(answer_eval.record(q, answer))
        opts.on_record(records[-1])
        accuracy = f"accuracy {answer_eval.running_accuracy(records):.2f}"
        progress(ProgressEvent("answer", done=n, total=len(items), message=accuracy))
    return records


def _warm_sparse(ctx: AppContext) -> None:
    """Every query of an evaluation then meets the same sparse index (the in-memory snapshot)."""
    if isinstance(ctx.sparse, Warmable):
        ctx.sparse.warm()


class EvalService:
    """Evaluations on real data, each over a throwaway library sharing this context's models."""

    def __init__(self, ctx: AppContext, rerankers: Rerankers) -> None:
        self.ctx = ctx
        self.rerankers = rerankers

    @contextmanager
    def eval_context(self, workdir: Path | None = None) -> Iterator[AppContext]:
        """A separate library that shares this process's embedder, tokenizer and registry."""
        folder = workdir or Path(tempfile.mkdtemp(prefix="desktop-rag-eval-"))
        mine = self.ctx
        ctx = build_context(str(folder), settings=mine.settings)  # frozen: shared safely
        ctx.provide(compute=mine.compute, embedder=mine.embedder,
                    token_counter=mine.token_counter, registry=mine.registry)
        if mine.loaded("engine"):
            ctx.provide(engine=mine.engine)
        try:
            yield ctx
        finally:
            for owned in ("engine", "compute"):  # owned by self.ctx
                ctx.release(owned)
            ctx.close()
            if workdir is None:
                shutil.rmtree(folder, ignore_errors=True)

    def eval_rerankers(self, names: Sequence[str] | None = None) -> dict[str, Reranker]:
        """The re-rankers to evaluate: those named, else the cross-encoder when configured and
        the LLM when it runs on a GPU (one prompt per candidate is too slow on a CPU)."""
        if names is None:
            names = [n for n in self.rerankers.available() if n != rr.NONE]
            names = [n for n in names if n != rr.LLM or self.rerankers.llm_practical()]
        out: dict[str, Reranker] = {}
        for name in names:
            try:
                built = self.rerankers.build(name)
            except DesktopRagError as exc:
                log.warning("re-ranker %s skipped: %s", name, exc)
                continue
            if built is not None:
                out[name] = built
        return out

    def eval_beir(
        self,
        folder: str | Path,
        progress: ProgressCallback = no_progress,
        rerankers: Sequence[str] | None = None,
        workdir: Path | None = None,
        keep_runs: bool = False,
    ) -> dict[str, Any]:
        """nDCG@10, Recall@100, MRR@10 and latency of every mode (and re-ranker) on a BEIR
        folder; with `keep_runs`, the ranked document ids per mode and query too."""
        from desktop_rag.evaluation import beir, beir_eval
        from desktop_rag.retrieval.hybrid import HybridRetriever
        from desktop_rag.services.searching import hybrid_config

        data = beir.load_beir(Path(folder))
        chosen = self.eval_rerankers(rerankers)
        cache = beir.EmbeddingCache(
            self.ctx.paths.cache_dir / "eval-embeddings", self.ctx.embedder
        )
        with self.eval_context(workdir) as ectx:
            start = time.perf_counter()
            index = beir.index_corpus(ectx.catalog, ectx.vectors, cache, data, progress)
            index_s = time.perf_counter() - start
            _warm_sparse(ectx)
            retriever = HybridRetriever(
                ectx.embedder, ectx.vectors, ectx.sparse, ectx.catalog, hybrid_config(ectx)
            )
            runs = beir_eval.QueryRuns()
            for n, (qid, query) in enumerate(sorted(data.queries.items()), start=1):
                beir_eval.run_query(
                    retriever,
                    qid,
                    query,
                    index,
                    chosen,
                    ectx.settings.retrieval.rerank_candidates,
                    runs,
                )
                progress(ProgressEvent("query", done=n, total=len(data.queries)))
        return {
            "dataset": str(folder),
            "documents": len(data.corpus),
            "queries": len(data.queries),
            "passages": index.passages,
            "embedded_passages": index.embedded,
            "embedder": self.ctx.embedder.name,
            "index_s": round(index_s, 1),
            "rerankers": sorted(chosen),
            "rerank_candidates": self.ctx.settings.retrieval.rerank_candidates,
            "metrics": beir_eval.evaluate_runs(runs, data),
        } | ({"runs": runs.runs} if keep_runs else {})

    @contextmanager
    def eval_library(
        self, sources: Sequence[Path], workdir: Path | None, progress: ProgressCallback
    ) -> Iterator[tuple[EvalLibrary, dict[str, Any]]]:
        """Services over an evaluation library holding the files and folders `sources` (ingested
        anew, or brought up to date in `workdir`), with the ingestion's counts for the report."""
        with self.eval_context(workdir) as ectx:
            services = EvalLibrary.over(ectx)
            start = time.perf_counter()
            ingest = services.library.ingest(list(sources), progress)
            ingest_s = time.perf_counter() - start
            _warm_sparse(ectx)
            indexed = sum(1 for o in ingest.outcomes if o.doc_id and o.outcome.value != "failed")
            yield services, {"documents": indexed, "ingest_s": round(ingest_s, 1)}

    def eval_pdfqa(
        self,
        questions: str | Path,
        docs_dir: str | Path,
        progress: ProgressCallback = no_progress,
        workdir: Path | None = None,
        rerank: str = "none",
        split: str = ALL,
    ) -> dict[str, Any]:
        """Evidence-page hit@1/5/10 by evidence source, all documents in one library; the
        questions of one split (dev, test) or all."""
        from desktop_rag.evaluation import pdfqa
        items = only(pdfqa.load_questions(Path(questions)), split, lambda q: q.qid)
        with self.eval_library([Path(docs_dir)], workdir, progress) as (services, ingested):
            report = _pdfqa_runs(services, items, rerank, progress)
        return report | ingested | {"split": split}

    def eval_answers(
        self,
        questions: str | Path,
        docs_dir: str | Path,
        progress: ProgressCallback = no_progress,
        workdir: Path | None = None,
        options: AnswerEvalOptions | None = None,
    ) -> dict[str, Any]:
        """Answer accuracy through the real answer path (`ask`), scored rule-based the way
        MMLongBench-Doc scores; each question asked of its own document unless the scope is
        the library. Every record goes to `options.on_record` as soon as it is scored."""
        from desktop_rag.evaluation import answer_eval
        opts = options or AnswerEvalOptions()
        every = answer_eval.load_answer_questions(Path(questions))
        asked = only(answer_eval.of_sources(every, opts.sources), opts.split, qid)
        items = answer_eval.select(asked, opts.limit)
        if opts.rephrasings is not None:
            items = with_rephrasings(items, opts.rephrasings)
        model = self.ctx.engine.name  # loaded here, so the evaluation library shares it
        sources = _answer_sources(Path(docs_dir), items, opts.scope)
        with self.eval_library(sources, workdir, progress) as (services, ingested):
            records = _answer_runs(services, items, opts, progress)
        report = answer_eval.summarise(records) | ingested | {"scope": opts.scope, "model": model}
        by_split = side_by_side(records, split_summary)
        report |= {"split": opts.split, "by_split": by_split, "split_gap": gap_of(by_split)}
        if opts.rephrasings is not None:
            from desktop_rag.evaluation.rephrase_eval import answers_report

            report["rephrased"] = answers_report(records)
        return report
