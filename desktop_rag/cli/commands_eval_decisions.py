"""`eval decisions [REPHRASINGS_JSONL]`: whether the decisions taken before the model reads
(route, calculation or not, its shape, a ratio worksheet) stay the same when a question is
reworded. No model and no library: it runs in a second over the whole rephrasing set."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_rag.cli.eval_split import REPHRASINGS, add_split
from desktop_rag.cli.output import emit_json, say

if TYPE_CHECKING:
    from desktop_rag.evaluation.rephrase_eval import RouteOf

DEFAULT = REPHRASINGS
COLUMNS = ("route_same", "calculation_same", "shape_same", "worksheet_same")


def register(kinds: Any) -> None:  # argparse's _SubParsersAction is private
    parser = kinds.add_parser(
        "decisions", help="route and calculation decisions on questions and their rewordings "
        "(no model): how often a rewording changes them",
    )  # fmt: skip
    parser.add_argument("rephrasings", nargs="?", default=DEFAULT, metavar="REPHRASINGS_JSONL",
                        help="rewordings with their originals (default the checkout's "
                        "bench/data/rephrasings.jsonl)")
    add_split(parser)
    parser.add_argument("--workdir", type=Path, metavar="DIR",
                        help="an evaluation library (`eval answers --workdir`): the route is then "
                        "the app's, a 'how many' the router leaves to the scope decided by the "
                        "question's document")  # fmt: skip
    parser.add_argument("--questions", type=Path, metavar="QUESTIONS_JSONL",
                        help="with --workdir: the questions naming each one's document (doc)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--changed", action="store_true", help="list every changed decision")
    parser.set_defaults(func=run_decisions)


def run_decisions(args: argparse.Namespace) -> int:
    from desktop_rag.evaluation.rephrase_eval import evaluate, load_rephrasings

    items = load_rephrasings(Path(args.rephrasings))
    if args.workdir is None:
        report = evaluate(items, args.split)
    else:
        with _library_routes(args) as route_of:
            report = evaluate(items, args.split, route_of=route_of)
    if args.json:
        emit_json(report)
        return 0
    say(f"{report['rephrasings']} rewordings (split {args.split}); share that keeps the "
        "original's decision:")  # fmt: skip
    say(f"{'':18}{'rewordings':>11}" + "".join(f"{c:>18}" for c in COLUMNS))
    _row("all", report)
    for title in ("by_split", "by_set", "by_kind"):
        for name, row in report[title].items():
            _row(f"{title[3:]} {name}", row)
    _intervals(report["by_split"])
    if args.changed:
        for c in report["changed"]:
            b, a = c["before"], c["after"]
            say(f"  {c['id']}: {b['route']}/{b['calculation']} -> {a['route']}/"
                f"{a['calculation']}: {c['rephrased']}")  # fmt: skip
    return 0


@contextmanager
def _library_routes(args: argparse.Namespace) -> Iterator[RouteOf]:
    """The app's routes over the evaluation library in `--workdir`, each question within its
    document as `--questions` names it."""
    from desktop_rag.evaluation.jsonl import read_jsonl
    from desktop_rag.evaluation.route_evidence import EvidenceRoutes
    from desktop_rag.store.documents import Catalog

    if args.questions is None:
        raise SystemExit("--workdir needs --questions: the file naming each question's document")
    database = args.workdir / "data" / "catalog.sqlite3"
    if not database.is_file():
        raise SystemExit(f"{args.workdir}: no evaluation library there (no data/catalog.sqlite3)")
    rows = read_jsonl(args.questions, "questions", ("id", "doc"))
    catalog = Catalog(database)
    try:
        yield EvidenceRoutes(catalog, {str(r["id"]): str(r["doc"]) for r in rows})
    finally:
        catalog.close()


def _intervals(by_split: dict[str, dict[str, Any]]) -> None:
    """The 95% interval of each split's shares: how far the true share may be from the one
    measured on this many rewordings."""
    for name, row in by_split.items():
        parts = [f"{key} {low:.3f}-{high:.3f}" for key, (low, high) in row["intervals_95"].items()]
        say(f"95% intervals, {name}: " + ", ".join(parts))


def _row(name: str, row: dict[str, Any]) -> None:
    say(f"{name:18}{row['rephrasings']:>11}" + "".join(f"{row[c]!s:>18}" for c in COLUMNS))
