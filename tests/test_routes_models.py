"""The exhaustive route with the packaged chat models as the judge: an incident log whose count
needs the model (four lines deny the thing counted), in a library on disk. The tiny model shows
that the route runs end to end and counts the same twice; the default model (slow) counts it
exactly."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.count_docs import CountQuestion, incident_log, questions_of, write_pdf
from desktop_rag.bootstrap import build_context
from desktop_rag.config import Settings
from desktop_rag.domain import Answer, DocScope
from desktop_rag.services import Services


def _log(root: Path) -> tuple[Path, CountQuestion]:
    draft = incident_log(random.Random(11), 1, 6, True)
    (root / "docs").mkdir()
    write_pdf(root / "docs" / draft.name, draft)
    return root / "docs" / draft.name, questions_of(draft)[0]


def _ask(services: Services, pdf: Path, q: CountQuestion) -> Answer:
    scope = DocScope(only=frozenset(d.doc_id for d in services.list_documents()))
    assert services.list_documents()[0].path == str(pdf)
    return services.ask(q.question, scope=scope)


@pytest.fixture
def tiny_library(tmp_path: Path, tiny_chat_engine: Any) -> Iterator[tuple[Services, Path]]:
    settings = Settings(profile="tiny")
    ctx = build_context(str(tmp_path / "data"), settings=settings,
                        overrides={"engine": tiny_chat_engine})  # fmt: skip
    services = Services(ctx)
    yield services, tmp_path
    ctx.release("engine")  # the session's model, closed by its fixture
    services.close()


def test_the_tiny_model_judges_and_counts_the_same_twice(
    tiny_library: tuple[Services, Path],
) -> None:
    services, root = tiny_library
    pdf, q = _log(root)
    assert not services.ingest([pdf]).failed
    first = _ask(services, pdf, q)
    details = first.route.details
    assert q.family == "negation" and details["model_calls"] >= 1
    assert details["matched"] <= (first.route.count or 0) <= details["matched"] + 4
    assert details["matched"] == q.count  # the denials are the only candidates
    second = _ask(services, pdf, q)
    assert second.items == first.items and second.answer == first.answer


@pytest.mark.slow
def test_the_default_model_rejects_the_denials(tmp_path: Path) -> None:
    pdf, q = _log(tmp_path)
    services = Services(build_context(str(tmp_path / "data"), profile="default"))
    try:
        assert not services.ingest([pdf]).failed
        answer = _ask(services, pdf, q)
        assert answer.route.count == q.count, answer.answer
        assert [i.page for i in answer.items] == q.pages
        assert answer.route.details["judged"] >= 4 and answer.route.details["undecided"] == 0
    finally:
        services.close()
