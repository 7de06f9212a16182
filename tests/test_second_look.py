"""The second look before a refusal stands: the closest lines, the quote checked against them, the
refusal held back from the stream until both looks agree, and the setting that turns it off."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from answer_helpers import AnswerServices, add_document

from desktop_rag.domain import AnswerStage, Chunk, DocKind, Passage, Stage
from desktop_rag.llm import prompts
from desktop_rag.llm import second_look as sl
from desktop_rag.progress import CancelToken
from desktop_rag.protocols import ChatMessage, Generation, TokenCallback
from desktop_rag.services.stages import StageReporter
from desktop_rag.testing import FakeChatEngine, HashEmbedder

PUMP = (
    "The pump is made of cast iron. It was installed in the basement in 2011. "
    "Its rated flow is 42 litres per minute at 3 bar. The warranty covers five years."
)
FILLER = "The garden has roses and tulips. Visitors come in spring. The gate closes at dusk."


def _passage(n: int, text: str, ordinal: int = 0) -> Passage:
    chunk = Chunk(f"c{n}", "d1", "/lib/pump.pdf", "Pump manual", DocKind.PDF, text, ordinal,
                  (n,), (0, len(text)))  # fmt: skip
    return Passage(n, chunk, text, 1.0)


def test_the_closest_lines_hold_the_answer_in_reading_order() -> None:
    passages = [_passage(1, FILLER), _passage(2, PUMP, 1)]
    lines = sl.best_lines("What is the rated flow of the pump?", passages, HashEmbedder())
    assert any("42 litres per minute" in line.text for line in lines)
    assert len(lines) <= sl.MAX_LINES
    order = [(line.n, line.unit.start) for line in lines]
    assert order == sorted(order)
    spans = [(line.unit.chunk.chunk_id, line.unit.start, line.unit.end) for line in lines]
    for i, (cid, a, b) in enumerate(spans):  # no line overlaps another
        assert all(not (c == cid and a < d and e < b) for c, e, d in spans[i + 1 :])


def _lines() -> list[sl.Line]:
    return sl.best_lines("What is the rated flow of the pump?", [_passage(3, PUMP)], None)


def test_a_quote_of_a_shown_line_gives_the_answer_with_its_citation() -> None:
    reply = 'Quote: "Its rated flow is 42 litres per minute."\nAnswer: 42 litres per minute.'
    reading = sl.read_reply(reply, _lines(), "What is the rated flow of the pump?")
    assert reading.outcome == "answered"
    assert reading.answer == "42 litres per minute [3]."


def test_the_questions_own_numbers_are_no_new_claim() -> None:
    reply = "Quote: Its rated flow is 42 litres per minute\nAnswer: In 2011 it was 42 litres."
    reading = sl.read_reply(reply, _lines(), "What was the pump's rated flow in 2011?")
    assert reading.outcome == "answered"


def test_an_echo_of_the_instructions_is_not_part_of_the_quote() -> None:
    reply = "Quote: Its rated flow is 42 litres per minute copied exactly\nAnswer: 42 litres [7]"
    reading = sl.read_reply(reply, _lines(), "What is the rated flow of the pump?")
    assert reading.answer == "42 litres [3]."  # a wrong source number is set to the line's


@pytest.mark.parametrize(
    ("reply", "outcome"),
    [
        ("NONE", "refused_again"),
        ("Quote: Its rated flow is 42 litres\nAnswer: NONE", "refused_again"),
        ("The flow is 42 litres.", "no_answer"),
        ("Quote: The pump delivers 90 litres per minute\nAnswer: 90 litres", "quote_not_shown"),
        ("Quote: Its rated flow is 42 litres per minute\nAnswer: 45 litres", "number_not_in_line"),
        ("Quote: Its rated flow is 42 litres per minute\nAnswer: a diesel turbine compressor",
         "words_not_in_line"),
    ],
)
def test_the_refusal_stands_unless_the_reply_is_read_from_a_shown_line(
    reply: str, outcome: str
) -> None:
    reading = sl.read_reply(reply, _lines(), "What is the rated flow of the pump?")
    assert reading.answer is None and reading.outcome == outcome


class TwoLooks(FakeChatEngine):
    """Refuses at first; answers the second look's prompt with `second`."""

    def __init__(self, second: str) -> None:
        super().__init__(prompts.NOT_FOUND)
        self.second = second

    def generate(
        self,
        messages: Sequence[ChatMessage],
        max_tokens: int,
        on_token: TokenCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> Generation:
        second = messages[0].content == sl.INSTRUCTIONS
        self.reply = self.second if second else prompts.NOT_FOUND
        return super().generate(messages, max_tokens, on_token, cancel)


def _ask(ctx: Any, second: str, on: bool = True) -> tuple[Any, str, list[AnswerStage]]:
    ctx.update_settings({"llm.second_look": on})
    ctx.provide(engine=TwoLooks(second))
    add_document(ctx, "/lib/pump.pdf", "Pump manual", [FILLER, PUMP])
    streamed: list[str] = []
    stages: list[AnswerStage] = []
    answer = AnswerServices(ctx).ask("What is the rated flow of the pump?",
                                     on_token=streamed.append, on_stage=stages.append)  # fmt: skip
    return answer, "".join(streamed), stages


def test_a_second_look_that_quotes_its_line_answers_and_the_refusal_is_never_shown(
    fake_context: Any,
) -> None:
    quote = "Quote: Its rated flow is 42 litres per minute at 3 bar.\nAnswer: 42 litres per minute."
    answer, streamed, stages = _ask(fake_context, quote)
    assert not answer.refused
    assert answer.second_look is not None and answer.second_look.answered
    assert answer.second_look.first_answer == prompts.NOT_FOUND
    assert "42 litres per minute [" in answer.answer and streamed.strip() == answer.answer
    assert prompts.NOT_FOUND not in streamed
    (citation,) = answer.citations
    assert citation.chunk.text == PUMP and answer.unsupported_sentences == ()
    assert Stage.RECHECKING in [s.stage for s in stages]
    assert "second look" in answer.second_look.describe()
    assert answer.timings["second_look_ms"] >= 0


def test_a_second_refusal_confirms_the_first_and_it_is_streamed(fake_context: Any) -> None:
    answer, streamed, _ = _ask(fake_context, "NONE")
    assert answer.refused and answer.answer == prompts.NOT_FOUND
    assert streamed.strip() == prompts.NOT_FOUND
    assert answer.second_look is not None and answer.second_look.outcome == "refused_again"
    assert answer.second_look.describe() == ""


def test_the_second_look_is_off_unless_turned_on(fake_context: Any) -> None:
    assert not fake_context.settings.llm.second_look  # the default (see the README's figures)
    reply = "Quote: Its rated flow is 42 litres\nAnswer: 42 litres."
    answer, streamed, _ = _ask(fake_context, reply, on=False)
    assert answer.refused and answer.second_look is None
    assert streamed.strip() == prompts.NOT_FOUND


def test_held_pieces_pass_on_as_soon_as_the_answer_is_not_the_refusal() -> None:
    out: list[str] = []
    reporter = StageReporter(out.append, None)
    reporter.hold_while(prompts.NOT_FOUND)
    for piece in ["The ", "documents ", "say ", "42."]:
        reporter(piece)
    assert "".join(out) == "The documents say 42."
    reporter.hold_while(prompts.NOT_FOUND)
    reporter("The documents do not")
    assert "".join(out) == "The documents say 42."
    reporter.discard()
    reporter.release()
    assert "".join(out) == "The documents say 42."
