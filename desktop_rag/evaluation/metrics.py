"""Ranking metrics as trec_eval defines them (checked against ir-measures in the tests).

A run is best-first document ids per query; qrels map query -> document -> graded relevance.
Scores are averaged over every judged query (one with no results, or no relevant document,
scores 0).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

Run = Mapping[str, Sequence[str]]
Qrels = Mapping[str, Mapping[str, int]]


def ndcg_at(ranked: Sequence[str], judged: Mapping[str, int], k: int) -> float:
    gains = [max(judged.get(d, 0), 0) for d in ranked[:k]]
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
    ideal = sorted((g for g in judged.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(ranked: Sequence[str], judged: Mapping[str, int], k: int) -> float:
    relevant = {d for d, g in judged.items() if g > 0}
    return len(relevant.intersection(ranked[:k])) / len(relevant) if relevant else 0.0


def rr_at(ranked: Sequence[str], judged: Mapping[str, int], k: int) -> float:
    for i, doc in enumerate(ranked[:k]):
        if judged.get(doc, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def evaluate(run: Run, qrels: Qrels) -> dict[str, float]:
    """nDCG@10, Recall@100 and MRR@10, averaged over the judged queries."""
    judged = list(qrels)
    if not judged:
        return {"nDCG@10": 0.0, "Recall@100": 0.0, "MRR@10": 0.0}
    totals = {"nDCG@10": 0.0, "Recall@100": 0.0, "MRR@10": 0.0}
    for q in judged:
        ranked = run.get(q, ())
        totals["nDCG@10"] += ndcg_at(ranked, qrels[q], 10)
        totals["Recall@100"] += recall_at(ranked, qrels[q], 100)
        totals["MRR@10"] += rr_at(ranked, qrels[q], 10)
    return {name: value / len(judged) for name, value in totals.items()}
