"""How often the premise check (answering/premise.py) refuses, on MMLongBench and its rewordings.

No model: each question is looked up in its own document of an evaluation library (the one
`desktop-rag eval pdfqa Q D --workdir DIR` builds), as `ask` does before a route runs. Reported
per split: unanswerable questions refused (the goal is ≥ 0.70 refused in all, with the model's
own refusals), answerable questions refused (each one a false refusal), and for the rewordings
(bench/data/rephrasings.jsonl, bench/data/rephrasings_unanswerable.jsonl) how often the decision
changes with the wording.

    python -m bench.premise_check QUESTIONS_JSONL --workdir DIR [--split dev|test|all] [--library]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop_rag.answering.premise import missing_terms
from desktop_rag.domain import EVERYWHERE, DocScope
from desktop_rag.evaluation.jsonl import read_jsonl
from desktop_rag.evaluation.splits import DEV, SPLITS, TEST, in_split, split_of
from desktop_rag.store.documents import Catalog
from desktop_rag.store.sparse import FtsSparseIndex

DATA = Path(__file__).resolve().parent / "data"
REWORDINGS = (DATA / "rephrasings.jsonl", DATA / "rephrasings_unanswerable.jsonl")


def _rows(path: Path) -> list[dict[str, Any]]:
    return read_jsonl(path, "questions", ("id", "question"))


def _unanswerable(row: dict[str, Any]) -> bool:
    return str(row.get("answer", "")).strip().lower() == "not answerable"


def decisions(
    catalog: Catalog, questions: list[dict[str, Any]], library: bool = False
) -> dict[str, list[str]]:
    """Question id -> the names its document (or the library) never mentions (empty: the check
    lets it pass)."""
    index = catalog.sparse_index()
    by_name = {Path(d.path).name: d.doc_id for d in catalog.documents()}
    out: dict[str, list[str]] = {}
    for q in questions:
        own = DocScope(only=frozenset({by_name.get(q["doc"], "")}))
        scope = EVERYWHERE if library else own
        out[q["id"]] = [t.text for t in missing_terms(q["question"], _in(index, scope))]
    return out


def _in(index: FtsSparseIndex, scope: DocScope) -> Callable[[tuple[str, ...], bool], bool]:
    return lambda found, exact: index.mentions(found, scope, exact)


def report(questions: list[dict[str, Any]], rewordings: list[dict[str, Any]],
           refused: dict[str, list[str]], split: str) -> dict[str, Any]:  # fmt: skip
    """Refusal rates by split and answerability, and the rewordings' changed decisions."""
    table: dict[str, Any] = {}
    for side in (DEV, TEST) if split == "all" else (split,):
        tally: Counter[str] = Counter()
        for q in questions:
            if split_of(q["id"]) != side:
                continue
            kind = "unanswerable" if _unanswerable(q) else "answerable"
            tally[kind] += 1
            tally[kind + " refused"] += bool(refused[q["id"]])
        changed = [r for r in rewordings if split_of(r["original"]) == side
                   and bool(refused[r["id"]]) != bool(refused[r["original"]])]  # fmt: skip
        table[side] = {
            "unanswerable refused": _share(tally, "unanswerable"),
            "answerable refused": _share(tally, "answerable"),
            "rewordings": sum(split_of(r["original"]) == side for r in rewordings),
            "decision changed": len(changed),
        }
    return table


def _share(tally: Counter[str], kind: str) -> str:
    return f"{tally[kind + ' refused']} of {tally[kind]}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--split", choices=SPLITS, default="all")
    parser.add_argument("--library", action="store_true",
                        help="look each question up in the whole library, not its document")
    parser.add_argument("--show", action="store_true", help="print every refused question")
    args = parser.parse_args(argv)
    questions = [q for q in _rows(args.questions) if in_split(q["id"], args.split)]
    by_id = {q["id"]: q for q in questions}
    rewordings = [
        dict(by_id[r["original"]], id=r["id"], question=r["question"], original=r["original"])
        for path in REWORDINGS for r in _rows(path) if r["original"] in by_id
    ]
    catalog = Catalog(args.workdir / "data" / "catalog.sqlite3")
    refused = decisions(catalog, questions + rewordings, args.library)
    if args.show:
        for q in questions + rewordings:
            if refused[q["id"]]:
                label = "NA " if _unanswerable(q) else "ANS"
                print(label, q["id"], refused[q["id"]], "|", q["question"][:100])
    print(json.dumps(report(questions, rewordings, refused, args.split), indent=1))


if __name__ == "__main__":
    main()
