"""CLI commands of the route evaluations: `eval routes LABELLED_JSONL` (the router's accuracy),
`eval counts QUESTIONS_JSONL DOCS_DIR` (exact counts over documents with known counts) and
`eval summaries DOCS_DIR` (summaries of papers scored against their held-out abstracts)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from desktop_rag.cli.output import emit_json, emit_report, jsonl_records, open_services, say
from desktop_rag.domain.progress import ProgressEvent
from desktop_rag.evaluation import Evaluations
from desktop_rag.evaluation.pdfqa import DOCUMENT, LIBRARY

ROUTES = ("lookup", "summary", "exhaustive", "compare")


def register(kinds: Any) -> None:  # argparse's _SubParsersAction is private
    routes = kinds.add_parser(
        "routes", help="the question router: accuracy on a labelled set, per split, and its cost"
    )
    routes.add_argument("questions", metavar="LABELLED_JSONL",
                        help="one {question, route, split} per line "
                        "(bench/data/route_questions.jsonl)")  # fmt: skip
    routes.add_argument("--json", action="store_true", help="print one JSON document")
    routes.set_defaults(func=run_routes)
    counts = kinds.add_parser(
        "counts", help="lists and counts over documents with known counts: exact counts, items "
        "cited to their pages (make them with: python -m bench.count_docs OUT)",
    )  # fmt: skip
    counts.add_argument("questions", metavar="QUESTIONS_JSONL")
    counts.add_argument("docs", metavar="DOCS_DIR")
    counts.add_argument("--json", action="store_true", help="print one JSON document")
    counts.add_argument("--workdir", metavar="DIR", help="keep the evaluation library here")
    counts.add_argument("--limit", type=int, metavar="N", help="the first N questions only")
    counts.add_argument(
        "--scope",
        choices=(DOCUMENT, LIBRARY),
        default=DOCUMENT,
        help="ask each question of its own document (default) or of the library",
    )
    counts.add_argument("--route", choices=ROUTES, help="force a route (default: the router's)")
    counts.add_argument("--out", metavar="FILE",
                        help="per-question records (default counts-eval.jsonl here)")  # fmt: skip
    counts.set_defaults(func=run_counts)
    _register_summaries(kinds)


def _register_summaries(kinds: Any) -> None:
    summaries = kinds.add_parser(
        "summaries", help="summaries of papers with their abstracts held out: coverage of the "
        "abstract's key points, sentences supported by the text, time, cached second summary",
    )  # fmt: skip
    summaries.add_argument("docs", metavar="DOCS_DIR",
                           help="the papers' folder (../shared/data/mmlongbench/documents)")
    summaries.add_argument("--paper", action="append", metavar="FILE",
                           help="a paper's file name in DOCS_DIR (repeat; default: five arXiv "
                           "papers)")  # fmt: skip
    summaries.add_argument("--limit", type=int, metavar="N", help="the first N papers only")
    summaries.add_argument("--question", help="the summary question asked of each paper")
    summaries.add_argument("--hold-out", choices=("abstract", "pages"), default="abstract",
                           help="hold out the abstract's text (default) or its whole page(s)")
    summaries.add_argument("--no-reworded", action="store_true",
                           help="skip the second summary in other words (kept sections)")
    summaries.add_argument("--json", action="store_true", help="print one JSON document")
    summaries.add_argument("--workdir", metavar="DIR", help="keep the evaluation library here")
    summaries.add_argument("--out", metavar="FILE",
                           help="per-paper records (default summaries-eval.jsonl here)")
    summaries.set_defaults(func=run_summaries)


def run_routes(args: argparse.Namespace) -> int:
    with open_services(args) as services:
        report = Evaluations(services).eval_routes(args.questions)
    if args.json:
        emit_json(report)
        return 0
    say(f"{report['questions']} labelled questions: accuracy {report['accuracy']:.3f}")
    for split, row in report["by_split"].items():
        say(f"  {split:5} {row['questions']:>4} questions, accuracy {row['accuracy']:.3f}")
    for name, row in report["by_route"].items():
        say(f"  {name:18} {row['questions']:>4} questions, accuracy {row['accuracy']:.3f}")
    say(f"router time per question: median {report['router_ms_p50']} ms, "
        f"max {report['router_ms_max']} ms")  # fmt: skip
    for miss in report["misses"]:
        say(f"  miss [{miss['split']}] {miss['label']} -> {miss['routed']}: {miss['question']}")
    return 0


def _progress(event: ProgressEvent) -> None:
    if event.stage == "answer":
        sys.stderr.write(f"\rquestion {event.done}/{event.total}, {event.message}")
        sys.stderr.write("\n" if event.done == event.total else "")
        sys.stderr.flush()


def run_counts(args: argparse.Namespace) -> int:
    from desktop_rag.evaluation.route_runs import CountEvalOptions

    path = Path(args.out).expanduser() if args.out else Path.cwd() / "counts-eval.jsonl"
    workdir = Path(args.workdir).expanduser().resolve() if args.workdir else None
    with jsonl_records(path) as write, open_services(args) as services:
        options = CountEvalOptions(args.limit, args.scope, args.route, write)
        evaluations = Evaluations(services)
        report = evaluations.eval_counts(args.questions, args.docs, _progress, workdir, options)
    return emit_report(report, path, args.json, _print_counts)


def _print_counts(r: dict[str, Any]) -> None:
    say(
        f"{r['questions']} questions over {r['documents']} documents, scope {r['scope']}, "
        f"model {r['model']}; {r['routed_exhaustive']} answered by the exhaustive route"
    )
    say(
        f"exact counts {r['exact']:.3f}; every item cited to its page {r['all_cited']:.3f}; "
        f"item recall {r['item_recall']:.3f}; mean absolute error {r['mean_abs_error']}"
    )
    say(f"model calls {r['model_calls']}; time per answer: median {r['total_ms_p50']} ms, "
        f"max {r['total_ms_max']} ms")  # fmt: skip
    for family, row in r["by_family"].items():
        say(f"  {family:10} {row['questions']:>3} questions: exact {row['exact']:.3f}, "
            f"all cited {row['all_cited']:.3f}, item recall {row['item_recall']:.3f}")  # fmt: skip
    say(f"records: {r['records']}")


def run_summaries(args: argparse.Namespace) -> int:
    from desktop_rag.evaluation.summary_runs import (
        PAPERS,
        QUESTION,
        SummaryEvalOptions,
    )

    path = Path(args.out).expanduser() if args.out else Path.cwd() / "summaries-eval.jsonl"
    workdir = Path(args.workdir).expanduser().resolve() if args.workdir else None
    with jsonl_records(path) as write, open_services(args) as services:
        options = SummaryEvalOptions(tuple(args.paper or PAPERS), args.limit,
                                     args.question or QUESTION, args.hold_out == "pages",
                                     again=not args.no_reworded, on_record=write)  # fmt: skip
        evaluation = Evaluations(services).route_evaluation
        report = evaluation.eval_summaries(args.docs, _progress, workdir, options)
    return emit_report(report, path, args.json, _print_summaries)


def _print_summaries(r: dict[str, Any]) -> None:
    say(f"{r['scored']} of {r['papers']} papers scored (abstract held out: {r['held_out']}), "
        f"model {r['model']}, support threshold {r['threshold']}")  # fmt: skip
    for p in r["per_paper"]:
        if not p.get("abstract_found"):
            say(f"  {p['paper']}: no abstract found, not scored")
            continue
        say(f"  {p['paper']:22} {p['pages']:>3} pages: coverage {p['coverage']:.2f} "
            f"({p['covered']}/{p['key_points']}; the text itself {p['covered_by_text']}), "
            f"supported {p['supported_share']:.2f} "
            f"({p['sentences_supported']}/{p['sentences_checked']}), {p['time_s']} s, "
            f"cached again: first token {p['second_ttft_ms']:.0f} ms")  # fmt: skip
    if r.get("key_points"):
        say(f"key points covered {r['covered']}/{r['key_points']}; by the papers' own text "
            f"(abstracts held out), the most a summary could reach: {r['covered_by_text']}")
    say(f"mean coverage {r['mean_coverage']} (by support score alone "
        f"{r.get('mean_coverage_by_score')}), mean supported {r['mean_supported_share']}, "
        f"mean time {r['mean_time_s']} s, second summary first token {r['mean_second_ttft_ms']} "
        f"ms, reworded first token {r['mean_reworded_ttft_ms']} ms")  # fmt: skip
    say(f"records: {r['records']}")
