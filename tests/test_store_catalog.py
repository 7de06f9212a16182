"""Catalog + FTS5 sparse index: the pending/indexed/removing protocol and safe BM25 queries."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.domain import Chunk, DocKind, DocScope, DocStatus, Document, LineBox
from desktop_rag.store.catalog_steps import searchable_title
from desktop_rag.store.documents import Catalog
from desktop_rag.store.sparse import match_query
from desktop_rag.text.words import words


def doc(doc_id: str, path: str = "/docs/a.pdf") -> Document:
    return Document(doc_id, path, f"Title {doc_id}", DocKind.PDF, doc_id * 4, 10, 1.0, 2, 0,
                    DocStatus.PENDING)


def chunks(doc_id: str, texts: list[str]) -> list[Chunk]:
    return [
        Chunk(f"{doc_id}:{i:05d}", doc_id, "/docs/a.pdf", "t", DocKind.PDF, text, i, (i + 1,),
              (0, len(text)), (LineBox(i + 1, 1.0, 2.0, 3.0, 4.0),), ("H",), token_count=3)
        for i, text in enumerate(texts)
    ]


@pytest.fixture
def catalog(tmp_path: Path) -> Catalog:
    return Catalog(tmp_path / "catalog.sqlite3")


def test_pending_documents_are_invisible_until_finalized(catalog: Catalog) -> None:
    catalog.add_pending(doc("aaaa"), chunks("aaaa", ["zebras graze", "lions hunt"]))
    sparse = catalog.sparse_index()
    assert catalog.get_chunks(["aaaa:00000"]) == {}
    assert sparse.search("zebras", 5) == []
    assert catalog.finalize("aaaa") == []
    got = catalog.get_chunks(["aaaa:00000", "aaaa:00001", "missing"])
    assert set(got) == {"aaaa:00000", "aaaa:00001"}
    first = got["aaaa:00000"]
    assert (first.pages, first.bboxes[0].page, first.heading_path) == ((1,), 1, ("H",))
    assert (first.prev_id, first.next_id, got["aaaa:00001"].next_id) == (None, "aaaa:00001", None)
    assert [cid for cid, _ in sparse.search("zebras", 5)] == ["aaaa:00000"]


def test_removal_hides_first_then_deletes(catalog: Catalog) -> None:
    catalog.add_pending(doc("aaaa"), chunks("aaaa", ["zebras graze"]))
    catalog.finalize("aaaa")
    catalog.begin_remove("aaaa")
    assert catalog.sparse_index().search("zebras", 5) == []
    assert catalog.get_chunks(["aaaa:00000"]) == {}
    assert catalog.sparse_row_count() == 0
    catalog.finish_remove("aaaa")
    assert catalog.documents() == [] and catalog.chunk_ids_of("aaaa") == []


def test_a_new_version_at_the_same_path_supersedes_the_old(catalog: Catalog) -> None:
    catalog.add_pending(doc("aaaa"), chunks("aaaa", ["old text"]))
    catalog.finalize("aaaa")
    catalog.add_pending(doc("bbbb"), chunks("bbbb", ["new text"]))
    assert catalog.finalize("bbbb") == ["aaaa"]
    assert catalog.get_document("aaaa").status is DocStatus.REMOVING  # type: ignore[union-attr]
    assert [c for c, _ in catalog.sparse_index().search("text", 5)] == ["bbbb:00000"]


def test_sparse_search_ranks_by_bm25_and_excludes_documents(catalog: Catalog) -> None:
    catalog.add_pending(doc("aaaa", "/a"), chunks("aaaa", ["solar solar solar panels", "wind"]))
    catalog.add_pending(doc("bbbb", "/b"), chunks("bbbb", ["solar power plant in the desert"]))
    catalog.finalize("aaaa")
    catalog.finalize("bbbb")
    sparse = catalog.sparse_index()
    ranked = sparse.search("solar", 5)
    assert [cid for cid, _ in ranked] == ["aaaa:00000", "bbbb:00000"]
    assert ranked[0][1] > ranked[1][1] > 0  # higher is better
    not_a = DocScope(exclude=frozenset({"aaaa"}))
    assert [c for c, _ in sparse.search("solar", 5, not_a)] == ["bbbb:00000"]
    only_b = DocScope(only=frozenset({"bbbb"}))
    assert [c for c, _ in sparse.search("solar", 1, only_b)] == ["bbbb:00000"]  # before LIMIT
    assert sparse.search("solar", 5, DocScope(only=frozenset())) == []
    assert [c for c, _ in sparse.search("Panel", 5)] == ["aaaa:00000"]  # porter stemming


@pytest.mark.parametrize(
    "query", ['"', "NEAR(a b)", "solar*", "-solar", "a AND OR NOT", "col:solar", "(((", "'; DROP"]
)
def test_user_text_is_never_fts_syntax(catalog: Catalog, query: str) -> None:
    catalog.add_pending(doc("aaaa"), chunks("aaaa", ["solar near drop"]))
    catalog.finalize("aaaa")
    catalog.sparse_index().search(query, 5)  # must not raise


def test_match_query_quotes_terms_and_drops_stopwords() -> None:
    assert match_query("What is the solar-power output?") == '"solar" OR "power" OR "output"'
    assert match_query("the of") == '"the" OR "of"'  # only stopwords: keep them
    assert match_query("?!") is None


def test_text_shas_find_existing_chunks(catalog: Catalog) -> None:
    from desktop_rag.store.documents import text_sha

    catalog.add_pending(doc("aaaa"), chunks("aaaa", ["same text"]))
    assert catalog.chunk_ids_with_text([text_sha("same text")]) == {
        text_sha("same text"): ["aaaa:00000"]
    }


def test_the_keyword_index_knows_a_file_by_its_name() -> None:
    assert searchable_title("0000320187-21-000028", "/r/NIKE_2021_10K.pdf") == (
        "0000320187-21-000028 nike 2021 10k"
    )
    assert searchable_title("Nike 2021 10K", "/r/NIKE_2021_10K.pdf") == "Nike 2021 10K"
    assert searchable_title("Annual report", "/r/report.pdf") == "Annual report"
    assert words("rpn_head NIKE_2021") == ["rpn", "head", "nike", "2021"]  # as FTS5 splits


def test_files_are_found_by_their_names_also_after_a_move(catalog: Catalog) -> None:
    catalog.add_pending(doc("aaaa", "/docs/NIKE_2021_10K.pdf"), chunks("aaaa", ["revenue"]))
    catalog.finalize("aaaa")
    sparse = catalog.sparse_index()
    assert [c for c, _ in sparse.search("nike revenue", 5)] == ["aaaa:00000"]
    catalog.move("aaaa", "/docs/costco_2021.pdf", 10, 2.0)
    assert sparse.search("nike", 5) == [] and sparse.search("costco", 5)
