"""Unsure refusals: the token choices' arithmetic, the refusal curve, and the service's
outcomes with a scripted engine that branches (the real model: tests/test_unsure_refusal_real)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from answer_helpers import AnswerServices, add_document

from desktop_rag.llm import prompts
from desktop_rag.llm.token_choices import choice_of, least_sure, opening, probability
from desktop_rag.progress import CancelToken
from desktop_rag.protocols import ChatMessage, Generation, TokenCallback, TokenChoice
from desktop_rag.retrieval.refusal_curve import figures_at, outcome_at, refusal_curve
from desktop_rag.services.unsure_refusal import declines
from desktop_rag.testing import FakeChatEngine


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


# ---- the service, with a scripted engine that branches -----------------------------------------
PUMP = "Its rated flow is 42 litres per minute at 3 bar. The warranty covers five years."
FILLER = "The garden has roses and tulips. Visitors come in spring. The gate closes at dusk."
REFUSAL_WORDS = prompts.NOT_FOUND.split(" ")


class UnsureEngine(FakeChatEngine):
    """Refuses, `p_second` sure of its refusal's second word; a branch answers `other`."""

    def __init__(self, p_second: float, other: str) -> None:
        super().__init__(prompts.NOT_FOUND)
        self.p_second, self.other = p_second, other
        self.branches: list[list[int]] = []

    def generate(self, messages: Sequence[ChatMessage], max_tokens: int,
                 on_token: TokenCallback | None = None, cancel: CancelToken | None = None,
                 ) -> Generation:  # fmt: skip
        generation = super().generate(messages, max_tokens, on_token, cancel)
        ps = [0.9, self.p_second, *[0.99] * (len(REFUSAL_WORDS) - 2)]
        generation.choices = tuple(TokenChoice(i, p, 100 + i, 1 - p) for i, p in enumerate(ps))
        return generation

    def piece(self, token: int) -> bytes:
        """Token i < 100 is the refusal's word i; 100 + i the other word the model had there."""
        if token >= 100:
            return b" rated" if token == 101 else b" other"
        return (" " * (token > 0) + REFUSAL_WORDS[token]).encode()

    def branch(self, prefix: Sequence[int], max_tokens: int,
               on_token: TokenCallback | None = None, cancel: CancelToken | None = None,
               ) -> Generation:  # fmt: skip
        self.branches.append(list(prefix))
        return Generation(self.other)


def _ask_unsure(ctx: Any, p_second: float, other: str, threshold: float = 0.5
                ) -> tuple[Any, str, UnsureEngine]:  # fmt: skip
    ctx.update_settings({"llm.refusal_threshold": threshold})
    engine = UnsureEngine(p_second, other)
    ctx.provide(engine=engine)
    add_document(ctx, "/lib/pump.pdf", "Pump manual", [FILLER, PUMP])
    streamed: list[str] = []
    answer = AnswerServices(ctx).ask("What is the rated flow of the pump?",
                                     on_token=streamed.append)  # fmt: skip
    return answer, "".join(streamed), engine


def test_an_unsure_refusal_is_replaced_by_a_supported_answer(fake_context: Any) -> None:
    answer, streamed, engine = _ask_unsure(fake_context, 0.3, " flow is 42 litres per minute [2].")
    assert engine.branches == [[0, 101]]  # restarted at the least sure token, with its other
    assert not answer.refused and answer.answer == "The rated flow is 42 litres per minute [2]."
    assert prompts.NOT_FOUND not in streamed and streamed.strip() == answer.answer
    found = answer.reconsidered
    assert found is not None and found.answered and found.at == 1
    assert found.p == pytest.approx(0.9 * 0.3 * 0.99 * 0.99)
    assert "unsure" in found.describe() and answer.timings["reconsider_ms"] >= 0


def test_a_sure_refusal_stands_and_no_branch_is_written(fake_context: Any) -> None:
    answer, streamed, engine = _ask_unsure(fake_context, 0.95, " flow is 42 litres [2].")
    assert answer.refused and engine.branches == []
    assert streamed.strip() == prompts.NOT_FOUND
    assert answer.reconsidered is not None and answer.reconsidered.outcome == "sure"


def test_an_other_answer_the_sources_do_not_hold_is_not_taken(fake_context: Any) -> None:
    answer, _, _ = _ask_unsure(fake_context, 0.3, " flow is 977 gallons per hour in Bavaria [2].")
    assert answer.refused and answer.answer == prompts.NOT_FOUND
    found = answer.reconsidered
    assert found is not None and found.outcome == "unsupported" and found.unsupported >= 1
    assert "977" in found.alternative


def test_reconsidering_is_off_by_default(fake_context: Any) -> None:
    assert fake_context.settings.llm.refusal_threshold == 0.0
    answer, _, engine = _ask_unsure(fake_context, 0.3, " flow is 42 [2].", threshold=0.0)
    assert answer.refused and answer.reconsidered is None and engine.branches == []


def test_an_other_answer_that_declines_in_other_words_is_a_refusal_again(fake_context: Any) -> None:
    assert declines("The document does not contain this information.")
    assert declines('The figure does not mention any "objects" with black color.')
    assert not declines("The rated flow is 42 litres per minute [2].")
    answer, _, _ = _ask_unsure(fake_context, 0.3, " document does not contain this information.")
    assert answer.refused and answer.reconsidered is not None
    assert answer.reconsidered.outcome == "refused_again"
