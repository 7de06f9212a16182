"""Scoring of list and count answers against known truth (bench/count_docs.py writes it): is the
count exact, and is every true item among the answer's items, on its page?

An answer's count is the route's own (`route.count`) when the exhaustive route answered; a
question the router sent elsewhere is scored on the first whole number of its text, as a person
would read it, and its items are none: it did not list them.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop_rag.domain import Answer
from desktop_rag.domain.routed import RouteName
from desktop_rag.evaluation.jsonl import read_jsonl

_NUMBER = re.compile(r"(?<![\d.])\d{1,6}(?![\d.])")


@dataclass(frozen=True, slots=True)
class CountQuestion:
    id: str
    doc: str
    question: str
    family: str
    count: int
    pages: tuple[int, ...]
    items: tuple[str, ...]


def load_count_questions(path: Path) -> list[CountQuestion]:
    out = []
    for r in read_jsonl(path, "count questions", ("id", "doc", "question", "count")):
        text = (str(r["id"]), str(r["doc"]), str(r["question"]), str(r.get("family", "")))
        pages, items = tuple(r.get("pages", ())), tuple(r.get("items", ()))
        out.append(CountQuestion(*text, int(r["count"]), pages, items))
    return out


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def stated_count(answer: Answer) -> int | None:
    if answer.route.handled_by is RouteName.EXHAUSTIVE:
        return answer.route.count
    found = _NUMBER.search(answer.answer)
    return int(found.group(0)) if found else None


def cited_items(q: CountQuestion, answer: Answer) -> int:
    """How many of the true items the answer lists with their true page (each used once); for
    a question whose items are pages ("how many pages contain tables?"), the true pages listed."""
    if not q.items:
        return len(set(q.pages) & {item.page for item in answer.items})
    given = Counter((item.page, _norm(item.text)) for item in answer.items)
    hit = 0
    for page, text in zip(q.pages, q.items, strict=True):
        if given[(page, _norm(text))] > 0:
            given[(page, _norm(text))] -= 1
            hit += 1
    return hit


def record(q: CountQuestion, answer: Answer) -> dict[str, Any]:
    """One scored question, JSON-ready (the per-question records file)."""
    count = stated_count(answer)
    cited = cited_items(q, answer)
    return {"id": q.id, "doc": q.doc, "question": q.question, "family": q.family,
            "gold": q.count, "listable": len(q.pages), "count": count, "exact": count == q.count,
            "items_listed": len(answer.items), "items_cited": cited,
            "all_cited": cited == len(q.pages), "route": answer.route.to_record(),
            "total_ms": answer.timings.get("total_ms", 0.0)}  # fmt: skip


def _group(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    n = max(len(records), 1)
    gold = sum(r.get("listable", r["gold"]) for r in records)
    errors = [abs((r["count"] or 0) - r["gold"]) for r in records]
    return {"questions": len(records), "exact": round(sum(r["exact"] for r in records) / n, 4),
            "all_cited": round(sum(r["all_cited"] for r in records) / n, 4),
            "item_recall": round(sum(r["items_cited"] for r in records) / max(gold, 1), 4),
            "mean_abs_error": round(sum(errors) / n, 2)}  # fmt: skip


def summarise(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The report: overall and by family, with the model calls and the time an answer took."""
    families = sorted({r["family"] for r in records})
    times = [float(r["total_ms"]) for r in records] or [0.0]
    calls = sum(int(r["route"]["details"].get("model_calls", 0)) for r in records)
    routed = sum(r["route"]["handled_by"] == RouteName.EXHAUSTIVE.value for r in records)
    return _group(records) | {
        "by_family": {f: _group([r for r in records if r["family"] == f]) for f in families},
        "routed_exhaustive": routed, "model_calls": calls,
        "total_ms_p50": round(statistics.median(times), 1), "total_ms_max": round(max(times), 1),
    }  # fmt: skip
