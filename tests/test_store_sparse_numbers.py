"""Numbers as BM25 words: every writing of a number finds every other, in the FTS5 index on disk
and in its in-memory twin alike (the same contract, run against both), while the chunk's text
stays as it was; and a library indexed before number tokens is re-indexed once when opened."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from table_pdfs import table_pdf

from bench.bm25s_reference import MemoryBm25Index
from desktop_rag.domain.protocols import SparseIndex
from desktop_rag.services import Services
from desktop_rag.store.documents import Catalog
from desktop_rag.store.sparse import (
    SPARSE_VERSION_KEY,
    indexed_numbers,
    match_query,
    query_words,
)
from tests.test_store_catalog import chunks, doc

ROW = "Revenues — 2015: $ 4,180,339 | 2014: $ 3,431,434 | 2013: $ 2,751,375 (in thousands)"
TEXTS = {
    "tabl": [ROW, "Other income (expense) — 2015: (1,577) | 2013: 3,102 (in thousands)"],
    "prose": ["Streaming revenue was 4180339 thousand dollars, a loss of 1577 on other items."],
    "fisc": ["FY2015 guidance: members grew.", "In fiscal year 2013 the plan changed."],
    "noise": ["Page 4 of 180: the 339 stations", "Part XK-4471-B replaces XK-4471-C."],
}


def build(db: Path) -> Catalog:
    catalog = Catalog(db)
    for n, (doc_id, texts) in enumerate(TEXTS.items()):
        catalog.add_pending(doc(doc_id, f"/{n}.pdf"), chunks(doc_id, texts))
        catalog.finalize(doc_id)
    return catalog


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[Catalog]:
    catalog = build(tmp_path / "catalog.sqlite3")
    yield catalog
    catalog.close()


@pytest.fixture(params=["fts5", "memory"])
def index(request: pytest.FixtureRequest, catalog: Catalog) -> SparseIndex:
    if request.param == "fts5":
        return catalog.sparse_index()
    memory = MemoryBm25Index(catalog)
    memory.warm()  # searches go to the snapshot, not to FTS5
    return memory


def docs(index: SparseIndex, query: str) -> list[str]:
    """The documents of the hits, best first, once each."""
    return list(dict.fromkeys(cid.split(":")[0] for cid, _ in index.search(query, 10)))


@pytest.mark.parametrize("query", ["4180339", "4,180,339", "$4,180,339", "$ 4,180,339 thousand"])
def test_every_writing_of_a_number_finds_every_other(index: SparseIndex, query: str) -> None:
    assert sorted(docs(index, query)) == ["prose", "tabl"]  # not "Page 4 of 180: the 339"


@pytest.mark.parametrize("query", ["30216492", "30,216,492", "3,02,16,492", "₹ 3,02,16,492"])
def test_an_indian_grouping_is_the_same_number(tmp_path: Path, query: str) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite3")
    texts = {"india": ["Total dividend — 2000: Rs. 3,02,16,492.00 (Rupees in lacs: 302.16)"],
             "other": ["Dividend of 3,02,16 shares; 492 paid in 2000."]}  # fmt: skip
    for n, (doc_id, chunk_texts) in enumerate(texts.items()):
        catalog.add_pending(doc(doc_id, f"/{n}.pdf"), chunks(doc_id, chunk_texts))
        catalog.finalize(doc_id)
    try:
        memory = MemoryBm25Index(catalog)
        memory.warm()
        for index in (catalog.sparse_index(), memory):
            assert docs(index, query) == ["india"]
    finally:
        catalog.close()


@pytest.mark.parametrize("query", ["(1,577)", "1,577", "-1577"])
def test_a_loss_in_brackets_is_its_number(index: SparseIndex, query: str) -> None:
    assert sorted(docs(index, query)) == ["prose", "tabl"]


def test_a_fiscal_year_is_its_year(index: SparseIndex) -> None:
    assert docs(index, "fiscal 2015 guidance")[0] == "fisc"
    assert "fisc" in docs(index, "FY2013")  # "In fiscal year 2013"
    assert "tabl" in docs(index, "FY2013")  # "2013: $ 2,751,375"


def test_identifiers_and_plain_words_search_as_before(index: SparseIndex) -> None:
    assert docs(index, "XK-4471-B")[0] == "noise"
    assert docs(index, "stations") == ["noise"]
    assert docs(index, "zeppelin") == []


def test_the_chunk_text_stays_as_written(catalog: Catalog) -> None:
    (chunk,) = catalog.get_chunks(["tabl:00000"]).values()
    assert chunk.text == ROW


def test_index_and_query_tokens() -> None:
    assert indexed_numbers(ROW) == "4180339 3431434 2751375"  # the years are words already
    assert indexed_numbers("FY2015 results") == "2015"
    assert indexed_numbers("FY2015 and 2015") == ""  # a word already
    assert indexed_numbers("4.18 bn, 22 %, XK-4471-B") == ""
    assert query_words("Was $4,180,339 in FY2015?") == ["was", "4180339", "in", "fy2015", "2015"]
    assert match_query("revenue of 4,180,339") == '"revenue" OR "4180339"'
    assert match_query("the 1,577") == '"1577"'


def _downgrade(db: Path) -> None:
    """The BM25 table as the version before number tokens left it: three columns, filled by
    its INSERT ... SELECT, and no layout version in `meta`."""
    with sqlite3.connect(db) as conn:
        titles = dict(conn.execute("SELECT rowid, title FROM chunks_fts").fetchall())
        conn.execute("DROP TABLE chunks_fts")
        conn.execute("CREATE VIRTUAL TABLE chunks_fts USING fts5(text, title, heading,"
                     " tokenize = 'porter unicode61 remove_diacritics 2')")  # fmt: skip
        for rowid, title in titles.items():
            conn.execute("INSERT INTO chunks_fts(rowid, text, title, heading) SELECT id, text, ?,"
                         " heading FROM chunks WHERE id = ?", (title, rowid))  # fmt: skip
        conn.execute("DELETE FROM meta WHERE key = ?", (SPARSE_VERSION_KEY,))
    conn.close()


def test_an_older_library_is_reindexed_once_on_open(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "catalog.sqlite3"
    build(db).close()
    _downgrade(db)
    with sqlite3.connect(db) as conn:
        before = conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()[0]
        assert conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0] == 7
    conn.close()
    caplog.set_level(logging.INFO, logger="desktop_rag.store.migrations")
    catalog = Catalog(db)
    assert sorted(docs(catalog.sparse_index(), "$4,180,339")) == ["prose", "tabl"]
    assert docs(catalog.sparse_index(), "tabl") == ["tabl"]  # by its title, kept
    assert catalog.sparse_row_count() == 7 and catalog.generation() == int(before) + 1
    catalog.close()
    (message,) = [r.getMessage() for r in caplog.records]
    assert "7 chunks of 4 documents" in message
    caplog.clear()
    Catalog(db).close()  # the second open finds nothing to do
    assert caplog.records == []


def test_a_document_being_removed_gets_no_rows_again(tmp_path: Path) -> None:
    db = tmp_path / "catalog.sqlite3"
    catalog = build(db)
    catalog.begin_remove("noise")
    catalog.close()
    _downgrade(db)
    catalog = Catalog(db)
    assert catalog.sparse_row_count() == 5 and docs(catalog.sparse_index(), "stations") == []
    catalog.close()


def test_a_table_pdf_in_an_older_library_is_found_by_its_numbers_after_opening(
    fake_context: Any, tmp_path: Path
) -> None:
    """A real table PDF ingested (PyMuPDF's table pass, the catalog on disk), its keyword index
    put back to the old layout, the library opened again: "4180339" finds the Revenues row."""
    services = Services(fake_context)
    table_pdf(tmp_path / "docs" / "plain.pdf", ruled=False)
    assert not services.ingest([tmp_path / "docs"]).failed
    db = services.ctx.catalog.db_path
    (document,) = services.list_documents()
    texts = {c.chunk_id: c.text for c in services.ctx.catalog.chunks_of(document.doc_id)}
    (row,) = [cid for cid, text in texts.items() if "Revenues — 2015: $ 4,180,339" in text]
    assert [cid for cid, _ in services.ctx.sparse.search("4180339", 1)] == [row]
    services.close()
    _downgrade(db)
    catalog = Catalog(db)
    try:
        assert [cid for cid, _ in catalog.sparse_index().search("4180339", 1)] == [row]
        assert {c: catalog.get_chunks([c])[c].text for c in texts} == texts  # text unchanged
    finally:
        catalog.close()
