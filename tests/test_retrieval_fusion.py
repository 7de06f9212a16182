"""Reciprocal Rank Fusion: scores, weights, dedupe, ties."""

from __future__ import annotations

import statistics

import pytest

from desktop_rag.retrieval.fusion import dedupe, rrf_fuse, zscore_fuse


def test_rrf_scores_follow_the_formula() -> None:
    fused = rrf_fuse({"dense": ["a", "b"], "bm25": ["b", "c"]}, k=60)
    scores = {f.chunk_id: f.score for f in fused}
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["a"] == pytest.approx(1 / 61)
    assert scores["c"] == pytest.approx(1 / 62)
    assert [f.chunk_id for f in fused] == ["b", "a", "c"]
    assert fused[0].ranks == {"dense": 2, "bm25": 1}


def test_weights_scale_each_retriever() -> None:
    fused = rrf_fuse({"dense": ["a"], "bm25": ["b"]}, {"dense": 1.0, "bm25": 2.0})
    assert [f.chunk_id for f in fused] == ["b", "a"]
    zero = rrf_fuse({"dense": ["a"], "bm25": ["b"]}, {"dense": 0.0, "bm25": 1.0})
    assert zero[0].chunk_id == "b" and zero[1].score == 0.0


def test_duplicates_within_one_list_count_once_at_their_best_rank() -> None:
    fused = rrf_fuse({"dense": ["a", "a", "b"]})
    assert [(f.chunk_id, f.ranks["dense"]) for f in fused] == [("a", 1), ("b", 2)]
    assert dedupe(["x", "y", "x", "z", "y"]) == ["x", "y", "z"]


def test_ties_break_by_best_rank_then_id() -> None:
    fused = rrf_fuse({"dense": ["b", "a"], "bm25": ["a", "b"]})
    assert fused[0].score == pytest.approx(fused[1].score)
    assert [f.chunk_id for f in fused] == ["a", "b"]


def test_smaller_k_favours_top_ranks() -> None:
    rankings = {"dense": ["b", "x", "y", "a"], "bm25": ["c", "z", "a"]}
    assert rrf_fuse(rankings, k=60)[0].chunk_id == "a"  # found twice: 1/64 + 1/63 > 1/61
    assert rrf_fuse(rankings, k=1)[0].chunk_id == "b"  # first places dominate: 1/2 > 1/5 + 1/4
    with pytest.raises(ValueError):
        rrf_fuse(rankings, k=0)


def test_empty_rankings() -> None:
    assert rrf_fuse({}) == []
    assert rrf_fuse({"dense": []}) == []


def test_zscore_fusion_is_a_convex_combination_of_standardised_scores() -> None:
    dense = [("a", 0.9), ("b", 0.5), ("c", 0.1)]  # z: 1.22, 0, -1.22
    bm25 = [("c", 30.0), ("d", 10.0)]  # z: 1, -1; scale ignored
    fused = zscore_fuse({"dense": dense, "bm25": bm25})
    scores = {f.chunk_id: f.score for f in fused}
    z = 0.4 / statistics.pstdev([0.9, 0.5, 0.1])
    assert scores["a"] == pytest.approx(0.5 * 2 * z)
    assert scores["b"] == pytest.approx(0.5 * z)
    assert scores["c"] == pytest.approx(0.5 * 2.0)  # dense floor (0) plus the best BM25 (2)
    assert scores["d"] == pytest.approx(0.0)
    assert fused[0].ranks == {"dense": 1}
    assert {f.chunk_id: f.ranks for f in fused}["c"] == {"dense": 3, "bm25": 1}


def test_zscore_fusion_ignores_the_scale_of_each_retriever() -> None:
    lists = {"dense": [("a", 0.8), ("b", 0.6), ("c", 0.5)], "bm25": [("b", 9.0), ("c", 3.0)]}
    scaled = {"dense": lists["dense"], "bm25": [(c, s * 1000) for c, s in lists["bm25"]]}
    order = [f.chunk_id for f in zscore_fuse(lists)]
    assert order == [f.chunk_id for f in zscore_fuse(scaled)]
    assert order[0] == "b"  # second for dense, first for BM25


def test_zscore_weights_and_bonus() -> None:
    lists = {"dense": [("a", 0.9), ("b", 0.1)], "bm25": [("b", 5.0), ("a", 1.0)]}
    assert zscore_fuse(lists, {"dense": 3.0, "bm25": 1.0})[0].chunk_id == "a"
    assert zscore_fuse(lists, {"dense": 1.0, "bm25": 3.0})[0].chunk_id == "b"
    boosted = zscore_fuse(lists, {"dense": 3.0, "bm25": 1.0}, {"exact": (["b"], 2.0)})
    assert boosted[0].chunk_id == "b"
    assert boosted[0].ranks["exact"] == 1


def test_zscore_single_hit_counts_above_the_missing() -> None:
    dense = [("a", 0.7), ("b", 0.7), ("c", 0.1)]
    fused = zscore_fuse({"dense": dense, "bm25": [("b", 4.0)]})
    assert [f.chunk_id for f in fused] == ["b", "a", "c"]
    assert fused[0].score - fused[1].score == pytest.approx(0.5)
    assert zscore_fuse({}) == []
    assert zscore_fuse({"dense": []}) == []


def test_zscore_keeps_the_first_score_of_a_repeated_id() -> None:
    fused = zscore_fuse({"dense": [("a", 0.9), ("a", 0.1), ("b", 0.5)]})
    assert [f.chunk_id for f in fused] == ["a", "b"]
