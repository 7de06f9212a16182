"""Counts of a document's parts (tables, figures, appendices, chapters, exhibits, pages with
tables): by distinct labels, not by lines that say the word. Rules over chunks built here, then
generated reports (`bench.parts_docs`: real PDFs with ruled tables) through the real library
and `ask`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.parts_docs import build
from desktop_rag.bootstrap import build_context
from desktop_rag.config import Settings
from desktop_rag.domain import Chunk, DocKind, DocScope, RouteName
from desktop_rag.evaluation.count_eval import load_count_questions, record
from desktop_rag.routes.parts import PartsCount, count_parts, parse_parts
from desktop_rag.routes.target import parse
from desktop_rag.routes.units import ItemUnit, units_of
from desktop_rag.services import Services


def _units(*pages: str, doc: str = "d") -> list[ItemUnit]:
    chunks = [Chunk(f"{doc}{i}", doc, f"/{doc}.pdf", doc, DocKind.PDF, text, i, (i,),
                    (0, len(text))) for i, text in enumerate(pages, start=1)]  # fmt: skip
    return [u for c in chunks for u in units_of(c)]


def _count(question: str, units: list[ItemUnit]) -> PartsCount | None:
    asked = parse_parts(question, parse(question).head_noun)
    assert asked is not None, question
    return count_parts(asked, units)


PAPER = (
    "Table of Contents\nThe table below is for reference.\nTable 1: Cost by region\n"
    "As Table 1 shows, costs fell. Table 2 shows more.",
    "Table 2: Staff by site\nFigure 1. Visits per month\nSee Fig. 1 and Table 3 below.",
    "Table 2 (continued)\nTable 3: Accuracy of the models\nSection 508 of the act applies.",
)


def test_tables_are_counted_once_each_by_their_captions() -> None:
    counted = _count("How many tables are in the paper?", _units(*PAPER))
    assert counted is not None and counted.count == 3 and counted.numbered_to is None
    assert [f.unit.text for f in counted.found] == [
        "Table 1: Cost by region", "Table 2: Staff by site", "Table 3: Accuracy of the models"]
    assert [f.unit.page for f in counted.found] == [1, 2, 3]
    figures = _count("How many figures does the paper contain?", _units(*PAPER))
    assert figures is not None and figures.count == 1
    assert figures.found[0].unit.text == "Figure 1. Visits per month"  # the line, whole


def test_a_condition_is_read_in_the_captions_and_none_stated_hands_over() -> None:
    counted = _count("How many tables are about accuracy?", _units(*PAPER))
    assert counted is not None and [f.name for f in counted.found] == ["Table 3"]
    assert _count("How many tables include F1 as a metric?", _units(*PAPER)) is None


def test_mentions_count_distinct_labels_and_lists_of_them() -> None:
    units = _units("The claimant filed Exhibits P-1 and P-2, then Exhibit P-3.",
                   "The court read Exhibit P- 2 again and Exhibits D-1, D-2 and D-3.")  # fmt: skip
    counted = _count("How many Exhibits are mentioned in the document?", units)
    assert counted is not None and counted.count == 6
    assert [f.name for f in counted.found] == [
        "Exhibit P-1", "Exhibit P-2", "Exhibit P-3", "Exhibit D-1", "Exhibit D-2", "Exhibit D-3"]


def test_numbered_parts_count_to_their_highest_number() -> None:
    units = _units("CHAPTERS\n1. Introduction\n2. Methods",
                   "As said in Chapter 1: Introduction and Chapter 7: Outlook, risks grow.")
    counted = _count("How many chapters are in this report?", units)
    assert counted is not None and counted.count == 7 and counted.numbered_to == 7
    assert len(counted.found) == 2
    letters = _count("How many appendices appear in the document?",
                     _units("Appendix A: Staff\nsee Appendix D for the list"))  # fmt: skip
    assert letters is not None and letters.count == 4  # A is defined, D named: A to D
    mentioned = _count("How many appendices are mentioned?", _units("see Appendix A or Appendix D"))
    assert mentioned is not None and mentioned.count == 4 and mentioned.numbered_to == 4


def test_a_law_section_is_no_count_and_parts_of_two_documents_are_apart() -> None:
    law = _count("How many sections are mentioned?", _units("Section 508 and Section 12 apply."))
    assert law is not None and law.count == 2 and law.numbered_to is None
    both = _units("Table 1: A", doc="x") + _units("Table 1: B\nTable 2: C", doc="y")
    counted = _count("How many tables are in the documents?", both)
    assert counted is not None and counted.count == 3 and counted.numbered_to is None


def test_unlabelled_charts_are_counted_by_their_source_lines() -> None:
    units = _units("Members by age\nSource: Annual totals of Pew Research Center survey data.",
                   "Visits\nSource: Census 2021.\nGrowth\nSource: Annual total of 2018 Pew "
                   "Research Center survey data.")  # fmt: skip
    counted = _count("How many charts are sourced from Annual totals of Pew Research Center "
                     "survey data?", units)  # fmt: skip
    assert counted is not None and counted.count == 2
    assert all(f.by == "source line" for f in counted.found)


def test_what_is_no_count_of_labelled_parts() -> None:
    for question in ("How many pie charts are there in the paper?", "How many invoices were paid "
                     "late?", "How many action items are in the notes?"):  # fmt: skip
        assert parse_parts(question, parse(question).head_noun) is None, question
    assert _count("How many tables are in the paper?", _units("No tables here.")) is None


def test_pages_with_tables_are_the_pages_of_table_rows_or_captions() -> None:
    units = _units("Prose only.", "Revenues — 2015: $ 4,180 | 2014: $ 3,431 (in thousands)",
                   "Report | 12\nA dash — as in prose — is no row.", "Table 4: Costs")
    counted = _count("How many pages contain tables?", units)
    assert counted is not None and [f.unit.page for f in counted.found] == [2, 4]


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Services, Path]]:
    root = tmp_path_factory.mktemp("parts")
    build(root / "set", seed=23, small=True)
    services = Services(build_context(str(root / "data"), settings=Settings()))
    assert not services.ingest([root / "set" / "documents"]).failed
    yield services, root / "set"
    services.close()


def test_generated_reports_are_counted_exactly_through_the_library(
    reports: tuple[Services, Path],
) -> None:
    """Real PDFs (ruled tables found by the table pass), the catalog, `ask`: every count exact,
    every part cited on its page, without the chat model."""
    services, folder = reports
    ids = {Path(d.path).name: d.doc_id for d in services.list_documents()}
    questions = load_count_questions(folder / "questions.jsonl")
    assert {q.family for q in questions} >= {"captions", "numbered", "pages", "mentions"}
    for q in questions:
        answer = services.ask(q.question, scope=DocScope(only=frozenset({ids[q.doc]})))
        scored = record(q, answer)
        assert answer.route.handled_by is RouteName.EXHAUSTIVE, q.question
        assert scored["exact"] and scored["all_cited"], (q.question, answer.answer)
        assert "model_calls" not in answer.route.details
