"""Slow: issue 38's misfires with the default Qwen model, through the real parts: the forklift
log is counted exactly (every line naming a forklift judged, none sampled), and a report that
states a value gets it quoted, not recomputed."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.count_docs import questions_of, write_pdf
from bench.count_docs_reworded import safety_log
from desktop_rag.bootstrap import build_context
from desktop_rag.domain import DocScope, RouteName
from desktop_rag.services import Services

pytestmark = pytest.mark.slow
REPORT = [
    ["Nordlicht Gartenmoebel GmbH - Annual report 2023", "",
     "The company sells garden furniture in three countries.",
     "Our staff grew to 54 people and we opened a second warehouse in Kiel."],
    ["Results", "", "Revenue in 2023 grew to 4.2 million euros.",
     "Costs rose slightly, mostly for transport and energy."],
]  # fmt: skip


def _report(path: Path) -> Path:
    import pymupdf

    doc = pymupdf.open()
    for lines in REPORT:
        page = doc.new_page(width=595, height=842)
        for i, text in enumerate(lines):
            page.insert_text((60, 80 + i * 22), text, fontsize=11)
    doc.save(str(path))
    return path


@pytest.fixture(scope="module")
def qwen(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Services, Path]]:
    root = tmp_path_factory.mktemp("issue38")
    draft = safety_log(random.Random(101), 1, small=False)
    write_pdf(root / draft.name, draft)
    _report(root / "report.pdf")
    ctx = build_context(str(root / "data"), profile="default")
    services = Services(ctx)
    assert not services.ingest([root / draft.name, root / "report.pdf"]).failed
    yield services, root
    services.close()


def _scope(services: Services, name: str) -> DocScope:
    (doc,) = [d for d in services.list_documents() if Path(d.path).name == name]
    return DocScope(only=frozenset({doc.doc_id}))


def test_the_forklift_incidents_are_counted_exactly(qwen: tuple[Services, Path]) -> None:
    services, _ = qwen
    q = questions_of(safety_log(random.Random(101), 1, small=False))[0]
    answer = services.ask(q.question, scope=_scope(services, q.doc))
    assert answer.route.handled_by is RouteName.EXHAUSTIVE
    assert answer.route.count == 17 and [i.page for i in answer.items] == q.pages
    assert answer.route.details["judged"] == answer.route.details["candidates"] >= 19


def test_a_stated_value_is_quoted_not_recomputed(qwen: tuple[Services, Path]) -> None:
    services, _ = qwen
    answer = services.ask("How much did revenue grow to in 2023?",
                          scope=_scope(services, "report.pdf"))  # fmt: skip
    assert "4.2 million" in answer.answer and "Calculation" not in answer.answer
    assert answer.calculations == ()
    # the report is one chunk over both pages; the sentence's evidence is on page 2
    assert any(e.page == 2 for c in answer.citations for e in c.evidence)
