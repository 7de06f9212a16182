"""How well the chat model judges the lines a count cannot decide by matching, line by line,
on generated documents whose true items are known (bench/count_docs.py).

`collect` asks each count question of its document through the count route with a recording
judge in the model's place: every line the route would hand to the model is kept, with whether
it is a true item. `run` gives those lines to the real judge (`--prompt` picks the reply form)
and reports, per split (a rewording is in its original's split), the share of lines judged
right, the recall and precision of the yeses, and the share of questions whose every line is
judged right (a count is exact only then).

    .venv/bin/python -m bench.judge_check collect OUT/questions.jsonl [MORE.jsonl ...] \
        --docs OUT/documents --workdir LIB --out CASES.jsonl [--max-lines 48]
    .venv/bin/python -m bench.judge_check run CASES.jsonl [--prompt v2|v4] [--split dev|test|all]

`--max-lines` keeps the first lines of a question (a register's 594 candidates for "paid late"
would take a quarter of an hour a form); the comparison is between judge forms on the same lines:
v2 (numbered batches of 12, a yes or no each) and v4 (each line on its own, the probability of
yes). A third form, the batch naming the numbers of its items (v3), was measured once (lines
right 0.66, questions all right 0.41, between v2 and v4) and removed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop_rag.domain.progress import CancelToken
from desktop_rag.evaluation.count_eval import load_count_questions
from desktop_rag.evaluation.splits import ALL, SPLITS, in_split, side_by_side
from desktop_rag.routes.judge import BatchSink, Verdicts


class RecordingJudge:
    """Says nothing; keeps what it was asked to judge."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, list[str], list[str]]] = []

    def judge(
        self,
        question: str,
        wanted: str,
        lines: Sequence[str],
        cancel: CancelToken | None = None,
        on_batch: BatchSink | None = None,
        anchors: Sequence[str] = (),
    ) -> Verdicts:
        self.asked.append((wanted, list(lines), list(anchors)))
        return Verdicts(said=[None] * len(lines))


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def collect(
    paths: Sequence[Path], docs: Path, workdir: Path, max_lines: int
) -> list[dict[str, Any]]:
    from desktop_rag.bootstrap import build_context
    from desktop_rag.domain import DocScope
    from desktop_rag.services import Services
    from desktop_rag.services.routing import exhaustive_route

    ctx = build_context(str(workdir))
    services = Services(ctx)
    report = services.ingest([docs])
    if report.failed:
        raise SystemExit(f"could not ingest {docs}: {report.failed}")
    ids = {Path(d.path).name: d.doc_id for d in services.list_documents()}
    cases = []
    for path in paths:
        for q in load_count_questions(path):
            route = exhaustive_route(ctx)
            recorder = RecordingJudge()
            route.judge = recorder
            scope = DocScope(only=frozenset({ids[q.doc]}))
            _ask_route(route, q.question, scope)
            truth = {_norm(i) for i in q.items}
            for wanted, lines, anchors in recorder.asked:
                kept = lines[:max_lines]
                cases.append({"id": q.id, "question": q.question, "wanted": wanted,
                              "lines": kept, "truth": [_norm(x) in truth for x in kept],
                              "anchors": anchors,
                              "candidates": len(lines)})  # fmt: skip
    services.close()
    return cases


def _ask_route(route: Any, question: str, scope: Any) -> None:
    from desktop_rag.domain import RouteInfo, RouteName
    from desktop_rag.routes.base import RouteRequest

    info = RouteInfo(RouteName.EXHAUSTIVE, RouteName.EXHAUSTIVE, "judge_check", True)
    route.answer(RouteRequest(question, question, "judge-check", info, scope))


def run(cases: Sequence[dict[str, Any]], prompt: str) -> list[dict[str, Any]]:
    from desktop_rag.bootstrap import build_context
    from desktop_rag.llm.line_judge import yes_probabilities
    from desktop_rag.routes.judge import ModelJudge, verdicts

    ctx = build_context()
    judge = ModelJudge(lambda: ctx.engine, prompt=prompt)
    out = []
    for n, case in enumerate(cases, start=1):
        start = time.perf_counter()
        p_yes: list[float] = []
        if prompt == "v4":  # the probabilities kept, so that decision rules compare offline
            p_yes = yes_probabilities(ctx.engine, case["question"], case["wanted"], case["lines"])
            said: list[bool | None] = list(verdicts(p_yes))
        else:
            said = judge.judge(case["question"], case["wanted"], case["lines"]).said
        truth = case["truth"]
        out.append(case | {"said": said, "p_yes": [round(p, 4) for p in p_yes],
                           "seconds": round(time.perf_counter() - start, 1),
                           "right": sum(bool(s) == t for s, t in zip(said, truth, strict=True)),
                           "yes": sum(bool(s) for s in said),
                           "true_yes": sum(bool(s) and t for s, t in zip(said, truth, strict=True)),
                           "items": sum(truth)})  # fmt: skip
        print(
            f"case {n}/{len(cases)} {case['id']}: {out[-1]['right']}/{len(truth)} right",
            file=sys.stderr,
        )
    return out


def report(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    lines = sum(len(r["truth"]) for r in rows)
    yes, true_yes, items = (sum(r[k] for r in rows) for k in ("yes", "true_yes", "items"))
    return {"questions": len(rows), "lines": lines,
            "lines_right": round(sum(r["right"] for r in rows) / max(lines, 1), 4),
            "recall": round(true_yes / max(items, 1), 4),
            "precision": round(true_yes / max(yes, 1), 4),
            "questions_all_right": round(sum(r["right"] == len(r["truth"]) for r in rows)
                                         / max(len(rows), 1), 4),
            "seconds": round(sum(r["seconds"] for r in rows), 1)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("questions", type=Path, nargs="+")
    c.add_argument("--docs", type=Path, required=True)
    c.add_argument("--workdir", type=Path, required=True)
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--max-lines", type=int, default=48)
    r = sub.add_parser("run")
    r.add_argument("cases", type=Path)
    r.add_argument("--prompt", default="v4", choices=("v2", "v4"))
    r.add_argument("--split", choices=SPLITS, default=ALL)
    r.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if args.command == "collect":
        cases = collect(args.questions, args.docs, args.workdir, args.max_lines)
        args.out.write_text("".join(json.dumps(x) + "\n" for x in cases), encoding="utf-8")
        print(f"{len(cases)} questions with lines to judge, "
              f"{sum(len(x['lines']) for x in cases)} lines: {args.out}")  # fmt: skip
        return 0
    rows = [json.loads(x) for x in args.cases.read_text(encoding="utf-8").splitlines() if x]
    rows = [x for x in rows if in_split(x["id"], args.split)]
    done = run(rows, args.prompt)
    if args.out:
        args.out.write_text("".join(json.dumps(x) + "\n" for x in done), encoding="utf-8")
    print(json.dumps({"prompt": args.prompt, "split": args.split, **report(done),
                      "by_split": side_by_side(done, report)}, indent=2))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
