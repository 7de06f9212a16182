"""`eval decisions [REPHRASINGS_JSONL]`: whether the decisions taken before the model reads
(route, calculation or not, its shape, a ratio worksheet) stay the same when a question is
reworded. No model and no library: it runs in a second over the whole rephrasing set."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from desktop_rag.cli.eval_split import REPHRASINGS, add_split
from desktop_rag.cli.output import emit_json, say

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
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--changed", action="store_true", help="list every changed decision")
    parser.set_defaults(func=run_decisions)


def run_decisions(args: argparse.Namespace) -> int:
    from desktop_rag.evaluation.rephrase_eval import evaluate, load_rephrasings

    report = evaluate(load_rephrasings(Path(args.rephrasings)), args.split)
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
    if args.changed:
        for c in report["changed"]:
            b, a = c["before"], c["after"]
            say(f"  {c['id']}: {b['route']}/{b['calculation']} -> {a['route']}/"
                f"{a['calculation']}: {c['rephrased']}")  # fmt: skip
    return 0


def _row(name: str, row: dict[str, Any]) -> None:
    say(f"{name:18}{row['rephrasings']:>11}" + "".join(f"{row[c]!s:>18}" for c in COLUMNS))
