"""The exhaustive route through the real parts: generated PDFs whose counts are known (the
generator of `eval counts`), ingested into a library on disk (catalog, FTS5, Chroma, the packaged
MiniLM embedder), asked through `ask`, with a deterministic judge in place of the chat model."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from route_fakes import JudgeEngine, paid_late

from bench.count_docs import (
    CountQuestion,
    incident_log,
    invoice_register,
    meeting_notes,
    questions_of,
    write_pdf,
)
from desktop_rag.bootstrap import build_context
from desktop_rag.cli import main
from desktop_rag.config import Settings
from desktop_rag.domain import Answer, AnswerStage, DocScope, RouteInfo, RouteName, Stage
from desktop_rag.domain.errors import CancelledError
from desktop_rag.domain.progress import CancelToken
from desktop_rag.routes.base import RouteRequest
from desktop_rag.routes.exhaustive import ExhaustiveSettings
from desktop_rag.services import Services
from desktop_rag.services.routing import exhaustive_route

Library = tuple[Services, dict[str, CountQuestion], dict[str, str], Path]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    """Three documents of 8-10 pages: an incident log with denials, meeting notes, and an
    invoice register whose lateness only the dates tell."""
    root = tmp_path_factory.mktemp("counts")
    rng = random.Random(5)
    drafts = [incident_log(rng, 1, 10, True), meeting_notes(rng, 1, 8),
              invoice_register(rng, 1, 8, False)]  # fmt: skip
    (root / "docs").mkdir()
    for draft in drafts:
        write_pdf(root / "docs" / draft.name, draft)
    questions = {q.id: q for d in drafts for q in questions_of(d)}
    ctx = build_context(str(root / "data"), settings=Settings(),
                        overrides={"engine": JudgeEngine(paid_late)})  # fmt: skip
    services = Services(ctx)
    assert not services.ingest([root / "docs"]).failed
    ids = {Path(d.path).name: d.doc_id for d in services.list_documents()}
    yield services, questions, ids, root
    services.close()


def _ask(lib: Library, qid: str, **kwargs: Any) -> tuple[Answer, CountQuestion]:
    services, questions, ids, _ = lib
    q = questions[qid]
    scope = DocScope(only=frozenset({ids[q.doc]}))
    return services.ask(q.question, scope=scope, **kwargs), q


def _engine(lib: Library) -> JudgeEngine:
    engine = lib[0].ctx.engine
    assert isinstance(engine, JudgeEngine)
    return engine


def test_a_count_lists_every_item_on_its_page(library: Library) -> None:
    answer, q = _ask(library, "incident-log-1-q2")  # "List every ... in the incident log."
    assert answer.route.route is RouteName.EXHAUSTIVE and answer.route.handled_by == "exhaustive"
    assert answer.route.count == q.count == len(answer.items) and q.count >= 10
    assert [i.page for i in answer.items] == q.pages
    assert [i.text for i in answer.items] == q.items
    assert answer.answer.startswith(f"Found {q.count} matching items for ")
    evidence = [e for c in answer.citations for e in c.evidence]
    assert sorted(e.page for e in evidence) == sorted(q.pages)
    assert all(e.boxes and e.boxes[0].page == e.page for e in evidence)
    by_n = {p.n: p for p in answer.passages}
    assert all(by_n[i.n].chunk.chunk_id == i.chunk_id for i in answer.items)
    doc = library[0].get_document(library[2][q.doc])
    assert doc is not None and answer.route.details["passages_read"] == doc.chunks


def test_denials_go_to_the_judge_and_the_count_is_exact(library: Library) -> None:
    engine, q = _engine(library), library[1]["incident-log-1-q1"]
    engine.rule = lambda line: line in q.items  # a perfect judge
    before = engine.judge_calls
    stages: list[AnswerStage] = []
    answer, _ = _ask(library, "incident-log-1-q1", on_stage=stages.append)
    assert answer.route.count == q.count and [i.page for i in answer.items] == q.pages
    assert engine.judge_calls > before and any("no " in line.lower() for line in engine.judged)
    assert answer.route.details["candidates"] >= 4 and answer.route.details["undecided"] == 0
    seen = [s.stage for s in stages]
    assert Stage.SCANNING in seen and Stage.JUDGING in seen and seen[-1] is Stage.WRITING
    judging = [s for s in stages if s.stage is Stage.JUDGING]
    assert judging[-1].progress == 1.0 and "candidate lines" in judging[-1].describe()
    again, _ = _ask(library, "incident-log-1-q1")
    assert again.items == answer.items and again.answer == answer.answer


def test_a_condition_only_the_dates_tell_is_judged_line_by_line(library: Library) -> None:
    services, questions, ids, _ = library
    engine = _engine(library)
    engine.rule = paid_late
    q = questions["invoice-register-1-q1"]  # "How many invoices were paid late?"
    route = exhaustive_route(services.ctx, ExhaustiveSettings(max_judged=1000))
    info = RouteInfo(RouteName.EXHAUSTIVE, RouteName.EXHAUSTIVE, "test")
    request = RouteRequest(q.question, q.question, "chat", info,
                           DocScope(only=frozenset({ids[q.doc]})))  # fmt: skip
    answer = route.answer(request)
    assert answer.route.count == q.count and [i.page for i in answer.items] == q.pages
    assert all(i.matched_by == "model" for i in answer.items)
    judged = answer.route.details["judged"]
    assert judged == answer.route.details["candidates"] > q.count
    assert answer.route.details["model_calls"] == -(-judged // 12)


def test_by_default_every_candidate_is_judged(library: Library) -> None:
    engine = _engine(library)
    engine.rule = paid_late
    answer, q = _ask(library, "invoice-register-1-q1")  # more candidates than 96
    details = answer.route.details
    assert details["undecided"] == 0 and details["judged"] == details["candidates"] > 96
    assert answer.route.count == q.count and "at least" not in answer.answer.splitlines()[0]


def test_a_judge_budget_says_at_least(library: Library) -> None:
    services, questions, ids, _ = library
    engine = _engine(library)
    engine.rule = paid_late
    q = questions["invoice-register-1-q1"]
    route = exhaustive_route(services.ctx, ExhaustiveSettings(max_judged=96))
    info = RouteInfo(RouteName.EXHAUSTIVE, RouteName.EXHAUSTIVE, "test")
    request = RouteRequest(q.question, q.question, "chat", info,
                           DocScope(only=frozenset({ids[q.doc]})))  # fmt: skip
    answer = route.answer(request)
    undecided = answer.route.details["undecided"]
    assert undecided > 0 and answer.route.details["judged"] == 96
    assert "at least" in answer.answer.splitlines()[0]
    assert 0 < (answer.route.count or 0) <= q.count  # the yeses among the 96 judged
    assert f"{undecided} more lines may match but were not decided" in answer.answer


def test_summaries_go_to_the_summary_route_and_a_comparison_without_sides_to_lookup(
    library: Library,
) -> None:
    services = library[0]
    answer = services.ask("Summarize the meeting notes in three bullet points.")
    assert answer.route.route is RouteName.SUMMARY and answer.route.handled_by == "summary"
    assert answer.route.details["documents"] == 1 and not answer.route.forced
    forced = services.ask("What does the incident log say?", route="compare")
    assert forced.route.route is RouteName.COMPARE and forced.route.forced
    assert forced.route.handled_by is RouteName.LOOKUP and "no two sides" in forced.route.reason
    looked_up, _ = _ask(library, "meeting-notes-1-q1", route="lookup")
    assert looked_up.route.handled_by == "lookup" and looked_up.route.count is None


def test_stop_while_scanning_ends_the_answer(library: Library) -> None:
    token = CancelToken()

    def stop(stage: AnswerStage) -> None:
        if stage.stage is Stage.SCANNING:
            token.cancel()

    with pytest.raises(CancelledError):
        _ask(library, "meeting-notes-1-q2", cancel=token, on_stage=stop)


def test_ask_json_carries_the_route_count_and_every_item(library: Library, capsys: Any) -> None:
    _, questions, _, root = library
    q = questions["meeting-notes-1-q2"]  # every action item: more than the answer's 25 lines
    doc = str(root / "docs" / q.doc)
    code = main(["--data-dir", str(root / "data"), "ask", q.question, "--doc", doc,
                 "--route", "exhaustive", "--json"])  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["route"]["route"] == "exhaustive" and out["route"]["forced"]
    assert out["count"] == q.count > 25 and len(out["items"]) == q.count
    assert [i["page"] for i in out["items"]] == q.pages
    assert f"…and {q.count - 25} more." in out["answer"]
    assert {c["n"] for c in out["citations"]} == {i["n"] for i in out["items"]}


def test_an_unsure_how_many_is_counted_where_the_scope_lists_the_things(library: Library) -> None:
    services, questions, ids, _ = library
    q = questions["incident-log-1-q2"]  # "List every <thing> in the incident log."
    thing = q.question.removeprefix("List every ").removesuffix(" in the incident log.")
    scope = DocScope(only=frozenset({ids[q.doc]}))
    answer = services.ask(f"How many {thing} incidents were there?", scope=scope)
    assert answer.route.route is RouteName.EXHAUSTIVE, answer.route.reason
    assert answer.route.reason.startswith("how-many:listed")
    assert answer.route.count == q.count
