"""An answer says one thing (answering/consistent.py), through the services with a scripted
engine: a checked calculation answers and a refusal beside it goes; a calculation that failed its
check goes under a refusal; an open question restated with a citation is a refusal; closed
questions and real answers are left alone."""

from __future__ import annotations

from typing import Any

from answer_helpers import AnswerServices, add_document

from desktop_rag.answering import prompts
from desktop_rag.answering.consistent import states_nothing
from desktop_rag.domain import Answer, CalculationProblem
from desktop_rag.domain.fakes import FakeChatEngine

TABLE = (
    "Streaming revenues of Netflix in 2015 (in thousands): domestic streaming revenues "
    "$ 4,180,339 and international streaming revenues $ 1,953,435."
)
QUESTION = "What was the total streaming revenue of Netflix in 2015, domestic and international?"
REFUSAL = prompts.NOT_FOUND


def _ask(ctx: Any, reply: str, question: str = QUESTION, added: bool = False) -> Answer:
    ctx.provide(engine=FakeChatEngine(reply))
    if not added:
        add_document(ctx, "/lib/netflix.pdf", "Netflix 10-K", [TABLE])
    return AnswerServices(ctx).ask(question)


def test_a_checked_calculation_answers_and_the_refusal_beside_it_goes(fake_context: Any) -> None:
    line = "Calculation: 4,180,339 [1] + 1,953,435 [1] = 6,133,774"
    answer = _ask(fake_context, f"{line}\n{REFUSAL}")
    assert answer.answer == line and not answer.refused
    assert answer.calculations[0].checked


def test_a_failed_calculation_goes_under_a_refusal(fake_context: Any) -> None:
    """mmlb-0160: "Calculation: (59.3 - 50.4) / 50.4 × 100 = 9.9%" and then a refusal."""
    made_up = "Calculation: 4,180,339 [1] + 3,800,000 [1] = 7,980,339"
    answer = _ask(fake_context, f"{made_up}\n{REFUSAL}")
    assert answer.answer == REFUSAL and answer.refused and answer.calculations == ()


def test_an_open_question_restated_with_a_citation_is_a_refusal(fake_context: Any) -> None:
    """mmlb-0239: "The color of the personality vector ... is [1]." (with the question's typo)."""
    question = "What was the totall streaming revenue of Netflix in 2015?"
    answer = _ask(fake_context, "The total streaming revenue of Netflix in 2015 was [1].", question)
    assert answer.answer == REFUSAL and answer.refused and answer.citations == ()


def test_real_answers_are_left_alone(fake_context: Any) -> None:
    reply = "Domestic streaming revenues were $4,180,339 thousand [1]."
    answer = _ask(fake_context, reply, "What were Netflix's domestic streaming revenues?")
    assert answer.answer == reply and not answer.refused


def test_what_restates_and_what_answers() -> None:
    asked = "What is the second FAQ shown in these slides?"
    assert states_nothing("The second FAQ shown in this slides is [2, 3].", asked)
    assert not states_nothing("The second FAQ is about pricing [2].", asked)
    assert states_nothing("[2]", "Which page shows the FAQ?")  # citations alone (mmlb-0441)
    assert states_nothing("[1, 2].", "Is it higher or lower than the average?")
    assert not states_nothing("No [1].", "Did revenue grow in 2015?")  # a closed question
    assert not states_nothing("It is higher [1].", "Is it higher or lower than the average?")
    assert not states_nothing("Revenue grew [1].", "Did revenue grow in 2015?")
    assert not states_nothing("The slides [1].", "What do the slides say about revenue in 2015?")


def test_a_calculation_over_an_invented_input_goes_with_its_result(fake_context: Any) -> None:
    """Issue 38: "Revenue grew to 4.2 million" gave "4.2 - 3.8 = 0.4" with 3.8 in no source; a
    result computed from a made-up number is no answer, whatever warning stands beside it."""
    made_up = "Calculation: 4,180,339 [1] + 3,800,000 [1] = 7,980,339"
    stated = "Domestic streaming revenues were $4,180,339 thousand [1]."
    answer = _ask(fake_context, f"{stated}\n{made_up}\nSo the total was $7,980,339 thousand [1].")
    assert answer.answer == stated and not answer.refused
    # the note stays, to say why: "Not computed: … (3,800,000 is not in source 1)"
    assert [c.problem for c in answer.calculations] == [CalculationProblem.INPUT_NOT_IN_SOURCES]
    alone = _ask(fake_context, f"{made_up}\nThe total was $7,980,339 thousand [1].", added=True)
    assert alone.answer == REFUSAL and alone.refused and not alone.calculations[0].computed
    built_on = f"{made_up}\nCalculation: 7,980,339 / 2 = 3,990,169.5\nHalf is 3,990,169.5."
    # a step on the invented result goes with it
    assert _ask(fake_context, built_on, added=True).answer == REFUSAL
    right = "Calculation: 4,180,339 [1] + 1,953,435 [1] = 6,133,774\nThe total was $6,133,774."
    kept = _ask(fake_context, right, added=True)
    assert kept.answer == right and kept.calculations[0].checked
