"""The dev/test rule shared by every evaluation set (desktop_rag/evaluation/splits.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_rag.evaluation.splits import ALL, DEV, TEST, in_split, only, side_by_side, split_of

ROUTES = Path(__file__).resolve().parents[1] / "bench" / "data" / "route_questions.jsonl"


def test_the_rule_is_a_hash_of_the_id_and_fixed() -> None:
    # sha256("mmlb-0011")[0] = 132 (132 % 3 == 0: test), sha256("mmlb-0007")[0] = 79 (dev);
    # these values pin the rule, so a change of it (which would reshuffle every held-out
    # figure) fails here
    assert split_of("mmlb-0011") == TEST
    assert split_of("mmlb-0007") == DEV
    assert split_of(" mmlb-0011 ") == TEST


def test_about_a_third_is_test() -> None:
    ids = [f"q-{n:04d}" for n in range(3000)]
    share = sum(split_of(i) == TEST for i in ids) / len(ids)
    assert 0.30 < share < 0.37


def test_a_rephrasing_keeps_its_originals_side() -> None:
    for n in range(200):
        original = f"mmlb-{n:04d}"
        assert in_split(f"{original}~r1", split_of(original))
        assert in_split(f"{original}~r2", split_of(original))


def test_only_and_side_by_side() -> None:
    ids = [f"q-{n}" for n in range(60)]
    dev, test = only(ids, DEV, str), only(ids, TEST, str)
    assert sorted(dev + test) == sorted(ids) and not set(dev) & set(test)
    assert only(ids, ALL, str) == ids
    records = [{"id": i, "right": n % 2} for n, i in enumerate(ids)]
    both = side_by_side(records, lambda rs: {"questions": len(rs)})
    assert both[DEV]["questions"] == len(dev) and both[TEST]["questions"] == len(test)
    with pytest.raises(ValueError, match="unknown split"):
        in_split("q-1", "held-out")


def test_route_eval_reports_the_hash_split_and_the_files_own() -> None:
    from desktop_rag.evaluation import route_eval
    items = route_eval.load_labelled(ROUTES)
    report = route_eval.evaluate(items[:12])
    assert set(report["by_split"]) <= {DEV, TEST}
    assert sum(r["questions"] for r in report["by_split"].values()) == 12
    labelled = {json.loads(x)["id"] for x in ROUTES.read_text().splitlines() if x.strip()}
    assert labelled and sum(r["questions"] for r in report["by_file_split"].values()) == 12
