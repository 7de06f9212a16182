"""What each refusal threshold would have given, from one run's records: the choice of
`llm.refusal_threshold` made on measurements (services/unsure_refusal.py has the why).

A run with the threshold at 1 reconsiders every refusal and records, per refused question, the
probability the model gave its refusal's opening words, its other answer, and how both scored.
For any lower threshold t, a refusal with p < t would have been replaced by that answer (when
it is not a refusal itself and, gated, when no sentence of it was flagged), and every other
answer stays as it was. Every record's first answer counts, whatever the run's threshold.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from desktop_rag.retrieval.answer_scoring import is_unanswerable

THRESHOLDS = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def outcome_at(rec: dict[str, Any], threshold: float, gated: bool = True) -> tuple[bool, bool]:
    """(correct, refused) of one record's answer had the threshold been `threshold`."""
    found = rec.get("reconsidered")
    if not found:
        return bool(rec["correct"]), bool(rec["refused"])
    replaced = (found["p"] < threshold and bool(found["alternative"])
                and found["outcome"] not in ("refused_again", "cancelled")
                and (not gated or found["unsupported"] == 0))  # fmt: skip
    if replaced:
        return bool(found.get("alternative_correct")), False
    return is_unanswerable(rec["gold"], rec["format"]), True  # the refusal stands


def figures_at(records: Sequence[dict[str, Any]], threshold: float, gated: bool = True
               ) -> dict[str, float | None]:  # fmt: skip
    """Accuracy, the unanswerable questions refused, and the answerable ones refused with a
    gold page given, at `threshold`."""
    outcomes = [outcome_at(r, threshold, gated) for r in records]
    none = [is_unanswerable(r["gold"], r["format"]) for r in records]
    given = [bool(r.get("gold_page_given")) and not u for r, u in zip(records, none, strict=True)]
    return {
        "accuracy": _share([correct for correct, _ in outcomes]),
        "unanswerable_refused": _share([o[1] for o, u in zip(outcomes, none, strict=True) if u]),
        "false_refusals_given": _share([o[1] for o, g in zip(outcomes, given, strict=True) if g]),
    }


def refusal_curve(records: Sequence[dict[str, Any]]) -> dict[str, dict[str, float | None]]:
    """The figures at each threshold (gated by the support check, as the app does), when the
    run recorded reconsidered refusals; empty otherwise."""
    if not any(r.get("reconsidered") for r in records):
        return {}
    return {f"{t:.1f}": figures_at(records, t) for t in THRESHOLDS}


def _share(flags: Sequence[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None
