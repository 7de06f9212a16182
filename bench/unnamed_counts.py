"""Count questions that name no document, asked of generated documents whose counts are known:
"How many printer jams were there?" instead of "How many printer jams are recorded in the
incident log?". The router's rules cannot tell such a question from one asking for a number a
report states; routes/count_evidence.py decides it from the documents in scope.

The 15 rewordings in bench/data/counts_unnamed.jsonl were written by hand before any of them was
run (stop 43), five for each of the seeds 61, 73 and 89 of `bench.count_docs --small`, with
other verbs on each seed ("happened", "occurred", "were there", "did we have", "came from").
A rewording keeps its original's answer, and its id (`<original>~n1`) its original's split.

    .venv/bin/python -m bench.count_docs OUT --small --seed 73
    .venv/bin/python -m bench.unnamed_counts OUT --seed 73      # OUT/questions-unnamed.jsonl
    desktop-rag eval counts OUT/questions-unnamed.jsonl OUT/documents
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "counts_unnamed.jsonl"


def unnamed(out: Path, seed: int) -> Path:
    """OUT/questions-unnamed.jsonl: the seed's rewordings with their originals' truth."""
    asked = {}
    for line in DATA.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["seed"] == seed:
            asked[row["id"].split("~")[0]] = row
    if not asked:
        raise SystemExit(f"no rewordings for seed {seed} in {DATA} (seeds 61, 73, 89)")
    rows = []
    for line in (out / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        original = json.loads(line)
        if original["id"] in asked:
            mine = asked[original["id"]]
            rows.append(original | {"id": mine["id"], "question": mine["question"]})
    target = out / "questions-unnamed.jsonl"
    target.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="a folder bench.count_docs wrote")
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args(argv)
    print(unnamed(args.out, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
