"""The rephrasing set (bench/data/rephrasings.jsonl) and the reports built on it."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from bench.rephrase_counts import PATTERNS, rephrased_questions, rephrasings
from desktop_rag.evaluation.intervals import wilson
from desktop_rag.evaluation.rephrase_eval import (
    Rephrasing,
    answers_report,
    decisions,
    evaluate,
    load_rephrasings,
)

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bench" / "data" / "rephrasings.jsonl"
MMLB = ROOT.parent / "shared" / "data" / "mmlongbench" / "questions.jsonl"


def test_the_set_has_two_rewordings_of_every_question_it_names() -> None:
    items = load_rephrasings(DATA)
    per = Counter(i.original for i in items)
    assert set(per.values()) == {2}
    sets = Counter(i.set for i in items if i.id.endswith("~r1"))
    assert sets["mmlongbench"] >= 120 and sets["ratio"] == 40 and sets["counts"] >= 30
    assert all(i.question != i.original_question and i.kind for i in items)


@pytest.mark.skipif(not MMLB.is_file(), reason="MMLongBench questions not here")
def test_originals_are_the_benchmarks_questions() -> None:
    questions = {}
    for line in MMLB.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        questions[row["id"]] = " ".join(row["question"].split())
    for item in load_rephrasings(DATA):
        if item.set != "counts":
            assert questions[item.original] == item.original_question


def test_count_templates_reword_any_seed(tmp_path: Path) -> None:
    assert [t for t, _ in rephrasings("List every printer jam in the incident log.")] == [
        "Which entries of the incident log are printer jams? List them all.",
        "Show me all the printer jam incidents that were logged.",
    ]
    assert rephrasings("How many unicorns?") == []
    assert all(len(pair) == 2 for _, pair in PATTERNS)
    rows = [{"id": "a-q1", "question": "How many invoices were paid late?", "count": 3}]
    (tmp_path / "questions.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    out = rephrased_questions(tmp_path / "questions.jsonl")
    assert [r["id"] for r in out] == ["a-q1", "a-q1~r1", "a-q1~r2"]
    assert {r["count"] for r in out} == {3}


def test_decisions_report_counts_changes() -> None:
    same = Rephrasing("x~r1", "x", "s", ("order",), "In 2019, what was revenue?",
                      "What was revenue in 2019?")  # fmt: skip
    changed = Rephrasing("y~r1", "y", "s", ("verb",), "Count the invoices paid late.",
                         "What is the total of the invoices?")  # fmt: skip
    report = evaluate([same, changed])
    assert report["rephrasings"] == 2
    assert report["calculation_same"] == 0.5
    low, high = report["intervals_95"]["calculation_same"]
    assert low < 0.5 < high and (low, high) == pytest.approx(wilson(1, 2), abs=1e-4)
    assert [c["id"] for c in report["changed"]] == ["y~r1"]
    assert decisions("What was revenue in 2019?")["calculation"] is False


def test_answers_report_compares_like_for_like() -> None:
    def rec(qid: str, question: str, correct: bool, route: str = "lookup") -> dict[str, object]:
        original = qid.split("~")[0] if "~" in qid else None
        return {"id": qid, "original": original, "question": question, "correct": correct,
                "refused": False, "route": {"handled_by": route}}  # fmt: skip

    records = [rec("mmlb-0007", "What was revenue in 2019?", True),
               rec("mmlb-0007~r1", "In 2019, what was revenue?", True),
               rec("mmlb-0007~r2", "How much did revenue grow in 2019?", False, "exhaustive")]
    report = answers_report(records)["all"]
    assert report["originals"] == {"questions": 1, "accuracy": 1.0, "refused": 0.0}
    assert report["rephrased"]["accuracy"] == 0.5
    assert report["outcome_same"] == 0.5 and report["route_same"] == 0.5
    assert report["calculation_same"] == 0.5
