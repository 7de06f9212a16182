"""The `--split` option every `eval` command shares (evaluation/splits.py: a hash of the id)."""

from __future__ import annotations

import argparse
from pathlib import Path

from desktop_rag.evaluation.splits import SPLITS

# The rephrasing set lives in the checkout's bench/data, not in the package: found from here,
# whatever the current folder ("bench/data/..." only worked from the checkout's root).
REPHRASINGS = str(Path(__file__).resolve().parents[2] / "bench" / "data" / "rephrasings.jsonl")


def add_split(parser: argparse.ArgumentParser) -> None:
    """`--split dev|test|all`: the questions of one side (default all, reported side by side)."""
    parser.add_argument(
        "--split", choices=SPLITS, default="all",
        help="only the dev or the test questions (a hash of each id; default all, "
        "reported side by side)",
    )  # fmt: skip
