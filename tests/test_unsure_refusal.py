"""Unsure refusals: the token choices' arithmetic, the refusal curve, and the service's
outcomes with a scripted engine that branches (the real model: tests/test_unsure_refusal_real)."""

from __future__ import annotations

import numpy as np
import pytest

from desktop_rag.llm.token_choices import choice_of, least_sure, opening, probability
from desktop_rag.protocols import TokenChoice
from desktop_rag.retrieval.refusal_curve import figures_at, outcome_at, refusal_curve


def test_choice_of_gives_softmax_probabilities_and_the_best_other_token() -> None:
    logits = np.array([0.0, 2.0, 1.0, -1.0], dtype=np.float32)
    weights = np.exp(logits - 2.0)
    chosen = choice_of(logits, 1)
    assert chosen.alternative == 2
    assert chosen.p == pytest.approx(weights[1] / weights.sum())
    assert chosen.p_alternative == pytest.approx(weights[2] / weights.sum())
    assert choice_of(logits, 2).alternative == 1  # a token that was not the best: the best


PIECES = {1: b"The", 2: b" documents", 3: b" do", 4: b" not", 5: b" contain"}


def _choices(*ps: float) -> list[TokenChoice]:
    return [TokenChoice(t, p, 90 + t, 1 - p) for t, p in zip(PIECES, ps, strict=False)]


def test_the_opening_ends_at_the_negation_and_its_probability_is_the_product() -> None:
    choices = _choices(0.9, 0.4, 0.95, 0.99, 0.99)
    opened = choices[: opening(choices, PIECES.__getitem__, " not")]
    assert [c.token for c in opened] == [1, 2, 3, 4]
    assert probability(opened) == pytest.approx(0.9 * 0.4 * 0.95 * 0.99)
    assert least_sure(opened) == 1
    assert opening(choices[:2], PIECES.__getitem__, " not") == 2  # never reached: all of them


def _rec(gold: str, p: float, alt_correct: bool, unsupported: int = 0,
         given: bool | None = True) -> dict[str, object]:  # fmt: skip
    fmt = "None" if gold == "Not answerable" else "Str"
    return {"gold": gold, "format": fmt, "correct": alt_correct, "refused": False,
            "gold_page_given": given,
            "reconsidered": {"p": p, "alternative": "an answer", "outcome": "answered",
                             "unsupported": unsupported,
                             "alternative_correct": alt_correct}}  # fmt: skip


def test_a_refusal_is_replaced_only_below_the_threshold_and_when_nothing_is_flagged() -> None:
    answerable = _rec("42", 0.3, True)
    assert outcome_at(answerable, 0.2) == (False, True)  # sure enough: the refusal stands
    assert outcome_at(answerable, 0.5) == (True, False)
    flagged = _rec("42", 0.3, True, unsupported=1)
    assert outcome_at(flagged, 0.5) == (False, True)
    assert outcome_at(flagged, 0.5, gated=False) == (True, False)
    unanswerable = _rec("Not answerable", 0.3, False, given=None)
    assert outcome_at(unanswerable, 0.2) == (True, True)  # its refusal was right
    assert outcome_at(unanswerable, 0.5) == (False, False)


def test_the_curve_reports_each_threshold_from_one_run() -> None:
    plain = {"gold": "7", "format": "Int", "correct": True, "refused": False,
             "gold_page_given": True, "reconsidered": None}  # fmt: skip
    records = [plain, _rec("42", 0.3, True), _rec("Not answerable", 0.6, False, given=None)]
    assert figures_at(records, 0.0) == {
        "accuracy": round(2 / 3, 4), "unanswerable_refused": 1.0, "false_refusals_given": 0.5}
    assert figures_at(records, 0.7) == {
        "accuracy": round(2 / 3, 4), "unanswerable_refused": 0.0, "false_refusals_given": 0.0}
    curve = refusal_curve(records)
    assert curve["0.5"] == {"accuracy": 1.0, "unanswerable_refused": 1.0,
                            "false_refusals_given": 0.0}  # fmt: skip
    assert refusal_curve([plain]) == {}
