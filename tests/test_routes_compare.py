"""The comparison route: the sides a question compares (documents, years, entities), each searched
on its own with an equal share of the context, the model told which sources are whose, and the
route info saying how many sides the answer cites. One side or none: lookup answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from answer_helpers import AnswerServices, add_document

from desktop_rag.domain import EVERYWHERE, DocFocus, DocScope
from desktop_rag.domain.fakes import FakeChatEngine
from desktop_rag.routes.compare_sides import side_query, sides_of
from desktop_rag.services import Services
from tests.ingest_docs import text_pdfs


def _none(_q: str, _s: DocScope) -> DocFocus | None:
    return None


@pytest.mark.parametrize(
    ("question", "labels"),
    [
        ("Compare revenue in 2019 and 2021", ["2019", "2021"]),
        ("What is the difference between PaLM-2L and GPT-4 on TimeQA?", ["PaLM-2L", "GPT-4"]),
        ("How does the domestic segment compare with the international segment?",
         ["domestic segment", "international segment"]),
        ("GPT-4 vs ChatGPT on FOLIO", ["GPT-4", "ChatGPT"]),
        ("Compare the two watch models", []),
    ],
)  # fmt: skip
def test_the_sides_a_question_compares(question: str, labels: list[str]) -> None:
    assert [s.label for s in sides_of(question, EVERYWHERE, _none, str)] == labels


def test_each_side_is_searched_without_the_other_sides_words() -> None:
    sides = sides_of("Compare revenue in 2019 and 2021", EVERYWHERE, _none, str)
    assert [side_query("Compare revenue in 2019 and 2021", s, sides) for s in sides] == [
        "Compare revenue in 2019", "Compare revenue in 2021"]  # fmt: skip


def test_named_documents_and_chosen_documents_are_sides() -> None:
    named = DocFocus(("a", "b"), ("Acme 2019", "Acme 2021"), ("acme",), 3.0, 0.0)
    sides = sides_of("Compare the Acme reports", EVERYWHERE, lambda _q, _s: named, str)
    assert [(s.label, s.scope) for s in sides] == [
        ("Acme 2019", DocScope(only=frozenset({"a"}))),
        ("Acme 2021", DocScope(only=frozenset({"b"})))]  # fmt: skip
    chosen = DocScope(only=frozenset({"x", "y"}))
    assert [s.label for s in sides_of("Compare them", chosen, _none, str.upper)] == ["X", "Y"]


REPORTS = {
    "/lib/acme-2019.pdf": ("Acme report 2019", [
        "Acme revenue in 2019 was 4,180 million dollars.",
        "Acme opened two plants in 2019 and hired 300 people."]),
    "/lib/acme-2021.pdf": ("Acme report 2021", [
        "Acme revenue in 2021 was 5,020 million dollars.",
        "Acme closed one plant in 2021."]),
}  # fmt: skip


def _services(ctx: Any, reply: str) -> tuple[AnswerServices, FakeChatEngine]:
    engine = FakeChatEngine(reply)
    ctx.provide(engine=engine)
    for path, (title, pages) in REPORTS.items():
        add_document(ctx, path, title, pages)
    return AnswerServices(ctx), engine


def test_a_comparison_of_years_reads_both_sides_and_cites_both(fake_context: Any) -> None:
    services, engine = _services(
        fake_context, "Revenue was 4,180 million dollars in 2019 [1] and 5,020 million in 2021 [3]."
    )
    answer = services.ask("Compare Acme revenue in 2019 and 2021")
    assert answer.route.route == answer.route.handled_by == "compare"
    assert answer.route.details["sides"] == 2 and answer.route.details["sides_cited"] == 2
    texts = [p.text for p in answer.passages]
    assert any("2019 was 4,180" in t for t in texts) and any("2021 was 5,020" in t for t in texts)
    prompt = engine.prompts[-1][1].content
    assert "This question compares: 2019, 2021" in prompt and "about 2019" in prompt
    assert {c.chunk.path for c in answer.citations} == {"/lib/acme-2019.pdf", "/lib/acme-2021.pdf"}


def test_a_comparison_without_two_sides_is_answered_by_lookup(fake_context: Any) -> None:
    services, _ = _services(fake_context, "Revenue was 4,180 million dollars [1].")
    answer = services.ask("Compare the revenue figures")
    assert answer.route.route == "compare" and answer.route.handled_by == "lookup"
    assert "no two sides" in answer.route.reason


def test_the_documents_a_user_chose_are_compared_through_real_pdfs(
    fake_context: Any, tmp_path: Path
) -> None:
    fake_context.provide(engine=FakeChatEngine("Globex earned more [1] than Initech [2]."))
    services = Services(fake_context)
    services.ingest([text_pdfs(tmp_path / "docs", {
        "globex.pdf": ["Globex Corporation annual report.", "Globex revenue was 7,300 million."],
        "initech.pdf": ["Initech LLC annual report.", "Initech revenue was 2,900 million."],
        "umbrella.pdf": ["Umbrella Corp annual report.", "Umbrella revenue was 1,100 million."],
    })])  # fmt: skip
    docs = {Path(d.path).name: d.doc_id for d in services.list_documents()}
    scope = DocScope(only=frozenset({docs["globex.pdf"], docs["initech.pdf"]}))
    answer = services.ask("Compare the revenue of these companies", scope=scope, route="compare")
    assert answer.route.forced and answer.route.handled_by == "compare"
    per_side = {Path(p.chunk.path).name for p in answer.passages}
    assert per_side == {"globex.pdf", "initech.pdf"}
    assert answer.route.details["sides_cited"] == 2


@pytest.mark.gui
def test_the_chat_says_what_was_compared_and_how_many_sides_are_cited(fake_context: Any) -> None:
    from desktop_rag.gui.chat_pane import turn_from_answer

    services, _ = _services(fake_context, "In 2019 it was 4,180 [1]; in 2021, 5,020 [3].")
    note = turn_from_answer(services.ask("Compare Acme revenue in 2019 and 2021")).focus
    assert note.startswith("Compared 2019, 2021 (years)") and "cites 2 of 2" in note


def test_a_comparison_asks_for_each_sides_figure_not_for_a_formula(fake_context: Any) -> None:
    from desktop_rag.answering.answer_rules import formula_shape

    services, engine = _services(fake_context, "It was 4,180 [1] and 5,020 [3].")
    services.ask("Compare Acme revenue in 2019 and 2021")
    assert "Calculation:" not in engine.prompts[-1][1].content
    asked = "Compare how much revenue changed from 2019 to 2021"
    assert formula_shape(asked, asked, compared=True) is not None  # a change is still asked for
    assert formula_shape("Compare revenue", "Compare revenue", compared=False) is not None
