"""A second look before refusing: a refusal despite given passages is asked once more; the new
answer is kept only when the support check finds it in the passages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from answer_helpers import AnswerServices, add_document

from desktop_rag.domain import AnswerStage, Stage
from desktop_rag.llm import prompts
from desktop_rag.progress import CancelToken
from desktop_rag.protocols import ChatMessage, Generation, TokenCallback
from desktop_rag.services.stages import could_be_refusal
from desktop_rag.testing import FakeChatEngine

STEEL = "The northern plant produced 420 tonnes of steel in 2019 according to the annual report."
BANANA = "Bananas grow in warm tropical places and are harvested green."
QUESTION = "How much steel did the northern plant produce in 2019?"


class ScriptedEngine(FakeChatEngine):
    """Replies with each scripted text in turn."""

    def __init__(self, replies: Sequence[str]) -> None:
        super().__init__(replies[0])
        self.replies = list(replies)

    def generate(
        self,
        messages: Sequence[ChatMessage],
        max_tokens: int,
        on_token: TokenCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> Generation:
        self.reply = self.replies[min(len(self.prompts), len(self.replies) - 1)]
        return super().generate(messages, max_tokens, on_token, cancel)


def _ask(ctx: Any, replies: Sequence[str]) -> tuple[Any, ScriptedEngine, str, list[Stage]]:
    engine = ScriptedEngine(replies)
    ctx.__dict__["engine"] = engine
    add_document(ctx, "/lib/steel.pdf", "Steel report", [BANANA, STEEL])
    streamed: list[str] = []
    stages: list[AnswerStage] = []
    answer = AnswerServices(ctx).ask(QUESTION, on_token=streamed.append, on_stage=stages.append)
    return answer, engine, "".join(streamed), [s.stage for s in stages]


def test_a_refusal_gets_a_second_look_whose_supported_answer_is_kept(fake_context: Any) -> None:
    second = f'The plant produced 420 tonnes of steel in 2019 [2]. "{STEEL}"'
    answer, engine, streamed, stages = _ask(fake_context, [prompts.NOT_FOUND, second])
    assert answer.answer == second and not answer.refused and answer.unsupported_sentences == ()
    assert answer.citations[0].page == 2 and answer.timings["second_look_kept"]
    assert streamed.strip() == second  # the refusal was held back, not shown and then replaced
    assert Stage.RECHECKING in stages and stages[-1] is Stage.WRITING
    (_, _, refusal, look) = engine.prompts[1]
    assert (refusal.role, refusal.content) == ("assistant", prompts.NOT_FOUND)
    assert look.content == prompts.SECOND_LOOK  # the same conversation: its prefix is reused


def test_a_second_answer_no_source_supports_leaves_the_refusal(fake_context: Any) -> None:
    invented = "The plant produced 9,999 tonnes of copper in 1850 [1]."
    answer, engine, streamed, _ = _ask(fake_context, [prompts.NOT_FOUND, invented])
    assert answer.refused and answer.answer == prompts.NOT_FOUND
    assert streamed.strip() == prompts.NOT_FOUND and len(engine.prompts) == 2
    assert answer.timings["second_look"] and not answer.timings["second_look_kept"]


def test_a_second_refusal_stands(fake_context: Any) -> None:
    answer, engine, _, _ = _ask(fake_context, [prompts.NOT_FOUND, prompts.NOT_FOUND])
    assert answer.refused and len(engine.prompts) == 2


def test_an_answer_is_asked_once_and_streams_as_it_comes(fake_context: Any) -> None:
    reply = "The plant produced 420 tonnes of steel in 2019 [2]."
    answer, engine, streamed, stages = _ask(fake_context, [reply])
    assert len(engine.prompts) == 1 and streamed.strip() == reply
    assert Stage.RECHECKING not in stages and not answer.timings["second_look"]


def test_only_text_that_could_still_be_the_refusal_is_held() -> None:
    assert could_be_refusal("The documents do")
    assert could_be_refusal(prompts.NOT_FOUND + " Sorry.")
    assert not could_be_refusal("The plant")
