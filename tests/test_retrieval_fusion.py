"""Reciprocal Rank Fusion: scores, weights, dedupe, ties."""

from __future__ import annotations

import pytest

from desktop_rag.retrieval.fusion import dedupe, rrf_fuse


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
