"""CLI commands of the route evaluations: `eval routes LABELLED_JSONL` (the router's accuracy)
and `eval counts QUESTIONS_JSONL DOCS_DIR` (exact counts over documents with known counts)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from desktop_rag.cli.output import emit_json, open_services, say
from desktop_rag.progress import ProgressEvent
from desktop_rag.retrieval.pdfqa import DOCUMENT, LIBRARY

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


def run_routes(args: argparse.Namespace) -> int:
    with open_services(args) as services:
        report = services.eval_routes(args.questions)
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
    from desktop_rag.services.route_evaluation import CountEvalOptions

    path = Path(args.out).expanduser() if args.out else Path.cwd() / "counts-eval.jsonl"
    workdir = Path(args.workdir).expanduser().resolve() if args.workdir else None
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out, open_services(args) as services:

        def write(record: dict[str, Any]) -> None:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            out.flush()

        options = CountEvalOptions(args.limit, args.scope, args.route, write)
        report = services.eval_counts(args.questions, args.docs, _progress, workdir, options)
    report["records"] = str(path)
    if args.json:
        emit_json(report)
        return 0
    _print_counts(report)
    return 0


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
