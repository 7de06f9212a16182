"""The answer step every reading route ends with, as a pipeline of typed steps:

    prompt -> generate -> post-steps (in order) -> check -> Answer

Each step takes the draft (answering/draft.py) and returns it, or, at the end, the `Answer`.
The steps get what they use in their constructors; which post-steps run is decided where the
pipeline is built (services/routing.py, from the settings), not by branches in here.

- `PromptStep`: the formula the question asks for, or the financial ratio the app worked out
  from the tables, and the messages (instructions + core first, the cacheable prefix).
- `Generator`: the model writes, streaming to the stage reporter (services/generation.py runs
  it on the engine's thread, after the core's or the instructions' cached state).
- post-steps: `TableCellStep` answers a refusal from the table cell the question names.
- `CheckStep`: citations checked against the sources, calculations computed and checked, the
  sentences no source supports flagged, and the `Answer` built (one place builds it).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from desktop_rag.answering import prompts
from desktop_rag.answering.answer_rules import answer_refused, formula_shape, named
from desktop_rag.answering.calc_questions import needs_calculation
from desktop_rag.answering.calc_support import unsupported
from desktop_rag.answering.calculations import check_calculations
from desktop_rag.answering.citations import CitationChecker
from desktop_rag.answering.consistent import consistent
from desktop_rag.answering.draft import CoreContext, Draft
from desktop_rag.answering.ratio_worksheet import worksheet
from desktop_rag.answering.stages import StageReporter, reporter_of
from desktop_rag.answering.stated_value import stated_value
from desktop_rag.answering.table_reading import NOTE as TABLE_NOTE
from desktop_rag.answering.table_reading import cell_answer, read_cell
from desktop_rag.answering.timings import generation_timings, unasked_timings
from desktop_rag.domain import Answer, Passage, SearchResult
from desktop_rag.domain.computed import CheckedCalculation
from desktop_rag.domain.progress import CancelToken
from desktop_rag.domain.protocols import ChatMessage, Generation, TokenCallback


class Generator(Protocol):
    """Runs the answer's messages on the chat model, streaming to `on_token`."""

    def generate(
        self,
        messages: list[ChatMessage],
        core: CoreContext,
        on_token: TokenCallback | None,
        cancel: CancelToken | None,
    ) -> Generation: ...


class PostStep(Protocol):
    """A step after the model wrote: it may replace the draft's text. One that may replace a
    refusal says so (`replaces_refusals`): the stream then holds a refusal back until the
    steps have run, so that the user never sees text that is then taken back."""

    replaces_refusals: bool

    def run(self, draft: Draft, stages: StageReporter) -> Draft: ...


class PromptStep:
    """The prompt: a formula's shape when the question asks for arithmetic and the sources do
    not state the value asked, or the ratio the app worked out from the sources' tables (when
    `ratio_worksheet` is on)."""

    def __init__(self, ratio_worksheet: bool) -> None:
        self.ratio_worksheet = ratio_worksheet

    def run(self, draft: Draft) -> tuple[Draft, list[ChatMessage]]:
        shape = formula_shape(draft.question, draft.query, draft.compared)
        if shape is not None and stated_value(draft.query, draft.every) is not None:
            shape = None  # the sources state the value asked: quoted, not recomputed
        worked = worksheet(draft.query, draft.every) if self.ratio_worksheet else None
        draft = dataclasses.replace(draft, shape=shape, worked=worked)
        messages = prompts.build_messages(
            draft.core.passages, draft.passages, draft.query, shape, draft.note, worked
        )
        return draft, messages


class TableCellStep:
    """A refusal over a table row that answers the question: the app reads the cell
    (answering/table_reading.py). Not for a change, a share or a sum: a cell is none."""

    replaces_refusals = True

    def run(self, draft: Draft, stages: StageReporter) -> Draft:
        if not draft.refused or needs_calculation(draft.query):
            return draft
        cell = read_cell(draft.query, draft.every)
        if cell is None:
            return draft
        stages.discard()
        stages(answer := cell_answer(cell))
        return draft.with_text(answer)


class CheckStep:
    """Checks the final text against its sources and builds the `Answer`."""

    def __init__(
        self, checker: Callable[[], CitationChecker], gpu_offload: Callable[[], bool]
    ) -> None:
        self.checker = checker
        self.gpu_offload = gpu_offload

    def run(self, draft: Draft) -> Answer:
        checker, every = self.checker(), draft.every
        text, calculations = consistent(draft.text, worked_calculations(draft), draft.question)
        sentences = checker.check(text, every)
        flagged = unsupported(sentences, calculations, every, named=named(draft.worked),
                              question=draft.question)
        return Answer(
            question=draft.question,
            answer=text.strip(),
            chat_id=draft.chat_id,
            citations=tuple(checker.citations(sentences, every)),
            passages=every,
            unsupported_sentences=tuple(s for s in flagged if s != TABLE_NOTE),
            refused=answer_refused(text, calculations),
            reranker=draft.result.reranker,
            gpu_offload=self.gpu_offload(),
            timings=draft.timings,
            calculations=calculations,
        )


def worked_calculations(draft: Draft) -> tuple[CheckedCalculation, ...]:
    """The answer's calculations, and the app's worked one when the answer did not write it
    (a small model sometimes paraphrases the line). Checked against the sources like the
    answer's own, it shows the user what was computed and backs the sentence stating its
    result. Not under a refusal: the answer then states nothing."""
    worked, calculations = draft.worked, draft.calculations
    if worked is None or prompts.is_not_found(draft.text):
        return calculations
    if any(c.result is not None and math.isclose(c.result, worked.result) for c in calculations):
        return calculations
    line = f"Calculation: {worked.expression} = {worked.result_text}"
    return (*calculations, *check_calculations(line, draft.every, draft.question))


class AnswerPipeline:
    """prompt -> generate -> post-steps -> check (see the module text)."""

    def __init__(
        self,
        prompt: PromptStep,
        generator: Generator,
        post_steps: Sequence[PostStep],
        check: CheckStep,
    ) -> None:
        self.prompt = prompt
        self.generator = generator
        self.post_steps = tuple(post_steps)
        self.check = check

    def run(
        self, draft: Draft, on_token: TokenCallback | None, cancel: CancelToken | None,
        started: float,
    ) -> Answer:  # fmt: skip
        """The checked answer to `draft`; `started` is when the question was asked."""
        draft, messages = self.prompt.run(draft)
        stages = reporter_of(on_token)
        if draft.every and any(step.replaces_refusals for step in self.post_steps):
            stages.hold_while(prompts.NOT_FOUND)  # a refusal is shown once it is final
        generation_start = time.perf_counter()
        generation = self.generator.generate(messages, draft.core, stages, cancel)
        draft.timings.update(generation_timings(generation, generation_start, started))
        draft = draft.with_text(generation.text)
        for step in self.post_steps:
            draft = step.run(draft, stages)
        stages.release()
        return self.check.run(draft)


def refusal_answer(
    question: str, chat_id: str, result: SearchResult, timings: dict[str, float],
    started: float, gpu_offload: bool,
) -> Answer:  # fmt: skip
    """Insufficient evidence: say so and show the nearest passages; the model is not asked."""
    nearest = tuple(
        Passage(i + 1, s.chunk, s.chunk.text, s.score) for i, s in enumerate(result.results[:3])
    )
    timings.update(unasked_timings(started))
    return Answer(
        question=question,
        answer=prompts.refusal_text(nearest),
        chat_id=chat_id,
        citations=(),
        passages=nearest,
        unsupported_sentences=(),
        refused=True,
        reranker=result.reranker,
        gpu_offload=gpu_offload,
        timings=timings,
    )
