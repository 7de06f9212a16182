"""SearchService through the real catalog and FTS5 index, with the fake embedder and vectors."""

from __future__ import annotations

from pathlib import Path

import pytest
from retrieval_fakes import tiny_cross_encoder

from desktop_rag.bootstrap import AppContext
from desktop_rag.cli.commands_search import search_json
from desktop_rag.domain import DocScope
from desktop_rag.domain.errors import NotFoundError
from desktop_rag.domain.fakes import WordTokenCounter
from desktop_rag.services import Services

__all__ = ["tiny_cross_encoder"]

NOTES = {
    "pumps.md": "# Pumps\n\nReplace the pump gasket XK-4471-B when the seal seat shows scoring.\n",
    "cooling.md": "# Cooling\n\nThe radiator needs coolant before long drives in summer.\n",
    "warranty.md": "# Warranty\n\nThe warranty covers manufacturing defects for two years.\n",
}
RESULT_KEYS = {"rank", "score", "chunk_id", "doc_id", "path", "title", "page", "text",
               "char_span", "bboxes", "pages"}  # fmt: skip


@pytest.fixture
def services(fake_context: AppContext, tmp_path: Path) -> Services:
    notes = tmp_path / "notes"
    notes.mkdir()
    for name, text in NOTES.items():
        (notes / name).write_text(text, encoding="utf-8")
    services = Services(fake_context)
    assert not services.ingest([notes]).failed
    return services


def test_search_finds_and_reports_in_the_cli_shape(services: Services) -> None:
    result = services.search("pump gasket XK-4471-B", k=2, rerank="none")
    assert result.reranker == "none" and result.mode == "hybrid"
    assert Path(result.results[0].chunk.path).name == "pumps.md"
    assert not result.insufficient_evidence
    data = search_json(result)
    assert set(data) == {"query", "mode", "reranker", "insufficient_evidence", "results",
                         "timings_ms", "focus", "added_terms"}  # fmt: skip
    assert set(data["results"][0]) == RESULT_KEYS
    assert data["results"][0]["rank"] == 1 and "total_ms" in data["timings_ms"]


def test_excluded_documents_are_not_returned(services: Services) -> None:
    first = services.search("pump gasket", k=3, rerank="none").results[0].chunk.doc_id
    not_first = DocScope(exclude=frozenset({first}))
    again = services.search("pump gasket", k=3, rerank="none", scope=not_first)
    assert all(r.chunk.doc_id != first for r in again.results)
    only_first = services.scope_of([services.get_document(first).path])
    assert only_first == DocScope(only=frozenset({first}))
    within = services.search("coolant radiator", k=3, rerank="none", scope=only_first)
    assert within.results and all(r.chunk.doc_id == first for r in within.results)


def test_a_scope_naming_a_path_outside_the_library_is_an_error(
    services: Services, tmp_path: Path
) -> None:
    with pytest.raises(NotFoundError, match="not in the library"):
        services.scope_of([tmp_path / "never-ingested.pdf"])
    assert services.scope_of([]).whole_library


def test_cross_encoder_reranks_and_says_so(services: Services, tiny_cross_encoder: Path) -> None:
    services.ctx.update_settings({"models.cross_encoder": str(tiny_cross_encoder)})
    plain = services.search("coolant radiator", k=3, rerank="none")
    reranked = services.search("coolant radiator", k=3, rerank="auto")
    assert reranked.reranker == "cross-encoder" and "rerank_ms" in reranked.timings_ms
    ids = {r.chunk.chunk_id for r in reranked.results}
    assert ids == {r.chunk.chunk_id for r in plain.results}  # same candidates, maybe reordered
    assert "cross-encoder" in services.available_rerankers()


def test_pack_context_numbers_passages_within_the_budget(services: Services) -> None:
    result = services.search("gasket coolant warranty", k=3, rerank="none")
    passages = services.pack_context(result, budget_tokens=200, first_n=2)
    assert [p.n for p in passages] == list(range(2, 2 + len(passages)))
    assert passages and passages[0].chunk.chunk_id == result.results[0].chunk.chunk_id
    counter = WordTokenCounter()
    assert sum(counter.count(p.text) for p in passages) <= 200
