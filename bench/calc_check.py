"""How often the calculation check flags right answers and catches wrong ones, on the labelled
set of bench/calc_check_set.py (bench/data/calc_check_cases.jsonl), per split and per kind.

A case is flagged when its calculation is not `checked` (an input in no source, a label or year
not asked, a result that disagrees). The goal (issue 38): at most 5% of right answers flagged,
at least 80% of wrong ones.

    .venv/bin/python -m bench.calc_check [--split dev|test|all] [CASES_JSONL]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop_rag.answering.calculations import check_calculations
from desktop_rag.domain import Chunk, DocKind, Passage
from desktop_rag.evaluation.splits import ALL, SPLITS, in_split, side_by_side

CASES = Path(__file__).resolve().parent / "data" / "calc_check_cases.jsonl"


def load(path: Path = CASES, split: str = ALL) -> list[dict[str, Any]]:
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    return [r for r in rows if in_split(r["table"], split)]


def _passages(texts: Sequence[str]) -> list[Passage]:
    return [Passage(n, Chunk(f"c{n}", "d", "/10k.pdf", "10-K", DocKind.PDF, t, n, (n,),
                             (0, len(t))), t, 0.9)
            for n, t in enumerate(texts, start=1)]  # fmt: skip


def flagged(case: dict[str, Any]) -> tuple[bool, str]:
    """Whether the check flags the case's calculation, and its problem."""
    calcs = check_calculations(case["answer"], _passages(case["passages"]), case["question"])
    if not calcs:
        return True, "no calculation found"
    return not all(c.checked for c in calcs), ",".join(c.problem.value for c in calcs)


def report(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    right = [r for r in rows if r["right"]]
    wrong = [r for r in rows if not r["right"]]
    kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        kinds[r["kind"]][0] += 1
        kinds[r["kind"]][1] += int(r["flagged"])
    return {
        "cases": len(rows),
        "right_flagged": round(sum(r["flagged"] for r in right) / max(len(right), 1), 4),
        "wrong_flagged": round(sum(r["flagged"] for r in wrong) / max(len(wrong), 1), 4),
        "flagged_by_kind": {k: round(v[1] / v[0], 4) for k, v in sorted(kinds.items())},
    }


def evaluate(path: Path = CASES, split: str = ALL) -> dict[str, Any]:
    rows = []
    for case in load(path, split):
        flag, problem = flagged(case)
        rows.append(case | {"flagged": flag, "problem": problem, "id": case["table"]})
    return {"split": split, **report(rows), "by_split": side_by_side(rows, report)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", type=Path, nargs="?", default=CASES)
    parser.add_argument("--split", choices=SPLITS, default=ALL)
    args = parser.parse_args(argv)
    print(json.dumps(evaluate(args.cases, args.split), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
