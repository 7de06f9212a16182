"""CLI commands of the eval area: `eval beir DIR`, `eval pdfqa QUESTIONS_JSONL DOCS_DIR`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from desktop_rag.cli.output import emit_json, open_services, say
from desktop_rag.progress import ProgressEvent


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
    pdfqa.set_defaults(func=run_pdfqa)


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
        report = services.eval_beir(args.folder, stderr_progress, names, _workdir(args))
    if args.json:
        emit_json(report)
        return 0
    say(f"{report['dataset']}: {report['documents']} documents ({report['passages']} passages), "
        f"{report['queries']} queries, embedder {report['embedder']}")  # fmt: skip
    print_table(report["metrics"], ["nDCG@10", "Recall@100", "MRR@10", "p50_ms", "p95_ms"])
    return 0


def run_pdfqa(args: argparse.Namespace) -> int:
    with open_services(args) as services:
        report = services.eval_pdfqa(
            args.questions, args.docs, stderr_progress, _workdir(args), args.rerank
        )
    if args.json:
        emit_json(report)
        return 0
    say(f"{report['documents']} documents, {report['questions']} answerable questions")
    columns = ["questions", "hit@1", "hit@5", "hit@10"]
    say("\nSearching the whole library (hybrid):")
    print_table(report["by_source"], columns)
    say("\nSearching within the question's document (hybrid):")
    print_table(report["within_document"]["by_source"], columns)
    return 0


def print_table(rows: dict[str, dict[str, float]], columns: list[str]) -> None:
    width = max([len(r) for r in rows] + [6])
    say(f"{'':{width}}  " + "  ".join(f"{c:>10}" for c in columns))
    for name, values in rows.items():
        say(f"{name:{width}}  " + "  ".join(f"{values.get(c, 0):>10.4g}" for c in columns))
