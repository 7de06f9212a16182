"""The 95% intervals beside the evaluation's shares (evaluation/intervals.py), checked against
published values, and the report of `eval answers` that carries them."""

from __future__ import annotations

import pytest

from desktop_rag.evaluation.eval_sets import gap_of, split_summary
from desktop_rag.evaluation.intervals import gap, questions_for, split_gap, wilson


def test_wilson_matches_published_values() -> None:
    # Newcombe (1998), Table I: 81/263 -> 0.2553-0.3662; 0/10 -> 0-0.2775.
    assert wilson(81, 263) == pytest.approx((0.2553, 0.3662), abs=5e-4)
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=5e-4)
    assert wilson(10, 10)[1] == pytest.approx(1.0)


def test_wilson_of_nothing_measured_is_everything() -> None:
    assert wilson(0, 0) == (0.0, 1.0)


def test_difference_matches_newcombe_method_10() -> None:
    # Newcombe (1998), Table II, example (a): 56/70 - 48/80 = 0.2, 0.0524 to 0.3339.
    diff, low, high = gap((56, 70), (48, 80))
    assert diff == pytest.approx(0.2)
    assert (low, high) == pytest.approx((0.0524, 0.3339), abs=5e-4)


def test_sixty_questions_cannot_tell_a_seven_point_gap_from_chance() -> None:
    """The README's 60 of each split: dev 20, test 16 right."""
    out = split_gap((20, 60), (16, 60))
    assert out["dev_minus_test"] == pytest.approx(0.0667, abs=1e-4)
    assert out["within_chance"] is True
    low, high = out["interval_95"]
    assert low < -0.09 and high > 0.2


def test_a_wide_gap_is_beyond_chance() -> None:
    assert split_gap((50, 60), (10, 60))["within_chance"] is False


def test_questions_needed_for_a_three_point_gap() -> None:
    """To know a dev/test gap within 3 points at an accuracy near 0.3 takes about 1,800
    questions a side, more than MMLongBench holds."""
    assert 1700 < questions_for(0.03, 0.3) < 1900


def _record(qid: str, correct: bool) -> dict[str, object]:
    return {"id": qid, "gold": "7", "format": "Int", "sources": ["Pure-text (Plain-text)"],
            "refused": False, "score": float(correct), "correct": correct,
            "gold_page_given": True, "timings": {}}  # fmt: skip


def test_split_summary_carries_right_answers_and_the_interval() -> None:
    records = [_record(f"q{i}", i < 3) for i in range(10)]
    row = split_summary(records)
    assert row["right"] == 3 and row["questions"] == 10
    assert row["accuracy_95"] == pytest.approx(list(wilson(3, 10)), abs=1e-4)
    assert gap_of({"dev": row}) is None
    both = gap_of({"dev": row, "test": split_summary(records[:5])})
    assert both is not None and both["dev_minus_test"] == pytest.approx(0.3 - 0.6)
