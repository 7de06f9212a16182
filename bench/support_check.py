"""Precision and recall of the support check on the labelled set (tests/data/support_pairs.jsonl).

Each claim is checked as a one-sentence answer citing its passage, through the real checker and
the real embedder. Reported per split and per kind of change:
- false flags: supported claims (verbatim, clause, reworded, merged) flagged as unsupported;
- caught: altered claims (number, date, name, negation) flagged.
The goal: at most 5% false flags, at least 80% caught.

    .venv/bin/python -m bench.support_check [--split tune|held-out|all] [--threshold T]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from desktop_rag.answering.citations import SUPPORT_THRESHOLD, CitationChecker
from desktop_rag.domain import Chunk, DocKind, Passage
from desktop_rag.domain.protocols import Embedder

PAIRS = Path(__file__).resolve().parents[1] / "tests" / "data" / "support_pairs.jsonl"


def load_pairs(path: Path = PAIRS, split: str = "all") -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [r for r in rows if split == "all" or r["split"] == split]


def _passage(row: dict[str, Any]) -> Passage:
    chunk = Chunk(row["id"], row["doc"], row["doc"], row["doc"], DocKind.PDF, row["passage"], 0,
                  (row["page"],), (0, len(row["passage"])))  # fmt: skip
    return Passage(1, chunk, row["passage"], 1.0)


def flags(checker: CitationChecker, rows: Sequence[dict[str, Any]]) -> list[bool]:
    """Whether each claim, cited to its passage, is flagged."""
    out = []
    for row in rows:
        sentences = checker.check(f"{row['claim']} [1]", [_passage(row)])
        out.append(any(s.supported is False for s in sentences))
    return out


def report(rows: Sequence[dict[str, Any]], flagged: Iterable[bool]) -> dict[str, Any]:
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    totals = {True: [0, 0], False: [0, 0]}
    for row, flag in zip(rows, flagged, strict=True):
        by_kind[row["kind"]][0] += 1
        by_kind[row["kind"]][1] += int(flag)
        totals[row["supported"]][0] += 1
        totals[row["supported"]][1] += int(flag)
    return {
        "pairs": len(rows),
        "false_flag_rate": round(totals[True][1] / max(totals[True][0], 1), 4),
        "caught_rate": round(totals[False][1] / max(totals[False][0], 1), 4),
        "flagged_by_kind": {k: round(v[1] / v[0], 4) for k, v in sorted(by_kind.items())},
    }


def evaluate(embedder: Embedder | None, split: str, threshold: float) -> dict[str, Any]:
    rows = load_pairs(split=split)
    checker = CitationChecker(embedder, threshold)
    return {"split": split, "threshold": threshold, **report(rows, flags(checker, rows))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="held-out", choices=("tune", "held-out", "all"))
    parser.add_argument("--threshold", type=float, default=SUPPORT_THRESHOLD)
    parser.add_argument("--no-embedder", action="store_true", help="word overlap only")
    args = parser.parse_args()
    embedder = None if args.no_embedder else _packaged_embedder()
    print(json.dumps(evaluate(embedder, args.split, args.threshold), indent=2))
    return 0


def _packaged_embedder() -> Embedder:
    from desktop_rag.config import Settings
    from desktop_rag.config.paths import AppPaths
    from desktop_rag.models import ModelRegistry
    from desktop_rag.retrieval.embedder import TorchEmbedder

    registry = ModelRegistry(AppPaths(*[Path("/unused")] * 4), Settings())
    return TorchEmbedder(registry.embedder_path(), "fp32", 2)


if __name__ == "__main__":
    raise SystemExit(main())
