"""A second look before refusing: small models refuse answers that are in their passages.

When the model replies that the documents do not contain the answer although passages were
given, it is asked once more, in the same conversation (so the engine reuses the prompt already
evaluated and only reads a few new tokens), to look again and answer with a quote. The second
answer is kept only when the support check finds evidence for it in the passages; otherwise the
refusal stands. So an unanswerable question stays refused unless the model can point at a source
sentence that supports what it says.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from desktop_rag.domain import Passage
from desktop_rag.llm import prompts
from desktop_rag.llm.citations import CitationChecker, Sentence
from desktop_rag.protocols import ChatMessage, Generation
from desktop_rag.services.stages import StageReporter

Generate = Callable[[list[ChatMessage]], Generation]


@dataclass(frozen=True, slots=True)
class Reply:
    """The answer that stands, its checked sentences, and whether a second look gave it."""

    generation: Generation
    sentences: list[Sentence]
    second_look: bool = False
    looked_again: bool = False  # a second look was asked for (kept or not)


def backed_by_sources(sentences: Sequence[Sentence]) -> bool:
    """Some sentence is supported and at most half of the checked ones are flagged."""
    checked = [s for s in sentences if s.supported is not None]
    flagged = sum(1 for s in checked if s.supported is False)
    return any(s.supported for s in checked) and flagged * 2 <= len(checked)


def answer_with_second_look(
    messages: list[ChatMessage],
    passages: Sequence[Passage],
    generate: Generate,
    checker: CitationChecker,
    stages: StageReporter,
) -> Reply:
    """The model's answer; a refusal despite given passages gets one second look."""
    stages.hold()
    first = generate(messages)
    if not (passages and prompts.is_not_found(first.text)):
        stages.release()
        return Reply(first, checker.check(first.text, passages))
    stages.rechecking()
    stages.hold(everything=True)
    again = [
        *messages, ChatMessage("assistant", first.text), ChatMessage("user", prompts.SECOND_LOOK)
    ]  # fmt: skip
    second = generate(again)
    sentences = checker.check(second.text, passages)
    if not prompts.is_not_found(second.text) and backed_by_sources(sentences):
        stages.release()
        return Reply(_combined(first, second), sentences, second_look=True, looked_again=True)
    stages.release(first.text)
    return Reply(first, checker.check(first.text, passages), looked_again=True)


def _combined(first: Generation, second: Generation) -> Generation:
    """The second answer, with the time and tokens of both attempts."""
    extra = {**second.extra, "second_look_ms": second.total_ms}
    return dataclasses.replace(
        second,
        prompt_tokens=first.prompt_tokens,
        cached_tokens=first.cached_tokens,
        generated_tokens=first.generated_tokens + second.generated_tokens,
        ttft_ms=first.ttft_ms,
        total_ms=first.total_ms + second.total_ms,
        extra=extra,
    )
