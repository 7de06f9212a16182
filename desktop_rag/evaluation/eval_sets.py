"""The question sets of `eval answers` beyond the file: the dev/test split's headline figures
(desktop_rag/evaluation/splits.py) and the rewordings asked beside their originals (`--rephrased`,
bench/data/rephrasings.jsonl)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop_rag.evaluation.answer_eval import AnswerQuestion
from desktop_rag.evaluation.intervals import SplitGap, split_gap, wilson


def qid(q: AnswerQuestion) -> str:
    return q.base.qid


def split_summary(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The headline figures of one split (the dev and test columns of a report)."""
    from desktop_rag.evaluation import answer_eval
    full = answer_eval.summarise(records)
    keys = ("questions", "answerable", "accuracy", "score", "f1", "refusal_rate_unanswerable")
    right = right_of(records)
    low, high = wilson(right, len(records))
    return {k: full[k] for k in keys} | {"false_refusal_rate": full["false_refusal_rate"],
                                         "right": right,
                                         "accuracy_95": [round(low, 4), round(high, 4)]}


def right_of(records: Sequence[dict[str, Any]]) -> int:
    return sum(bool(r["correct"]) for r in records)


def gap_of(by_split: dict[str, dict[str, Any]]) -> SplitGap | None:
    """Dev minus test accuracy with its 95% interval (evaluation/intervals.py), when the report
    has both sides."""
    dev, test = by_split.get("dev"), by_split.get("test")
    if dev is None or test is None:
        return None
    return split_gap((dev["right"], dev["questions"]), (test["right"], test["questions"]))


def with_rephrasings(items: Sequence[AnswerQuestion], path: Path) -> list[AnswerQuestion]:
    """Each question that has rewordings, followed by them (same gold, id "<id>~rN"); a
    question without any is left out, so originals and rewordings are compared like for like."""
    from dataclasses import replace

    from desktop_rag.evaluation.rephrase_eval import by_original, load_rephrasings

    reworded = by_original(load_rephrasings(path))
    out: list[AnswerQuestion] = []
    for q in items:
        if q.base.qid in reworded:
            out.append(q)
            out += [replace(q, base=replace(q.base, qid=r.id, question=r.question))
                    for r in reworded[q.base.qid]]  # fmt: skip
    return out
