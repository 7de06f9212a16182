"""A question naming a fiscal year or quarter gets that period's cells first in the table rows of
its prompt: the rules, and a real table PDF through the library (PyMuPDF's table pass, the
catalog on disk, the prompt the engine is given) with the fake embedder and engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from table_pdfs import table_pdf

from desktop_rag.answering import periods, prompts
from desktop_rag.answering.periods import Period, asked_periods, column_period, periods_first
from desktop_rag.domain import Chunk, DocKind, Passage
from desktop_rag.domain.fakes import FakeChatEngine
from desktop_rag.ingest import table_model
from desktop_rag.services import Services

ROW = "Revenues — 2015: $ 4,180,339 | 2014: $ 3,431,434 | 2013: $ 2,751,375 (in thousands)"
TABLE = f"Domestic Streaming Segment (in thousands, except per share data)\n{ROW}"
Y = Period


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("What was streaming revenue in 2015?", (Y(2015),)),
        ("What was Nike's revenue in fiscal 2021?", (Y(2021),)),
        ("FY2015 operating income", (Y(2015),)),
        ("FY15 margin", (Y(2015),)),
        ("Sales in Q3 2019?", (Y(2019, 3),)),
        ("Sales in the third quarter of fiscal 2019 and 3Q 2018", (Y(2019, 3), Y(2018, 3))),
        ("How much did revenue change from 2014 to 2015?", (Y(2014), Y(2015))),
        ("As of December 31, 2015, what was cash?", (Y(2015),)),
        ("In the 2015 10-K, what was revenue in 2014?", (Y(2014),)),  # the report's year
        ("What was revenue?", ()),
        ("How many of the 2,015 units cost $2015?", ()),  # amounts, not years
    ],
)
def test_the_periods_a_question_names(question: str, asked: tuple[Period, ...]) -> None:
    assert asked_periods(question) == asked


@pytest.mark.parametrize(
    ("label", "period"),
    [
        ("2015", Y(2015)),
        ("Fiscal 2015", Y(2015)),
        ("FY2015", Y(2015)),
        ("Year Ended December 31, 2015", Y(2015)),
        ("2015 (restated)", Y(2015)),
        ("Q3 2019", Y(2019, 3)),
        ("Three Months Ended September 30, 2019", Y(2019, 0)),  # a part of 2019, not 2019
        ("2015 vs. 2014", None),
        ("Change", None),
    ],
)
def test_the_period_a_column_label_names(label: str, period: Period | None) -> None:
    assert column_period(label) == period


def test_the_asked_columns_come_first_in_the_order_asked() -> None:
    assert periods_first(TABLE, asked_periods("revenues in 2013")).splitlines()[1] == (
        "Revenues — 2013: $ 2,751,375 | 2015: $ 4,180,339 | 2014: $ 3,431,434 (in thousands)"
    )
    assert periods_first(ROW, asked_periods("change from 2013 to 2014")) == (
        "Revenues — 2013: $ 2,751,375 | 2014: $ 3,431,434 | 2015: $ 4,180,339 (in thousands)"
    )
    partial = "Other income (expense) — 2015: (1,577) | 2013: 3,102"
    moved = "Other income (expense) — 2013: 3,102 | 2015: (1,577)"
    assert periods_first(partial, (Y(2013),)) == moved
    assert periods_first("2015: 33% | 2014: 27 %", (Y(2014),)) == "2014: 27 % | 2015: 33%"


@pytest.mark.parametrize(
    "text",
    [
        ROW,  # 2015 is first already
        "Revenues — Q3 2015: 1 | Q2 2015: 2",  # quarters are not the year
        "Revenues — 2015 vs. 2014: 21.8% | 2014 vs. 2013: 24.7%",  # changes are neither year
        "Revenues $ 4,180,339 $ 3,431,434 2015 | see page 3",  # not a rendered row
        "Revenues — 4,180,339 | 3,431,434",  # no column labels
    ],
)
def test_other_lines_stay_as_they_are(text: str) -> None:
    assert periods_first(text, (Y(2015),)) == text


def test_the_row_format_is_the_ingestion_s() -> None:
    assert (periods.LABEL_SEP, periods.PIECE_SEP) == (table_model.LABEL_SEP, table_model.PIECE_SEP)


def _passage(n: int, text: str) -> Passage:
    chunk = Chunk(f"c{n}", "d1", "/docs/a.pdf", "Report", DocKind.PDF, text, n, (21,), (0, 9))
    return Passage(n, chunk, text, 1.0)


def test_only_the_retrieved_sources_are_reordered_not_the_core_or_the_passages() -> None:
    core, found = _passage(1, ROW), _passage(2, TABLE)
    system, user = prompts.build_messages([core], [found], "Revenues in fiscal 2014?")
    assert ROW in system.content  # the cached core prefix does not depend on the question
    assert "Revenues — 2014: $ 3,431,434 | 2015: $ 4,180,339 | 2013:" in user.content
    assert found.text == TABLE and ROW not in user.content
    assert ROW in prompts.user_message([found], "What were revenues?", False)


@pytest.fixture
def table_library(fake_context: Any, tmp_path: Path) -> Services:
    services = Services(fake_context)
    table_pdf(tmp_path / "docs" / "plain.pdf", ruled=False)
    assert not services.ingest([tmp_path / "docs"]).failed
    return services


def test_a_question_for_2013_gets_the_2013_column_first(table_library: Services) -> None:
    engine: FakeChatEngine = table_library.ctx.engine  # type: ignore[assignment]
    engine.reply = "Revenues in 2013 were $ 2,751,375 thousand [1]."
    answer = table_library.ask("What were revenues in 2013?")
    prompt = engine.prompts[-1][-1].content
    assert "Revenues — 2013: $ 2,751,375 | 2015: $ 4,180,339 | 2014: $ 3,431,434" in prompt
    table = next(p for p in answer.passages if "Revenues —" in p.text)
    assert "Revenues — 2015: $ 4,180,339 | 2014:" in table.text  # shown as the page prints it
    assert answer.citations and not answer.unsupported_sentences
