"""Lists and counts of web addresses, e-mail addresses, phone numbers and countries: found by
their shape (or the countries' names), each counted once, the excepted left out. Rules over
chunks built here, then generated manuals and reports (`bench.values_docs`: real PDFs) through
the real library and `ask`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.values_docs import build
from desktop_rag.bootstrap import build_context
from desktop_rag.config import Settings
from desktop_rag.domain import Chunk, DocKind, DocScope, RouteName
from desktop_rag.evaluation.count_eval import load_count_questions, record
from desktop_rag.routes.router import decide
from desktop_rag.routes.target import parse
from desktop_rag.routes.units import ItemUnit, units_of
from desktop_rag.routes.values import ValuesCount, count_values, parse_values
from desktop_rag.services import Services


def _units(*pages: str) -> list[ItemUnit]:
    chunks = [Chunk(f"d{i}", "d", "/d.pdf", "Manual", DocKind.PDF, text, i, (i,), (0, len(text)))
              for i, text in enumerate(pages, start=1)]  # fmt: skip
    return [u for c in chunks for u in units_of(c)]


def _count(question: str, units: list[ItemUnit]) -> ValuesCount | None:
    asked = parse_values(question, parse(question).head_noun)
    assert asked is not None, question
    return count_values(asked, units)


MANUAL = (
    "Help online: https://www.Kettle.com/ and www.kettle.com.\nWrite to help@kettle.de today.",
    "Tel. 0800 555 0199\nFirmware 2.3.14 from 2021-03-04 costs 1,234.56.\nYear 2015 2014 2013 2012",
    "Service: +44 20 7946 0958 or docs.kettle.io/descale. Orders: parts@kettle.de",
)


def test_web_addresses_are_counted_once_each_and_not_inside_e_mail_addresses() -> None:
    counted = _count("Which websites does the manual give?", _units(*MANUAL))
    assert counted is not None and [f.name for f in counted.found] == [
        "www.Kettle.com", "docs.kettle.io/descale"]
    assert [f.unit.page for f in counted.found] == [1, 3]
    mails = _count("List every e-mail address in the manual.", _units(*MANUAL))
    assert mails is not None
    assert [f.name for f in mails.found] == ["help@kettle.de", "parts@kettle.de"]


def test_phone_numbers_need_a_cue_or_a_plus_and_keep_their_whole_line() -> None:
    counted = _count("How many phone numbers are listed in the manual?", _units(*MANUAL))
    assert counted is not None and [f.name for f in counted.found] == [
        "0800 555 0199", "+44 20 7946 0958"]  # not the version, the date or the year row
    assert counted.found[0].unit.text == "Tel. 0800 555 0199"


def test_countries_under_all_their_names_and_the_excepted_left_out() -> None:
    units = _units("In the U.S., trust rose; in the United States it fell. UK: 45%.",
                   "German and French views differ. Latin America was not asked. CONTACT US",
                   "Germany, Japan and South Africa joined; Nigeria and Niger too.")  # fmt: skip
    counted = _count("How many countries are mentioned in the report?", units)
    assert counted is not None and [f.name for f in counted.found] == [
        "United States", "United Kingdom", "Germany", "Japan", "South Africa", "Nigeria", "Niger"]
    left = _count("List all countries, except U.S. and German, that are mentioned in some "
                  "illustrated surveys of this report. Note that we do not count EU as a single "
                  "country.", units)  # fmt: skip
    assert left is not None and left.question.excepted == ("U.S.", "German")
    assert [f.name for f in left.found][:2] == ["United Kingdom", "Japan"]


def test_a_value_in_two_documents_is_one_value_but_two_pages() -> None:
    units = _units("See www.kettle.com") + [
        u for u in units_of(Chunk("e1", "e", "/e.pdf", "Other", DocKind.PDF, "See www.kettle.com.",
                                  1, (1,), (0, 19)))]  # fmt: skip
    sites = _count("Which websites do the manuals give?", units)
    assert sites is not None and sites.count == 1
    pages = _count("How many pages contain a web address?", units)
    assert pages is not None and pages.count == 2


def test_pages_with_a_web_address_are_counted_by_page() -> None:
    counted = _count("How many pages contain a web address?", _units(*MANUAL))
    assert counted is not None and [f.unit.page for f in counted.found] == [1, 3]


def test_what_is_no_question_of_values() -> None:
    for question in ("List all countries where sales fell.", "How many invoices include an "
                     "email address?", "How many tables are in the paper?"):  # fmt: skip
        assert parse_values(question, parse(question).head_noun) is None, question
    assert _count("Which websites does the manual give?", _units("No links here.")) is None
    assert decide("Which websites does the manual give?").route is RouteName.EXHAUSTIVE


def test_a_request_in_other_words_asks_for_the_same_values() -> None:
    for question, kind in (("Count the phone numbers in the manual.", "phone number"),
                           ("What web addresses are listed in the manual?", "web address")):
        found = parse_values(question, parse(question).head_noun)
        assert found is not None and found.kind == kind, question
        assert decide(question).route is RouteName.EXHAUSTIVE, question


@pytest.fixture(scope="module")
def values_set(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Services, Path]]:
    root = tmp_path_factory.mktemp("values")
    build(root / "set", seed=29, small=True)
    services = Services(build_context(str(root / "data"), settings=Settings()))
    assert not services.ingest([root / "set" / "documents"]).failed
    yield services, root / "set"
    services.close()


def test_generated_manuals_and_reports_are_counted_exactly_through_the_library(
    values_set: tuple[Services, Path],
) -> None:
    """Real PDFs, the catalog, `ask`: every count exact, every value cited on the page of its
    first mention, without the chat model."""
    services, folder = values_set
    ids = {Path(d.path).name: d.doc_id for d in services.list_documents()}
    questions = load_count_questions(folder / "questions.jsonl")
    assert {q.family for q in questions} >= {"web", "mail", "phone", "countries", "web pages"}
    for q in questions:
        answer = services.ask(q.question, scope=DocScope(only=frozenset({ids[q.doc]})))
        scored = record(q, answer)
        assert answer.route.handled_by is RouteName.EXHAUSTIVE, q.question
        assert scored["exact"] and scored["all_cited"], (q.question, answer.answer)
        assert "model_calls" not in answer.route.details
