"""The router's accuracy on a labelled set of questions (bench/data/route_questions.jsonl), per
split: `dev` and `test` by the hash of the question id (evaluation/splits.py), the rule every
evaluation set shares; the file's own `split` field (what the rules were tuned on before that
rule existed) is reported beside it as `by_file_split`. Also the router's
cost per question, which must stay far below what a lookup spends (the goal: 50 ms)."""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop_rag.evaluation.jsonl import read_jsonl
from desktop_rag.evaluation.splits import split_of
from desktop_rag.routes.router import RouteDecision, decide

REPEATS = 20  # each question is routed this many times for the timing


@dataclass(frozen=True, slots=True)
class LabelledQuestion:
    id: str
    question: str
    route: str
    split: str
    source: str


def load_labelled(path: Path) -> list[LabelledQuestion]:
    rows = read_jsonl(path, "labelled questions", ("id", "question", "route"))
    return [LabelledQuestion(str(r["id"]), str(r["question"]), str(r["route"]),
                             str(r.get("split", "dev")), str(r.get("source", "")))
            for r in rows]  # fmt: skip


def _timed(router: Callable[[str], RouteDecision], question: str) -> tuple[RouteDecision, float]:
    start = time.perf_counter()
    for _ in range(REPEATS):
        decision = router(question)
    return decision, (time.perf_counter() - start) * 1000 / REPEATS


def _accuracy(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    right = sum(r["right"] for r in rows)
    return {"questions": len(rows), "accuracy": round(right / max(len(rows), 1), 4)}


def evaluate(
    items: Sequence[LabelledQuestion], router: Callable[[str], RouteDecision] = decide
) -> dict[str, Any]:
    """Accuracy per split and per labelled route, the confusions, and the router's time."""
    rows: list[dict[str, Any]] = []
    times: list[float] = []
    for q in items:
        decision, ms = _timed(router, q.question)
        times.append(ms)
        rows.append({"id": q.id, "question": q.question, "split": split_of(q.id),
                     "file_split": q.split, "label": q.route,
                     "source": q.source,
                     "routed": decision.route.value, "rule": decision.rule, "ms": ms,
                     "right": decision.route.value == q.route})  # fmt: skip
    times = sorted(times) or [0.0]
    splits = sorted({r["split"] for r in rows})
    return {
        **_accuracy(rows),
        "by_split": {s: _accuracy([r for r in rows if r["split"] == s]) for s in splits},
        "by_file_split": {s: _accuracy([r for r in rows if r["file_split"] == s])
                          for s in sorted({r["file_split"] for r in rows})},
        "by_route": {
            f"{s}:{label}": _accuracy([r for r in rows if r["split"] == s and r["label"] == label])
            for s in splits for label in sorted({r["label"] for r in rows})
        },
        "confusions": dict(Counter(f"{r['split']}:{r['label']}->{r['routed']}"
                                   for r in rows if not r["right"])),
        "router_ms_p50": round(statistics.median(times), 4),
        "router_ms_max": round(times[-1], 4),
        "misses": [r for r in rows if not r["right"]],
    }  # fmt: skip
