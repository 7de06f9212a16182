"""The second look before a refusal stands (llm/second_look.py has the why): the lines that match
the question best, one short model call, and the reply accepted only when its quote is a line
it was shown. Runs on the engine's owning thread like every other model call."""

from __future__ import annotations

import time
from collections.abc import Sequence

from desktop_rag.bootstrap import AppContext
from desktop_rag.domain import Passage, SecondLook
from desktop_rag.llm import second_look
from desktop_rag.llm.worker import run_on_engine, unwrap
from desktop_rag.progress import CancelToken
from desktop_rag.protocols import ChatMessage, Generation, TokenGenerating
from desktop_rag.services.answer_timings import since
from desktop_rag.services.stages import StageReporter, check

MAX_TOKENS = 120  # a quote and a one-sentence answer


class SecondLooker:
    """Asks the model once more, over the closest lines, before its refusal is shown."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx

    @property
    def enabled(self) -> bool:
        return self.ctx.settings.llm.second_look

    def look(
        self,
        question: str,
        passages: Sequence[Passage],
        first_answer: str,
        stages: StageReporter,
        cancel: CancelToken | None,
    ) -> tuple[str | None, SecondLook]:
        """The new answer (None: the refusal stands) and what the second look found."""
        start = time.perf_counter()
        lines = second_look.best_lines(question, passages, self.ctx.embedder)
        if not lines:
            return None, SecondLook("no_lines", first_answer)
        check(cancel)
        stages.looking_again(len(lines))
        reply = self._generate(second_look.messages(question, lines), cancel)
        reading = second_look.read_reply(reply.text, lines, question)
        found = SecondLook(reading.outcome, first_answer, reading.quote, len(lines), since(start))
        return reading.answer, found

    def _generate(self, messages: list[ChatMessage], cancel: CancelToken | None) -> Generation:
        engine = self.ctx.engine
        if isinstance(unwrap(engine), TokenGenerating):
            generation: Generation = run_on_engine(engine, lambda e: e.generate_tokens(
                e.tokenize_prompt(e.render(messages)), MAX_TOKENS, None, cancel))  # fmt: skip
            return generation
        return engine.generate(messages, MAX_TOKENS, None, cancel)
