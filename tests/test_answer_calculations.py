"""Computed answers through the services with a scripted engine: the prompt asks for the
calculation, the answer carries it checked, `ask --json` and `ask` show it, and the chat store
keeps it (old chat files gain the column)."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from answer_helpers import AnswerServices, add_document

from desktop_rag.answering import prompts
from desktop_rag.answering.calc_questions import SUM_SHAPE
from desktop_rag.cli.commands_answer import Streamed, _print_answer, answer_json
from desktop_rag.domain import Answer, CalculationProblem
from desktop_rag.domain.fakes import FakeChatEngine
from desktop_rag.store.chats import ChatStore

TABLE = (
    "Streaming revenues of Netflix in 2015 (in thousands): domestic streaming revenues "
    "$ 4,180,339 and international streaming revenues $ 1,953,435."
)
QUESTION = "What was the total streaming revenue of Netflix in 2015, domestic and international?"
RIGHT = (
    "The streaming revenues of Netflix in 2015, domestic and international, were $ 6,133,774 "
    "(in thousands) [1].\n"
    "Calculation: 4,180,339 [1] + 1,953,435 [1] = 6,133,774"
)
WRONG = RIGHT.replace("6,133,774", "6,100,000")


def _ask(ctx: Any, reply: str, question: str = QUESTION) -> tuple[Answer, FakeChatEngine]:
    engine = FakeChatEngine(reply)
    ctx.provide(engine=engine)
    add_document(ctx, "/lib/netflix.pdf", "Netflix 10-K", [TABLE])
    return AnswerServices(ctx).ask(question), engine


def test_a_question_that_needs_arithmetic_asks_for_the_calculation(fake_context: Any) -> None:
    answer, engine = _ask(fake_context, RIGHT)
    (messages,) = engine.prompts
    assert messages[-1].content.endswith(prompts.CALCULATION_REQUEST.format(shape=SUM_SHAPE))
    (calc,) = answer.calculations
    assert calc.checked and calc.result == 6_133_774 and calc.agrees is True
    assert calc.result_text == "6,133,774 thousand"
    assert answer.answer == RIGHT  # the text is the model's
    assert answer.unsupported_sentences == ()  # the formula is checked here, not as a sentence
    assert [c.n for c in answer.citations] == [1]


def test_a_question_that_reads_a_value_gets_no_request(fake_context: Any) -> None:
    reply = "Domestic streaming revenues were $4,180,339 thousand [1]."
    answer, engine = _ask(fake_context, reply, "What were Netflix's domestic streaming revenues?")
    assert "Calculation:" not in engine.prompts[0][-1].content
    assert answer.calculations == ()


def test_a_wrong_result_is_kept_in_the_text_and_corrected_beside_it(fake_context: Any) -> None:
    answer, _ = _ask(fake_context, WRONG)
    (calc,) = answer.calculations
    assert calc.problem is CalculationProblem.STATED_RESULT_WRONG and calc.result == 6_133_774
    assert "6,100,000" in answer.answer and "6,133,774" not in answer.answer


def test_a_sentence_stating_a_wrong_result_stays_unsupported(fake_context: Any) -> None:
    wrong, _ = _ask(fake_context, WRONG)
    assert wrong.unsupported_sentences == (WRONG.splitlines()[0].replace(" [1]", ""),)


def test_a_checked_result_backs_no_other_made_up_number(fake_context: Any) -> None:
    made_up = RIGHT.replace("(in thousands)", "(in thousands) after 1999")
    answer, _ = _ask(fake_context, made_up)
    assert answer.calculations[0].checked
    assert len(answer.unsupported_sentences) == 1  # 1999 is in no source: still flagged
    assert "Calculation:" not in answer.unsupported_sentences[0]


@pytest.mark.parametrize(("reply", "refused"), [(RIGHT, False), (WRONG, True)])
def test_a_checked_calculation_answers_even_if_the_model_adds_it_cannot(
    fake_context: Any, reply: str, refused: bool
) -> None:
    answer, _ = _ask(fake_context, f"{reply}\n{prompts.NOT_FOUND}")
    assert answer.refused is refused  # an unchecked one is nothing to stand on


def test_ask_json_carries_the_checked_calculations(fake_context: Any) -> None:
    answer, _ = _ask(fake_context, WRONG)
    doc = json.loads(json.dumps(answer_json(answer)))
    (calc,) = doc["calculations"]
    assert set(calc) == {"expression", "formula", "inputs", "result", "result_text", "stated",
                         "agrees", "problem", "message", "line", "scale", "checked"}  # fmt: skip
    assert calc["formula"] == "4,180,339 [1] + 1,953,435 [1]"
    assert calc["result"] == 6_133_774 and calc["result_text"] == "6,133,774 thousand"
    assert calc["stated"] == "6,100,000" and calc["agrees"] is False and calc["checked"] is False
    assert calc["problem"] == "stated_result_wrong"
    assert calc["inputs"][0] == {"text": "4,180,339", "value": 4180339.0, "citations": [1],
                                 "found": True, "found_in": [1], "scale": 1000.0,
                                 "constant": False, "from_calculation": None}  # fmt: skip


@pytest.mark.parametrize(
    ("reply", "line"),
    [
        (RIGHT, "Computed: 4,180,339 [1] + 1,953,435 [1] = 6,133,774 thousand (checked)"),
        (WRONG, "Computed: 4,180,339 [1] + 1,953,435 [1]: the answer says 6,100,000; "
                "computed 6,133,774 thousand"),
        (RIGHT.replace("1,953,435", "1,900,000"),
         "Not computed: 4,180,339 [1] + 1,900,000 [1] (1,900,000 is not in source 1)"),
    ],
)
def test_ask_prints_each_calculation_under_the_answer(
    fake_context: Any, capsys: Any, reply: str, line: str
) -> None:
    answer, _ = _ask(fake_context, reply)
    capsys.readouterr()
    _print_answer(answer, Streamed(io.StringIO()))
    out = capsys.readouterr().out.splitlines()
    assert line in out


def test_the_cli_prints_the_checked_answer_when_the_checks_changed_the_streamed_text(
    fake_context: Any, capsys: Any
) -> None:
    """A calculation that failed its check, written before a refusal, is taken back from the
    answer; the terminal cannot unprint it, so the checked answer follows the stream."""
    reply = ("Calculation: 4,180,339 [1] + 1,900,000 [1] = 6,080,339\n"
             "The documents do not contain this information.")
    answer, _ = _ask(fake_context, reply)
    assert answer.answer == "The documents do not contain this information."
    streamed = Streamed(io.StringIO())
    streamed(reply)
    capsys.readouterr()
    _print_answer(answer, streamed)
    out = capsys.readouterr().out
    assert "Checked answer" in out and out.rstrip().endswith(answer.answer)
    same = Streamed(io.StringIO())
    same(answer.answer + "\n")
    _print_answer(answer, same)
    assert "Checked answer" not in capsys.readouterr().out


def test_the_chat_store_keeps_them_and_restores_them(fake_context: Any) -> None:
    answer, _ = _ask(fake_context, WRONG)
    assert answer.chat_id is not None
    reopened = ChatStore(fake_context.paths.chats_db)
    try:
        turns = reopened.history(answer.chat_id)
    finally:
        reopened.close()
    assert [t.calculations for t in turns] == [(), answer.calculations]


OLD_SCHEMA = """
CREATE TABLE chats (chat_id TEXT PRIMARY KEY, title TEXT NOT NULL, created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL);
CREATE TABLE messages (message_id INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id TEXT NOT NULL REFERENCES chats(chat_id) ON DELETE CASCADE,
    role TEXT NOT NULL, content TEXT NOT NULL, query TEXT, refused INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL);
INSERT INTO chats VALUES ('old', 'Old chat', '2024-01-01', '2024-01-01');
INSERT INTO messages (chat_id, role, content, created_at) VALUES ('old', 'user', 'Q?', 'x');
INSERT INTO messages (chat_id, role, content, created_at) VALUES ('old', 'assistant', 'A.', 'x');
"""


def test_a_chat_file_from_before_calculations_gains_the_column(tmp_path: Path) -> None:
    path = tmp_path / "chats.db"
    with sqlite3.connect(path) as db:
        db.executescript(OLD_SCHEMA)
    store = ChatStore(path)
    try:
        assert [(t.content, t.calculations) for t in store.history("old")] == [
            ("Q?", ()), ("A.", ())]  # fmt: skip
    finally:
        store.close()
    with sqlite3.connect(path) as db:
        columns = {row[1] for row in db.execute("PRAGMA table_info(messages)")}
    assert "calculations" in columns
