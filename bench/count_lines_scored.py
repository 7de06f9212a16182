"""Every line of a count question's document scored by the line judge once, then candidate
rules compared offline on those scores (issue 38: which lines a count hands to the judge).

`score` asks the judge (the default model, llm/line_judge.py) for each line of each question's
document, whatever matching would do, and keeps the probabilities; `compare` then runs the
route's matching on the same lines with and without the records of a register
(routes/records.py), takes the judge's verdicts from the kept probabilities (routes/judge.py's
cut, with anchors where matching gives them), and reports per split: questions exact, recall
and precision of the items found. Dense paraphrases are left out: both sides lack them alike.

    .venv/bin/python -m bench.count_lines_scored score OUT/questions.jsonl --docs OUT/documents \
        --workdir LIB --out SCORES.jsonl          # about a second a line here
    .venv/bin/python -m bench.count_lines_scored compare SCORES.jsonl --workdir LIB
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from desktop_rag.evaluation.count_eval import load_count_questions
from desktop_rag.evaluation.splits import in_split

Rows = list[dict[str, Any]]


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def _library(docs: Path | None, workdir: Path) -> tuple[Any, dict[str, str]]:
    from desktop_rag.bootstrap import build_context
    from desktop_rag.services import Services

    services = Services(build_context(str(workdir)))
    if docs is not None and not services.list_documents():
        report = services.ingest([docs])
        if report.failed:
            raise SystemExit(f"could not ingest {docs}: {report.failed}")
    return services, {Path(d.path).name: d.doc_id for d in services.list_documents()}


def _units(services: Any, doc_id: str) -> list[Any]:
    from desktop_rag.routes.units import distinct, names_its_page, units_of

    chunks = services.ctx.catalog.chunks_of(doc_id)
    return [u for u in distinct(x for c in chunks for x in units_of(c)) if not names_its_page(u)]


def score(questions: Path, docs: Path, workdir: Path) -> Rows:
    from desktop_rag.llm.line_judge import yes_probabilities
    from desktop_rag.routes.target import Mode, parse

    services, ids = _library(docs, workdir)
    rows = []
    for q in load_count_questions(questions):
        target = parse(q.question)
        if target.mode is Mode.MENTIONS:  # counted by matching alone
            continue
        lines = [u.text for u in _units(services, ids[q.doc])]
        p_yes = yes_probabilities(services.ctx.engine, q.question, target.description, lines)
        truth = {_norm(i) for i in q.items}
        rows.append({"id": q.id, "doc": q.doc, "question": q.question, "lines": lines,
                     "truth": [_norm(x) in truth for x in lines],
                     "p_yes": [round(p, 4) for p in p_yes]})  # fmt: skip
        print(f"{q.id}: {len(lines)} lines", file=sys.stderr)
    services.close()
    return rows


def _found(units: Sequence[Any], question: str, p_of: dict[str, float]) -> set[str]:
    from desktop_rag.routes.judge import verdicts
    from desktop_rag.routes.matching import match_items
    from desktop_rag.routes.slots import another_value
    from desktop_rag.routes.target import parse

    target = parse(question)
    matches = match_items(units, target)
    lines = [u.text for u in matches.candidates]
    anchors = [u.text for u in matches.anchors]
    if anchors:
        other = another_value(anchors, lines, target.condition)
        lines = [x for x, o in zip(lines, other, strict=True) if not o]
    said = verdicts([p_of[x] for x in lines], [p_of[a] for a in anchors])
    return {_norm(f.unit.text) for f in matches.items} | {
        _norm(x) for x, yes in zip(lines, said, strict=True) if yes
    }


def compare(rows: Rows, workdir: Path) -> dict[str, dict[str, dict[str, float]]]:
    import desktop_rag.routes.matching as matching
    from desktop_rag.routes.records import with_records

    def unchanged(
        units: Any, sets: Any, target: Any, shared: list[int]
    ) -> tuple[list[int], frozenset[str]]:
        return shared, frozenset()

    rules: dict[str, Callable[..., tuple[list[int], frozenset[str]]]] = {
        "without": unchanged, "records": with_records}  # fmt: skip
    services, ids = _library(None, workdir)
    tally: dict[str, dict[str, list[int]]] = {}
    for row in rows:
        units = _units(services, ids[row["doc"]])
        p_of = dict(zip(row["lines"], row["p_yes"], strict=True))
        truth = {_norm(x) for x, t in zip(row["lines"], row["truth"], strict=True) if t}
        split = "test" if in_split(row["id"], "test") else "dev"
        for name, rule in rules.items():
            matching.with_records = rule  # type: ignore[attr-defined]
            found = _found(units, row["question"], p_of)
            for key in (split, "all"):
                t = tally.setdefault(name, {}).setdefault(key, [0, 0, 0, 0, 0])
                t[0] += found == truth
                t[1] += 1
                t[2] += len(found & truth)
                t[3] += len(found)
                t[4] += len(truth)
    matching.with_records = with_records  # type: ignore[attr-defined]
    services.close()
    return {name: {key: {"questions": t[1], "exact": t[0], "recall": round(t[2] / t[4], 3),
                         "precision": round(t[2] / max(t[3], 1), 3)}
                   for key, t in sorted(by.items())}
            for name, by in tally.items()}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("score")
    s.add_argument("questions", type=Path)
    s.add_argument("--docs", type=Path, required=True)
    s.add_argument("--workdir", type=Path, required=True)
    s.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("compare")
    c.add_argument("scores", type=Path)
    c.add_argument("--workdir", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.command == "score":
        rows = score(args.questions, args.docs, args.workdir)
        args.out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        return 0
    rows = [json.loads(x) for x in args.scores.read_text(encoding="utf-8").splitlines() if x]
    print(json.dumps(compare(rows, args.workdir), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
