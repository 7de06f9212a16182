"""CLI commands of the eval area: `eval beir DIR`, `eval pdfqa QUESTIONS_JSONL DOCS_DIR`,
`eval answers QUESTIONS_JSONL DOCS_DIR`; the route evaluations (`eval routes`, `eval counts`)
are in commands_eval_routes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from desktop_rag.cli import commands_eval_decisions, commands_eval_routes
from desktop_rag.cli.eval_split import REPHRASINGS, add_split
from desktop_rag.cli.output import emit_json, emit_report, jsonl_records, open_services, say
from desktop_rag.domain.progress import ProgressEvent
from desktop_rag.evaluation import Evaluations
from desktop_rag.evaluation.pdfqa import DOCUMENT, LIBRARY


def register(sub: Any) -> None:  # argparse's _SubParsersAction is private
    parser = sub.add_parser("eval", help="evaluate retrieval on real data")
    kinds = parser.add_subparsers(dest="eval_kind", metavar="KIND", required=True)
    beir = kinds.add_parser("beir", help="a BEIR folder: nDCG@10, Recall@100, MRR@10 per mode")
    beir.add_argument("folder", metavar="DIR")
    _common(beir)
    beir.add_argument(
        "--rerankers", metavar="LIST", help="comma-separated (default: practical ones)"
    )
    beir.set_defaults(func=run_beir)
    pdfqa = kinds.add_parser("pdfqa", help="questions over PDFs: evidence-page hit@1/5/10")
    pdfqa.add_argument("questions", metavar="QUESTIONS_JSONL")
    pdfqa.add_argument("docs", metavar="DOCS_DIR")
    _common(pdfqa)
    pdfqa.add_argument("--rerank", default="none", help="re-ranker for the searches (default none)")
    add_split(pdfqa)
    pdfqa.set_defaults(func=run_pdfqa)
    _register_answers(kinds)
    commands_eval_routes.register(kinds)
    commands_eval_decisions.register(kinds)


def _register_answers(kinds: Any) -> None:
    answers = kinds.add_parser(
        "answers", help="questions over PDFs: answer accuracy (MMLongBench-Doc scoring)"
    )
    answers.add_argument("questions", metavar="QUESTIONS_JSONL")
    answers.add_argument("docs", metavar="DOCS_DIR")
    _common(answers)
    answers.add_argument(
        "--limit", type=int, metavar="N", help="a subset spread over sources and documents"
    )
    answers.add_argument(
        "--scope",
        choices=(DOCUMENT, LIBRARY),
        default=DOCUMENT,
        help="ask each question of its own document (default) or of the whole library",
    )
    answers.add_argument(
        "--out", metavar="FILE", help="per-question records (default answers-eval.jsonl here)"
    )
    answers.add_argument(
        "--sources", metavar="LIST", type=_source_list, default=(),
        help="only questions whose evidence is in these, comma-separated: "
        "text, table, layout, chart, figure, none (unanswerable); default all",
    )  # fmt: skip
    answers.add_argument(
        "--route", choices=("lookup", "summary", "exhaustive", "compare"), default=None,
        help="answer every question by this route (default: the router chooses)",
    )  # fmt: skip
    add_split(answers)
    answers.add_argument(
        "--rephrased", nargs="?", const=REPHRASINGS, metavar="FILE",
        help="ask only questions that have rewordings, each with them (default file "
        "bench/data/rephrasings.jsonl); report originals and rewordings side by side",
    )  # fmt: skip
    answers.set_defaults(func=run_answers)


def _source_list(text: str) -> tuple[str, ...]:
    from desktop_rag.evaluation.answer_eval import SOURCE_NAMES

    names = tuple(n.strip().lower() for n in text.split(",") if n.strip())
    unknown = [n for n in names if n not in SOURCE_NAMES]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown source {unknown[0]!r}; use {', '.join(SOURCE_NAMES)}"
        )
    return names


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument(
        "--workdir", metavar="DIR", help="keep the evaluation library here (reused)"
    )


def stderr_progress(event: ProgressEvent) -> None:
    if event.total and (event.done == event.total or event.done % 50 == 0):
        sys.stderr.write(f"\r{event.stage}: {event.done}/{event.total}")
        sys.stderr.flush()
        if event.done == event.total:
            sys.stderr.write("\n")


def _workdir(args: argparse.Namespace) -> Path | None:
    return Path(args.workdir).expanduser().resolve() if args.workdir else None


def run_beir(args: argparse.Namespace) -> int:
    names = [n.strip() for n in args.rerankers.split(",") if n.strip()] if args.rerankers else None
    with open_services(args) as services:
        evaluations = Evaluations(services)
        report = evaluations.eval_beir(args.folder, stderr_progress, names, _workdir(args))
    if args.json:
        emit_json(report)
        return 0
    say(f"{report['dataset']}: {report['documents']} documents ({report['passages']} passages), "
        f"{report['queries']} queries, embedder {report['embedder']}")  # fmt: skip
    print_table(report["metrics"], ["nDCG@10", "Recall@100", "MRR@10", "p50_ms", "p95_ms"])
    return 0


def run_pdfqa(args: argparse.Namespace) -> int:
    with open_services(args) as services:
        report = Evaluations(services).eval_pdfqa(
            args.questions, args.docs, stderr_progress, _workdir(args), args.rerank, args.split
        )
    if args.json:
        emit_json(report)
        return 0
    say(f"{report['documents']} documents, {report['questions']} answerable questions"
        f" (split {report['split']})")  # fmt: skip
    columns = ["questions", "hit@1", "hit@5", "hit@10"]
    say("\nSearching the whole library (hybrid):")
    print_table(report["by_source"], columns)
    ranked = report["gold_document"]
    say(f"The question's document ranked first for {ranked['first']:.0%} of the questions,"
        f" among the first three for {ranked['top3']:.0%}.")  # fmt: skip
    say("\nSearching within the question's document (hybrid):")
    print_table(report["within_document"]["by_source"], columns)
    return 0


def _records_path(args: argparse.Namespace) -> Path:
    if args.out:
        return Path(args.out).expanduser()
    return (_workdir(args) or Path.cwd()) / "answers-eval.jsonl"


def answers_progress(event: ProgressEvent) -> None:
    """Every answer (they take seconds each) with the running accuracy; ingestion as usual."""
    if event.stage != "answer":
        stderr_progress(event)
        return
    sys.stderr.write(f"\rquestion {event.done}/{event.total}, {event.message}")
    sys.stderr.write("\n" if event.done == event.total else "")
    sys.stderr.flush()


def run_answers(args: argparse.Namespace) -> int:
    from desktop_rag.evaluation.runs import AnswerEvalOptions

    path = _records_path(args)
    with jsonl_records(path) as write, open_services(args) as services:
        rephrased = Path(args.rephrased) if args.rephrased else None
        options = AnswerEvalOptions(
            args.limit, args.scope, write, args.sources, args.route, args.split, rephrased
        )
        report = Evaluations(services).eval_answers(
            args.questions, args.docs, answers_progress, _workdir(args), options
        )
    return emit_report(report, path, args.json, print_answers)


def print_answers(report: dict[str, Any]) -> None:
    r = report
    say(f"{r['questions']} questions ({r['answerable']} answerable) over {r['documents']} "
        f"documents, scope {r['scope']}, model {r['model']}")  # fmt: skip
    say(f"accuracy {r['accuracy']:.3f} (partial-credit score {r['score']:.3f}, F1 {r['f1']:.3f});"
        f" unanswerable refused: {r['refusal_rate_unanswerable']}")  # fmt: skip
    say(f"median time to first token {r['ttft_ms_p50']} ms, total {r['total_ms_p50']} ms")
    print_splits(r.get("by_split", {}), r.get("split_gap"))
    print_rephrased(r.get("rephrased", {}))
    columns = ["questions", "accuracy", "score", "refused"]
    for title, key in (("answer format", "by_format"), ("evidence source", "by_source")):
        say(f"\nBy {title}:")
        print_table(report[key], columns)
    say("\nAnswerable questions by retrieval (refused = false refusals):")
    print_table(report["by_retrieval"], columns)
    say(f"\nrecords: {report['records']}")


def print_splits(
    by_split: dict[str, dict[str, Any]], gap: dict[str, Any] | None = None
) -> None:
    """Dev and test side by side: a gain that holds only on dev was tuned, not earned. Each
    accuracy with its 95% interval, and the gap with its own: a gap chance alone could give
    says neither."""
    if not by_split:
        return
    say("\nBy split (a hash of the question id; dev = tuned on, test = held out):")
    for name, row in by_split.items():
        refused = row.get("refusal_rate_unanswerable")
        low, high = row.get("accuracy_95", (0.0, 1.0))
        say(f"  {name:5} {row['questions']:>4} questions: accuracy {row['accuracy']:.3f} "
            f"(95% interval {low:.2f}-{high:.2f}), score {row['score']:.3f}, "
            f"unanswerable refused {refused}")  # fmt: skip
    if gap:
        low, high = gap["interval_95"]
        verdict = "chance alone could give it" if gap["within_chance"] else "beyond chance"
        say(f"  dev - test {gap['dev_minus_test']:+.3f} (95% interval {low:+.2f} to {high:+.2f}:"
            f" {verdict})")  # fmt: skip


def print_rephrased(by_split: dict[str, dict[str, Any]]) -> None:
    """Originals and their rewordings: accuracy, and how often the outcome, route and
    calculation decision stayed the same."""
    if by_split:
        say("\nOriginals against their rewordings:")
    for name, row in by_split.items():
        o, r = row["originals"], row["rephrased"]
        say(f"  {name:5} originals {o['questions']} accuracy {o['accuracy']}, refused "
            f"{o['refused']}; rewordings {r['questions']} accuracy {r['accuracy']}, refused "
            f"{r['refused']}; same outcome {row['outcome_same']}, same route "
            f"{row['route_same']}, same calculation decision {row['calculation_same']}")


def print_table(rows: dict[str, dict[str, float]], columns: list[str]) -> None:
    width = max([len(r) for r in rows] + [6])
    say(f"{'':{width}}  " + "  ".join(f"{c:>10}" for c in columns))
    for name, values in rows.items():
        say(f"{name:{width}}  " + "  ".join(f"{values.get(c, 0):>10.4g}" for c in columns))
