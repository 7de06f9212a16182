"""Counts that never sample: the issue's forklift log (120 incidents over 31 pages, 17 with a
forklift, "involved" never in the text) through the real exhaustive route over a library on
disk, a deterministic judge in place of the chat model; and the content-word rule alone."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from route_fakes import JudgeEngine

from bench.count_docs import CountQuestion, questions_of, write_pdf
from bench.count_docs_reworded import safety_log
from desktop_rag.bootstrap import build_context
from desktop_rag.config import Settings
from desktop_rag.domain import DocScope, RouteName
from desktop_rag.routes.content_words import shared_stems
from desktop_rag.routes.target import parse
from desktop_rag.services import Services
from desktop_rag.text.words import stem_set

Log = tuple[Services, dict[str, CountQuestion], str]


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Log]:
    root = tmp_path_factory.mktemp("forklift")
    draft = safety_log(random.Random(101), 1, small=False)
    write_pdf(root / draft.name, draft)
    ctx = build_context(str(root / "data"), settings=Settings(),
                        overrides={"engine": JudgeEngine()})  # fmt: skip
    services = Services(ctx)
    assert not services.ingest([root / draft.name]).failed
    (doc,) = services.list_documents()
    yield services, {q.id: q for q in questions_of(draft)}, doc.doc_id
    services.close()


def test_the_log_is_the_issues(log: Log) -> None:
    q = log[1]["safety-log-1-q1"]
    assert q.count == 17 and max(q.pages) > 25
    assert not any("involv" in t.lower() for t in q.items)


def test_every_line_naming_a_forklift_is_judged_and_the_count_is_exact(log: Log) -> None:
    services, questions, doc_id = log
    q = questions["safety-log-1-q1"]  # "How many incidents in the log involved a forklift?"
    engine = services.ctx.engine
    assert isinstance(engine, JudgeEngine)
    engine.rule = lambda line: line in q.items  # a perfect judge: what matching left it
    engine.judged.clear()
    answer = services.ask(q.question, scope=DocScope(only=frozenset({doc_id})))
    assert answer.route.handled_by is RouteName.EXHAUSTIVE
    assert answer.route.count == 17 and [i.page for i in answer.items] == q.pages
    assert set(q.items) <= set(engine.judged)  # every forklift line reached the judge
    # the log's lines are records ("#001 20 Mar 2025 …", routes/records.py): every incident
    # is judged, not a sample; its notes on forklift batteries are none of them
    assert not any(line.startswith("Note:") for line in engine.judged)
    details = answer.route.details
    assert details["undecided"] == 0 and details["judged"] == details["candidates"] == 120


def test_a_list_of_them_too(log: Log) -> None:
    services, questions, doc_id = log
    q = questions["safety-log-1-q2"]  # "Which incidents involved a forklift?"
    engine = services.ctx.engine
    assert isinstance(engine, JudgeEngine)
    engine.rule = lambda line: line in q.items
    answer = services.ask(q.question, scope=DocScope(only=frozenset({doc_id})))
    assert answer.route.count == 17 and [i.text for i in answer.items] == q.items


def test_stems_the_text_never_states_are_set_aside() -> None:
    target = parse("How many incidents in the log involved a forklift?")
    lines = ["Warehouse safety log 1, page 3", "#004 - Forklift collided with a roller door.",
             "#005 - Slip on a wet floor.", "Incident review on Friday."]  # fmt: skip
    sets = [stem_set(t) for t in lines]
    assert shared_stems(sets, target) == ("forklift",)  # "involv" in no line; "incid" widespread
    lines.append("Incident #006: forklift clipped a rack.")
    assert shared_stems([stem_set(t) for t in lines], target) == ("forklift", "incid")
    assert shared_stems([stem_set("Nothing relevant here.")], target) == ()
