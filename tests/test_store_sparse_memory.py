"""The in-memory BM25 snapshot (bm25s) over the catalog's FTS5 table: real SQLite, real bm25s."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bench.bm25s_reference import MemoryBm25Index, Snapshot, memory_mb
from desktop_rag.domain import DocScope
from desktop_rag.store.documents import Catalog
from tests.test_store_catalog import chunks, doc


@pytest.fixture
def catalog(tmp_path: Path) -> Catalog:
    catalog = Catalog(tmp_path / "catalog.sqlite3")
    add(catalog, "aaaa", "/a", ["solar solar solar panels", "wind turbines"])
    add(catalog, "bbbb", "/b", ["solar power plant in the desert", "tidal energy"])
    return catalog


def add(catalog: Catalog, doc_id: str, path: str, texts: list[str]) -> None:
    catalog.add_pending(doc(doc_id, path), chunks(doc_id, texts))
    catalog.finalize(doc_id)


def wait_current(index: MemoryBm25Index, catalog: Catalog) -> Snapshot:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        snap = index.snapshot
        if snap is not None and snap.generation == catalog.generation():
            return snap
        time.sleep(0.02)
    raise AssertionError("the snapshot never caught up")


def ids(hits: list[tuple[str, float]]) -> list[str]:
    return [cid for cid, _ in hits]


def test_every_write_changes_the_generation(catalog: Catalog) -> None:
    before = catalog.generation()
    catalog.set_core("aaaa", True)
    assert catalog.generation() == before + 1


def test_the_snapshot_ranks_like_fts5_and_excludes_documents(catalog: Catalog) -> None:
    index = MemoryBm25Index(catalog)
    snap = index.warm()
    assert snap.generation == catalog.generation() and len(snap.chunk_ids) == 4
    ranked = index.search("solar", 5)
    assert ids(ranked) == ids(catalog.sparse_index().search("solar", 5))
    assert ids(ranked) == ["aaaa:00000", "bbbb:00000"]
    assert ranked[0][1] > ranked[1][1] > 0
    assert ids(index.search("solar", 5, DocScope(exclude=frozenset({"aaaa"})))) == ["bbbb:00000"]
    assert ids(index.search("solar", 1, DocScope(only=frozenset({"bbbb"})))) == ["bbbb:00000"]
    assert index.search("solar", 5, DocScope(only=frozenset({"nowhere"}))) == []
    assert ids(index.search("Panel", 5)) == ["aaaa:00000"]  # stemmed both ways
    assert index.search("zeppelin", 5) == [] and index.search("solar", 0) == []
    assert ids(index.search("the", 5)) == ["bbbb:00000"]  # stopwords only: FTS5 answers
    assert memory_mb(index) is not None


def test_a_stale_snapshot_is_never_used_and_catches_up(catalog: Catalog) -> None:
    index = MemoryBm25Index(catalog)
    index.warm()
    add(catalog, "cccc", "/c", ["geothermal wells"])
    catalog.begin_remove("aaaa")
    assert ids(index.search("geothermal", 5)) == ["cccc:00000"]  # through FTS5 meanwhile
    assert ids(index.search("solar", 5)) == ["bbbb:00000"]  # the removed one is gone at once
    snap = wait_current(index, catalog)  # two searches at one generation: rebuilt
    assert "cccc:00000" in snap.chunk_ids and "aaaa:00000" not in snap.chunk_ids
    assert ids(index.search("geothermal solar", 5)) == ["cccc:00000", "bbbb:00000"]


def test_refresh_rebuilds_in_the_background_after_a_change(catalog: Catalog) -> None:
    index = MemoryBm25Index(catalog)
    index.warm()
    add(catalog, "dddd", "/d", ["hydrogen storage"])
    index.refresh()
    assert "dddd:00000" in wait_current(index, catalog).chunk_ids


def test_an_empty_library_has_an_empty_snapshot(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "empty.sqlite3")
    index = MemoryBm25Index(catalog)
    assert index.warm().chunk_ids == [] and index.search("solar", 5) == []
