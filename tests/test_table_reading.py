"""A refusal over a table row the question names: the app reads the cell. The rules over
passages built here, then through the services with a scripted engine that refuses (the
default model did, with the row as its first source)."""

from __future__ import annotations

from typing import Any

from answer_helpers import AnswerServices, add_document

from desktop_rag.answering import prompts
from desktop_rag.answering.table_reading import NOTE, cell_answer, read_cell
from desktop_rag.domain import Chunk, DocKind, Passage
from desktop_rag.domain.fakes import FakeChatEngine

RESULTS = ("Table 1: Accuracy\n"
           "PaLM-2L — MMLU Physics: 66.4% (0.8%) | MMLU Chemistry: 70.9% (0.9%)\n"
           "PaLM-2L + Step-Back (ours) — MMLU Physics: 73.2% (1.9%) | MMLU Chemistry: 81.8% (1.4%)")
STATEMENT = ("Consolidated\nRevenues — 2015: $ 6,779,511 | 2014: $ 5,504,656 (in thousands)\n"
             "Total — 2015: $ 9,000 | 2014: $ 8,000")
SEGMENT = "Domestic\nRevenues — 2015: $ 4,180,339 | 2014: $ 3,431,434 (in thousands)"


def _passages(*texts: str) -> list[Passage]:
    return [Passage(n, Chunk(f"c{n}", "d", "/d.pdf", "Paper", DocKind.PDF, text, n, (5,),
                             (0, len(text))), text, 1.0)
            for n, text in enumerate(texts, start=1)]  # fmt: skip


def test_the_cell_named_by_row_and_column_is_read_the_most_specific_row_first() -> None:
    passages = _passages(RESULTS)
    cell = read_cell("What score did PaLM-2L + Step-Back achieve in MMLU Physics?", passages)
    assert cell is not None and (cell.passage, cell.value) == (1, "73.2% (1.9%)")
    plain = read_cell("What score did PaLM-2L achieve in MMLU Chemistry?", passages)
    assert plain is not None and plain.value == "70.9% (0.9%)"
    unit = read_cell("What were revenues in 2015?", _passages(SEGMENT))
    assert unit is not None and cell_answer(unit).startswith(
        "Revenues, 2015: $ 4,180,339 (in thousands) [1].")  # fmt: skip


def test_no_cell_is_read_unnamed_ambiguous_or_only_a_total() -> None:
    passages = _passages(RESULTS)
    assert read_cell("What score did PaLM-2L + Step-Back get in MMLU Biology?", passages) is None
    assert read_cell("What were revenues in 2015?", _passages(STATEMENT, SEGMENT)) is None
    assert read_cell("What was the total in 2015?", _passages(STATEMENT)) is None
    assert read_cell("Who wrote the paper?", passages) is None


def test_a_refusal_over_the_row_is_answered_from_it_and_checked(fake_context: Any) -> None:
    fake_context.provide(engine=FakeChatEngine(prompts.NOT_FOUND))
    add_document(fake_context, "/lib/stepback.pdf", "Step-Back", [RESULTS])
    shown: list[str] = []
    answer = AnswerServices(fake_context).ask(
        "What score did PaLM-2L + Step-Back achieve in MMLU Physics?", on_token=shown.append)
    assert "".join(shown).strip() == answer.answer  # the refusal was held, never shown
    assert answer.answer.startswith("PaLM-2L + Step-Back (ours), MMLU Physics: 73.2% (1.9%) [1].")
    assert answer.answer.endswith(NOTE) and not answer.refused
    assert answer.unsupported_sentences == () and [c.n for c in answer.citations] == [1]


def test_a_question_that_needs_arithmetic_keeps_its_refusal(fake_context: Any) -> None:
    fake_context.provide(engine=FakeChatEngine(prompts.NOT_FOUND))
    add_document(fake_context, "/lib/stepback.pdf", "Step-Back", [RESULTS])
    answer = AnswerServices(fake_context).ask(
        "What is the difference between PaLM-2L + Step-Back and PaLM-2L in MMLU Physics?")
    assert answer.refused
