"""The fresh calculation questions (bench/calc_fresh.py): every answer is sorted by what the
user sees, so that a wrong result shown as checked is counted as the worst outcome."""

from __future__ import annotations

from typing import Any

from bench.calc_fresh import OUTCOMES, load, outcome, report


def _calc(result: float | None, problem: str = "ok") -> dict[str, Any]:
    return {"result": result, "checked": problem == "ok" and result is not None,
            "problem": problem}  # fmt: skip


def _answer(*calcs: dict[str, Any], text: str = "", refused: bool = False,
            qid: str = "cf-09", split: str = "test") -> dict[str, Any]:  # fmt: skip
    return {"id": qid, "split": split, "gold": [6_133_774], "answer": text,
            "refused": refused, "calculations": list(calcs)}  # fmt: skip


def test_each_answer_is_sorted_by_what_the_user_sees() -> None:
    assert outcome(_answer(_calc(6_133_774))) == "right, checked"
    assert outcome(_answer(_calc(6_133.774))) == "right, checked"  # in millions
    assert outcome(_answer(_calc(6_133_774, "stated_result_wrong"))) == "right, corrected"
    assert outcome(_answer(_calc(6_133_774, "label_mismatch"))) == "right, flagged"
    assert outcome(_answer(_calc(12_284_167))) == "wrong, checked"
    assert outcome(_answer(_calc(12_284_167, "label_mismatch"))) == "wrong, flagged"
    assert outcome(_answer(_calc(None, "input_not_in_sources"))) == "wrong, flagged"
    assert outcome(_answer(text="It was $6,133,774 thousand.")) == "stated, right"
    assert outcome(_answer(text="It was $5,504,656 thousand.")) == "stated, wrong"
    assert outcome(_answer(_calc(1.0), refused=True)) == "refused"


def test_the_report_keeps_rewordings_and_splits_apart() -> None:
    rows = [_answer(_calc(6_133_774)), _answer(_calc(1.0), qid="cf-09~r1"),
            _answer(refused=True, qid="cf-01", split="dev")]  # fmt: skip
    assert report(rows) == {"dev": {"refused": 1}, "test": {"right, checked": 1},
                            "test, reworded": {"wrong, checked": 1}}  # fmt: skip
    assert set(OUTCOMES) >= {o for g in report(rows).values() for o in g}


def test_the_question_file_has_a_rewording_for_every_question() -> None:
    rows = load()
    originals = {r["id"] for r in rows if "~" not in r["id"]}
    assert originals and {r["id"].split("~")[0] for r in load(reworded=True)} == originals
    assert all(r["gold"] for r in rows) and {r["split"] for r in rows} == {"dev", "test"}
