"""Page references in questions, and the bonus they give within chosen documents."""

from __future__ import annotations

from collections.abc import Collection

import pytest
from retrieval_fakes import MemoryLookup, MemorySparse, make_chunks

from desktop_rag.domain import DocScope, PageRefs
from desktop_rag.domain.fakes import HashEmbedder, InMemoryVectorIndex
from desktop_rag.retrieval.hybrid import HybridRetriever
from desktop_rag.retrieval.pages import page_references
from desktop_rag.store.documents import Catalog
from tests.test_store_catalog import chunks, doc


@pytest.mark.parametrize(
    ("question", "numbers", "last"),
    [
        ("According to the chart on page 14, how much time?", {14}, False),
        ("How many signatures are on the page 15 and page 16?", {15, 16}, False),
        ("Summarise pages 3-5.", {3, 4, 5}, False),
        ("What date is mentioned at the beginning of page(1)?", {1}, False),
        ("What is the name of the governor on the first page?", {1}, False),
        ("What are the words at the top of the page two?", {2}, False),
        ("Is there a signature present on the last page?", set(), True),
        ("What is on p. 7?", {7}, False),
        ("How many pages contain tables?", set(), False),
        ("What page count does the report have in 2019?", set(), False),
        ("Pages 1-900 are a range too long to mean pages.", {1, 900}, False),
        # the same page asked in other words (mmlb-0429 said "on page fourteen")
        ("What is the fax number on page fourteen?", {14}, False),
        ("What is the fax number on the fourteenth page?", {14}, False),
        ("What is the fax number on the 14th page?", {14}, False),
        ("Which fax number is given on page number 14?", {14}, False),
        ("On the twenty-first page, which table is shown?", {21}, False),
        ("Give a one page summary of the first quarter.", set(), False),
    ],
)
def test_page_references(question: str, numbers: set[int], last: bool) -> None:
    assert page_references(question) == PageRefs(frozenset(numbers), last)


def test_page_refs_match_the_last_page_by_the_page_count() -> None:
    refs = PageRefs(frozenset({2}), last=True)
    assert refs.matches((2,), 9) and refs.matches((8, 9), 9) and not refs.matches((3,), 9)
    assert not PageRefs()


TEXTS = [
    "Cover of the annual report.",
    "The chairman's letter about the harbour project.",
    "Figures and tables of the harbour project budget.",
    "Appendix with contact addresses.",
]


class ChunkPages:
    """PageLookup over in-memory chunks."""

    def __init__(self, lookup: MemoryLookup) -> None:
        self.lookup = lookup

    def chunk_ids_on_pages(self, doc_ids: Collection[str], pages: PageRefs) -> list[str]:
        count = {d: sum(c.doc_id == d for c in self.lookup.chunks.values()) for d in doc_ids}
        return [c.chunk_id for c in self.lookup.chunks.values()
                if c.doc_id in doc_ids and pages.matches(c.pages, count[c.doc_id])]


def test_within_a_document_the_pages_named_come_first() -> None:
    every = make_chunks("a", TEXTS) + make_chunks("b", TEXTS)
    embedder, vectors, lookup = HashEmbedder(dim=256), InMemoryVectorIndex(), MemoryLookup(every)
    vectors.upsert([c.chunk_id for c in every], embedder.embed_documents([c.text for c in every]),
                   [c.doc_id for c in every])
    retriever = HybridRetriever(embedder, vectors, MemorySparse(every), lookup,
                                pages=ChunkPages(lookup))
    only_a = DocScope(only=frozenset("a"))
    query = "What does page 4 say about the contact addresses?"
    top = retriever.retrieve(query, k=2, scope=only_a).candidates[0]
    assert top.chunk.chunk_id == "a:00003" and "page" in top.sources
    asked = retriever.retrieve("What does page 4 say about the harbour?", k=3, scope=only_a)
    assert "a:00003" in [c.chunk.chunk_id for c in asked.candidates]  # named, not about it
    assert retriever.retrieve("What is on the last page?", 1, scope=only_a).candidates[
        0].chunk.chunk_id == "a:00003"
    library = retriever.retrieve(query, k=2).candidates  # "page 4" of which document?
    assert all("page" not in c.sources for c in library)


def test_catalog_finds_the_chunks_on_named_pages(tmp_path: object) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite3")  # type: ignore[operator]
    catalog.add_pending(doc("aaaa"), chunks("aaaa", ["one", "two", "three"]))
    catalog.add_pending(doc("bbbb"), chunks("bbbb", ["uno", "dos"]))
    catalog.finalize("aaaa")
    named = PageRefs(frozenset({1}), last=True)
    assert catalog.chunk_ids_on_pages({"aaaa"}, named) == ["aaaa:00000", "aaaa:00001"]  # of 2
    assert catalog.chunk_ids_on_pages({"aaaa"}, PageRefs(frozenset({3}))) == ["aaaa:00002"]
    assert catalog.chunk_ids_on_pages({"bbbb"}, named) == []  # not indexed yet
    assert catalog.chunk_ids_on_pages(set(), named) == []
