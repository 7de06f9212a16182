"""The stages of an answer (searching, reading, writing) with a scripted engine, a Stop before the
model writes, the stage texts, and how the CLI prints them on a terminal and in a log."""

from __future__ import annotations

import io
from typing import Any

import pytest
from answer_helpers import AnswerServices, TinySearch, add_document

from desktop_rag.cli.commands_answer import StageLines
from desktop_rag.domain import AnswerStage, Chunk, DocKind, Passage, Stage
from desktop_rag.domain.errors import CancelledError
from desktop_rag.domain.fakes import FakeChatEngine
from desktop_rag.domain.progress import CancelToken

STEEL = "The northern plant produced 420 tonnes of steel in 2019 according to the annual report."
QUESTION = "How much steel did the northern plant produce in 2019?"


def _services(ctx: Any, search: type[TinySearch] = TinySearch) -> AnswerServices:
    ctx.provide(engine=FakeChatEngine("The plant produced 420 tonnes of steel in 2019 [1]."))
    add_document(ctx, "/lib/steel.pdf", "Steel report", ["Bananas are yellow.", STEEL])
    return AnswerServices(ctx, search)


def test_stages_come_in_order_and_carry_the_answers_passages(fake_context: Any) -> None:
    services = _services(fake_context)
    stages: list[AnswerStage] = []
    answer = services.ask(QUESTION, on_stage=stages.append)
    assert [s.stage for s in stages] == [Stage.SEARCHING, Stage.READING, Stage.WRITING]
    searching, reading, writing = stages
    assert searching.passages == () and reading.passages == answer.passages != ()
    assert reading.prompt_tokens > 0 and writing.prompt_tokens == reading.prompt_tokens
    assert reading.progress is None  # a FakeChatEngine, like an LLM server, cannot tell


class _StoppedWhileSearching(TinySearch):
    """The user presses Stop while retrieval runs."""

    cancel = CancelToken()

    def search(self, *args: Any, **kwargs: Any) -> Any:
        result = super().search(*args, **kwargs)
        self.cancel.cancel()
        return result


def test_a_stop_while_searching_ends_the_answer_before_the_model(fake_context: Any) -> None:
    services = _services(fake_context, _StoppedWhileSearching)
    stages: list[AnswerStage] = []
    chat_id = services.new_chat()
    with pytest.raises(CancelledError):
        services.ask(QUESTION, chat_id, cancel=_StoppedWhileSearching.cancel,
                     on_stage=stages.append)
    assert [s.stage for s in stages] == [Stage.SEARCHING]
    assert fake_context.engine.prompts == [] and services.chat_history(chat_id) == []


def _passages(n: int) -> tuple[Passage, ...]:
    chunk = Chunk("c1", "d1", "/lib/a.pdf", "A", DocKind.PDF, "text", 0, (1,), (0, 4))
    return tuple(Passage(i + 1, chunk, chunk.text, 0.5) for i in range(n))


def test_stage_texts() -> None:
    six = _passages(6)
    assert AnswerStage(Stage.SEARCHING).describe() == "Searching your documents\u2026"
    assert AnswerStage(Stage.RESTORING, six).describe() == "Loading the pinned documents\u2026"
    assert AnswerStage(Stage.READING, six, 1840).describe() == (
        "Reading 6 passages (1,840 tokens)\u2026"
    )
    assert AnswerStage(Stage.READING, six, 1840, 828, 1840).describe() == (
        "Reading 6 passages (1,840 tokens)\u2026 45%"
    )
    assert AnswerStage(Stage.READING, _passages(1)).describe() == "Reading 1 passage\u2026"
    assert AnswerStage(Stage.WRITING, six, 1840).describe() == "Writing\u2026"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _print_stages(stream: io.StringIO) -> str:
    lines = StageLines(stream)
    six = _passages(6)
    lines(AnswerStage(Stage.SEARCHING))
    lines(AnswerStage(Stage.READING, six, 300))
    for done in (0, 128, 256):
        lines(AnswerStage(Stage.READING, six, 300, done, 256))
    lines(AnswerStage(Stage.WRITING, six, 300))
    return stream.getvalue()


def test_cli_prints_one_line_a_stage_and_progress_in_place_on_a_terminal() -> None:
    logged = _print_stages(io.StringIO())
    assert logged.splitlines() == [
        "Searching your documents\u2026",
        "Reading 6 passages (300 tokens)\u2026",
        "Writing\u2026",
    ]
    shown = _print_stages(_Terminal())
    assert shown.endswith("\r" + "Reading 6 passages (300 tokens)\u2026 100%\nWriting\u2026\n")
    assert shown.count("\n") == 3 and shown.count("\r") == 3
    last_progress = shown.split("\r")[-1].split("\n")[0]
    assert last_progress == "Reading 6 passages (300 tokens)\u2026 100%"
