"""Slow: the default Qwen model answers about a generated PDF with a valid citation to the
right page, also when the document is in the cached core."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from gui_pdfs import SAMPLE_PAGES, make_pdf

from desktop_rag.bootstrap import build_context
from desktop_rag.services import Services

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def qwen(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Services, Path]]:
    root = tmp_path_factory.mktemp("qwen")
    pdf = make_pdf(root / "observatory.pdf", SAMPLE_PAGES)
    ctx = build_context(str(root / "data"), profile="default")
    ctx.update_settings({"llm.max_tokens": 80})
    services = Services(ctx)
    assert not services.ingest([pdf]).failed
    yield services, pdf
    services.close()


def test_answer_cites_the_page_that_holds_the_fact(qwen: tuple[Services, Path]) -> None:
    services, pdf = qwen
    answer = services.ask("In which year was the observatory's main telescope completed?")
    assert "1987" in answer.answer and not answer.refused
    pages = {c.chunk.page for c in answer.citations if c.chunk.path == str(pdf)}
    assert 2 in pages, answer
    best = max(c.support for c in answer.citations)
    assert best >= 0.35


def test_answer_from_the_cached_core_cites_it(qwen: tuple[Services, Path]) -> None:
    services, pdf = qwen
    services.core_add([pdf])
    services.core_build()
    first = services.ask("Who founded the Lindqvist Observatory?")
    assert "Lindqvist" in first.answer and first.timings["cached_tokens"] > 200
    assert any(c.chunk.page == 1 for c in first.citations)
