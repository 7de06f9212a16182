"""Our nDCG@10 / Recall@100 / MRR@10 against ir-measures (pytrec_eval) on the same run."""

from __future__ import annotations

import random

import pytest

from desktop_rag.evaluation.metrics import evaluate, ndcg_at, recall_at, rr_at


def test_hand_computed_values() -> None:
    judged = {"d1": 1, "d3": 2}
    ranked = ["d3", "x", "d1"]
    ideal = 2 + 1 / 1.5849625007211562
    assert ndcg_at(ranked, judged, 10) == pytest.approx((2 + 1 / 2) / ideal)
    assert recall_at(ranked, judged, 2) == 0.5
    assert rr_at(["x", "d1"], judged, 10) == 0.5
    assert rr_at(["x", "d1"], judged, 1) == 0.0


def test_queries_without_results_score_zero() -> None:
    scores = evaluate({"q1": ["a"]}, {"q1": {"a": 1}, "q2": {"b": 1}})
    assert scores["nDCG@10"] == pytest.approx(0.5)
    assert scores["MRR@10"] == pytest.approx(0.5)


def _random_case(seed: int) -> tuple[dict[str, list[str]], dict[str, dict[str, int]]]:
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(300)]
    run: dict[str, list[str]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for q in range(40):
        qrels[f"q{q}"] = {d: rng.choice([0, 1, 1, 2]) for d in rng.sample(docs, rng.randint(1, 6))}
        relevant = [d for d in qrels[f"q{q}"] if rng.random() < 0.7]
        ranked = rng.sample(docs, 120) + relevant
        rng.shuffle(ranked)
        run[f"q{q}"] = list(dict.fromkeys(ranked))[:100]
    run.pop("q0")  # a judged query with no results at all
    return run, qrels


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_matches_ir_measures(seed: int) -> None:
    ir_measures = pytest.importorskip("ir_measures")
    from ir_measures import MRR, R, nDCG

    run, qrels = _random_case(seed)
    scored = {q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in run.items()}
    theirs = ir_measures.calc_aggregate([nDCG @ 10, R @ 100, MRR @ 10], qrels, scored)
    ours = evaluate(run, qrels)
    assert ours["nDCG@10"] == pytest.approx(theirs[nDCG @ 10], abs=1e-9)
    assert ours["Recall@100"] == pytest.approx(theirs[R @ 100], abs=1e-9)
    assert ours["MRR@10"] == pytest.approx(theirs[MRR @ 10], abs=1e-9)
