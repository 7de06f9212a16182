"""Does a decision survive rewording? The rephrasing set (bench/data/rephrasings.jsonl: two
rewordings of each of 123 answerable MMLongBench text/table/layout questions, the 40 ratio
questions and every generated count question, written before any was run) asked of the
decisions that are taken before the model reads a passage: the route, whether the answer
needs a calculation and of which shape, whether the app works a ratio out itself.

These need no model and no library, so they are reported for every question of the set;
answer accuracy on the rewordings needs the model (`eval answers --rephrased`). Where the router
leaves a "how many" to the scope, the app's route is decided by the question's document
(routes/count_evidence.py); given an evaluation library (`route_of`, see route_evidence.py),
that route is the one compared.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop_rag.answering.calc_decision import decided_shape
from desktop_rag.answering.ratio_worksheet import asked_worksheet
from desktop_rag.evaluation.intervals import wilson
from desktop_rag.evaluation.jsonl import read_jsonl
from desktop_rag.evaluation.splits import ALL, in_split, split_of
from desktop_rag.routes.router import decide


@dataclass(frozen=True, slots=True)
class Rephrasing:
    id: str  # "<original id>~r1"
    original: str  # the original question's id
    set: str  # mmlongbench, ratio or counts
    kind: tuple[str, ...]  # what was changed: synonyms, order, verb, units, company, grew_by
    question: str
    original_question: str


def load_rephrasings(path: Path) -> list[Rephrasing]:
    needed = ("id", "original", "set", "question", "original_question")
    rows = read_jsonl(path, "rewordings", needed)
    return [Rephrasing(str(r["id"]), str(r["original"]), str(r["set"]),
                       tuple(str(k) for k in r.get("kind", ())), str(r["question"]),
                       str(r["original_question"])) for r in rows]  # fmt: skip


RouteOf = Callable[[str, str], str]  # (question, its original's id) -> the route taken


def decisions(
    question: str,
    needs_calc: Callable[[str], str | None] | None = None,
    route_of: RouteOf | None = None,
    original: str = "",
) -> dict[str, Any]:
    """What the app decides about `question` before reading: route (the router's, or
    `route_of`'s over a library), calculation shape (None: no calculation asked for), and
    whether a ratio worksheet answers it."""
    shape = (needs_calc or decided_shape)(question)
    route = route_of(question, original) if route_of else decide(question).route.value
    return {"route": route, "calculation": shape is not None,
            "shape": shape, "worksheet": asked_worksheet(question) is not None}  # fmt: skip


def _rate(rows: Sequence[dict[str, Any]], key: str) -> float | None:
    return round(sum(r[key] for r in rows) / len(rows), 4) if rows else None


def _interval(rows: Sequence[dict[str, Any]], key: str) -> list[float]:
    """The 95% interval of the share kept (evaluation/intervals.py): 128 of 136 is 0.941, and
    anything from 0.89 to 0.97 gives that often enough."""
    low, high = wilson(sum(bool(r[key]) for r in rows), len(rows))
    return [round(low, 4), round(high, 4)]


def _group(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {"rephrasings": len(rows), "route_same": _rate(rows, "route_same"),
            "calculation_same": _rate(rows, "calculation_same"),
            "shape_same": _rate(rows, "shape_same"),
            "worksheet_same": _rate(rows, "worksheet_same"),
            "intervals_95": {k: _interval(rows, k)
                             for k in ("route_same", "calculation_same")}}  # fmt: skip


def evaluate(
    items: Sequence[Rephrasing],
    split: str = ALL,
    needs_calc: Callable[[str], str | None] | None = None,
    route_of: RouteOf | None = None,
) -> dict[str, Any]:
    """Share of rewordings that keep each decision of their original, overall, per set, per
    split and per kind of rewording; the changed ones listed."""
    rows = []
    for item in (i for i in items if in_split(i.id, split)):
        before = decisions(item.original_question, needs_calc, route_of, item.original)
        after = decisions(item.question, needs_calc, route_of, item.original)
        rows.append({"id": item.id, "set": item.set, "split": split_of(item.original),
                     "kind": item.kind, "question": item.question,
                     "original_question": item.original_question, "before": before,
                     "after": after} | {f"{k}_same": before[k] == after[k] for k in before})
    sets = sorted({r["set"] for r in rows})
    kinds = sorted({k for r in rows for k in r["kind"]})
    changed = [r for r in rows if not (r["route_same"] and r["calculation_same"])]
    return _group(rows) | {
        "split": split,
        "by_set": {s: _group([r for r in rows if r["set"] == s]) for s in sets},
        "by_split": {s: _group([r for r in rows if r["split"] == s])
                     for s in sorted({r["split"] for r in rows})},
        "by_kind": {k: _group([r for r in rows if k in r["kind"]]) for k in kinds},
        "changed": [{"id": r["id"], "original": r["original_question"],
                     "rephrased": r["question"], "before": r["before"], "after": r["after"]}
                    for r in changed],
    }  # fmt: skip


def by_original(items: Sequence[Rephrasing]) -> dict[str, list[Rephrasing]]:
    """The rewordings of each original question id, in file order."""
    out: dict[str, list[Rephrasing]] = {}
    for item in items:
        out.setdefault(item.original, []).append(item)
    return out


def _accuracy(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    right = sum(bool(r["correct"]) for r in rows)
    refused = sum(bool(r["refused"]) for r in rows)
    return {"questions": n, "accuracy": round(right / n, 4) if n else None,
            "refused": round(refused / n, 4) if n else None}  # fmt: skip


def _share(flags: Sequence[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


def _handled(record: dict[str, Any]) -> str:
    return str(record["route"]["handled_by"])


def _calc(record: dict[str, Any]) -> bool:
    return bool(decisions(str(record["question"]))["calculation"])


def answers_report(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Originals against their rewordings, over the originals that were asked with rewordings:
    accuracy of each, how often the scored outcome, the route taken and the calculation
    decision differ from the original's; per split."""
    originals = {r["id"]: r for r in records if not r.get("original")}
    pairs = [(originals[r["original"]], r) for r in records
             if r.get("original") and r["original"] in originals]  # fmt: skip
    asked = {o["id"] for o, _ in pairs}
    out: dict[str, Any] = {}
    for split in (ALL, "dev", "test"):
        part = [(o, r) for o, r in pairs if split == ALL or split_of(o["id"]) == split]
        if not part:
            continue
        base = [originals[i] for i in sorted(asked) if split == ALL or split_of(i) == split]
        out[split] = {
            "originals": _accuracy(base),
            "rephrased": _accuracy([r for _, r in part]),
            "outcome_same": _share([o["correct"] == r["correct"] for o, r in part]),
            "route_same": _share([_handled(o) == _handled(r) for o, r in part]),
            "calculation_same": _share([_calc(o) == _calc(r) for o, r in part]),
        }
    return out
