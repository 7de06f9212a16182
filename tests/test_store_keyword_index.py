"""The persisted keyword index (store/keyword_index.py): real SQLite catalog, real files on disk,
compared with the in-memory bm25s snapshot it replaces, over a library made of this project's
own store modules (real prose and code, real term statistics)."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from bench.bm25s_reference import MemoryBm25Index
from desktop_rag.domain import DocScope
from desktop_rag.store import keyword_index
from desktop_rag.store.documents import Catalog
from desktop_rag.store.keyword_index import DiskBm25Index
from tests.test_store_catalog import chunks, doc

ROOT = Path(__file__).resolve().parents[1]
QUERIES = ["embedded chroma vectors", "table pass pages", "citations answer model",
           "sync followed folder", "BM25 keyword search", "snapshot generation",
           "catalog write lock"]


def readme_docs(n_docs: int = 12, per_doc: int = 8) -> list[list[str]]:
    text = "\n\n".join(f.read_text("utf-8") for f in sorted((ROOT / "desktop_rag" / "store")
                                                             .glob("*.py")))  # fmt: skip
    paragraphs = [p.strip() for p in text.split("\n\n") if len(p.strip()) > 80]
    assert len(paragraphs) >= n_docs * per_doc
    return [paragraphs[i * per_doc : (i + 1) * per_doc] for i in range(n_docs)]


def add(catalog: Catalog, doc_id: str, texts: list[str]) -> None:
    catalog.add_pending(doc(doc_id, f"/lib/{doc_id}.pdf"), chunks(doc_id, texts))
    catalog.finalize(doc_id)


@pytest.fixture
def catalog(tmp_path: Path) -> Catalog:
    catalog = Catalog(tmp_path / "catalog.sqlite3")
    for i, texts in enumerate(readme_docs()):
        add(catalog, f"d{i:03d}", texts)
    return catalog


def assert_like_bm25s(index: DiskBm25Index, catalog: Catalog, scope: DocScope | None = None):
    """Every query ranks the same chunks with the same scores as a fresh bm25s snapshot."""
    memory = MemoryBm25Index(catalog)
    memory.warm()
    args = () if scope is None else (scope,)
    found = 0
    for query in QUERIES:
        got = index.search(query, 1000, *args)
        want = memory.search(query, 1000, *args)
        found += len(got)
        assert dict(got) == pytest.approx(dict(want), rel=1e-5), query
        assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
    assert found > 0


def test_it_ranks_as_the_in_memory_snapshot_with_scopes(catalog: Catalog, tmp_path: Path) -> None:
    index = DiskBm25Index(catalog, tmp_path / "kw")
    assert_like_bm25s(index, catalog)
    assert_like_bm25s(index, catalog, DocScope(only=frozenset({"d001", "d004"})))
    assert_like_bm25s(index, catalog, DocScope(exclude=frozenset({"d001"})))
    assert index.search("embedded", 3, DocScope(only=frozenset({"nowhere"}))) == []
    assert index.search("zeppelinxyz", 5) == [] and index.search("embedded", 0) == []
    assert index.full_builds == 1 and index.indexed_chunks == 12 * 8


def test_a_new_process_opens_it_without_indexing(catalog: Catalog, tmp_path: Path) -> None:
    index = DiskBm25Index(catalog, tmp_path / "kw")
    index.warm()
    child = (
        "import json, sys; from pathlib import Path\n"
        "from desktop_rag.store.documents import Catalog\n"
        "from desktop_rag.store.keyword_index import DiskBm25Index\n"
        "d = Path(sys.argv[1]); i = DiskBm25Index(Catalog(d / 'catalog.sqlite3'), d / 'kw')\n"
        "hits = {q: i.search(q, 20) for q in sys.argv[2:]}\n"
        "print(json.dumps([i.indexed_chunks, i.full_builds, hits]))\n"
    )
    out = subprocess.run([sys.executable, "-c", child, str(tmp_path), *QUERIES], cwd=ROOT,
                         capture_output=True, text=True, check=True, timeout=120)  # fmt: skip
    indexed, builds, hits = json.loads(out.stdout)
    assert (indexed, builds) == (0, 0)
    for query in QUERIES:
        assert dict(map(tuple, hits[query])) == pytest.approx(dict(index.search(query, 20)))


def segment_files(folder: Path) -> dict[str, float]:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.glob("seg-*/*")}


def test_a_change_touches_only_the_documents_it_changed(catalog: Catalog, tmp_path: Path) -> None:
    index = DiskBm25Index(catalog, tmp_path / "kw")
    index.warm()
    before = segment_files(tmp_path / "kw")
    add(catalog, "new1", ["geothermal wells under the embedded chroma vectors", "heat pumps"])
    assert_like_bm25s(index, catalog)  # the search itself brought it up to date
    assert index.indexed_chunks == 96 + 2  # the new document only
    catalog.begin_remove("d003")
    assert_like_bm25s(index, catalog)
    assert index.indexed_chunks == 98  # a removal indexes nothing: its rows are masked
    catalog.rename("d005", "Zeppelin handbook")
    assert sorted(c for c, _ in index.search("zeppelin", 20)) == [f"d005:{i:05d}" for i in range(8)]
    assert index.indexed_chunks == 98 + 8  # the renamed document again, nothing else
    assert_like_bm25s(index, catalog)
    for name, mtime in before.items():  # the first segment's files were never rewritten
        assert segment_files(tmp_path / "kw")[name] == mtime
    manifest = json.loads((tmp_path / "kw" / "manifest.json").read_text())
    assert sorted(manifest["parts"][0]["dead"]) == ["d003", "d005"]
    fresh = DiskBm25Index(catalog, tmp_path / "kw")
    assert_like_bm25s(fresh, catalog)
    assert fresh.indexed_chunks == 0


def test_the_table_pass_swap_reindexes_its_document(catalog: Catalog, tmp_path: Path) -> None:
    from desktop_rag.store.table_steps import ChunkSwap

    index = DiskBm25Index(catalog, tmp_path / "kw")
    index.warm()
    old = catalog.chunk_ids_of("d002")
    table = chunks("d002", ["Revenue 2021 2022 quarterly table of operating income"])[0]
    table = replace(table, chunk_id="d002:t00000")
    catalog.tables().swap(ChunkSwap("d002", ("d002:t00000", *old[1:]), (table,), (old[0],)))
    assert index.search("quarterly operating revenue", 5)[0][0] == "d002:t00000"
    assert index.indexed_chunks == 96 + 8
    assert_like_bm25s(index, catalog)


def test_segments_are_merged_and_dead_rows_dropped(
    catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keyword_index, "MAX_PARTS", 3)
    index = DiskBm25Index(catalog, tmp_path / "kw")
    index.warm()
    for i in range(5):
        add(catalog, f"x{i}", [f"extra document {i} about embedded chroma vectors"])
        index.warm()
        assert len(index.state.parts) <= 3  # type: ignore[union-attr]
    for i in range(7):
        catalog.begin_remove(f"d{i:03d}")  # more than half of the first segment
    index.warm()
    assert all(not p.dead for p in index.state.parts)  # type: ignore[union-attr]
    assert_like_bm25s(index, catalog)
    names = {p.name for p in index.state.parts}  # type: ignore[union-attr]
    assert {p.name for p in (tmp_path / "kw").glob("seg-*")} == names  # merged-away folders gone


def test_a_damaged_index_is_rebuilt_with_a_message(
    catalog: Catalog, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    DiskBm25Index(catalog, tmp_path / "kw").warm()
    victim = next((tmp_path / "kw").glob("seg-*/rows.npy"))
    victim.write_bytes(victim.read_bytes()[:100])  # truncated
    index = DiskBm25Index(catalog, tmp_path / "kw")
    with caplog.at_level(logging.WARNING, logger="desktop_rag.store.keyword_index"):
        assert_like_bm25s(index, catalog)
    assert "is damaged" in caplog.text and "rows.npy" in caplog.text
    assert index.full_builds == 1
    (tmp_path / "kw" / "manifest.json").write_text("{not json")
    again = DiskBm25Index(catalog, tmp_path / "kw")
    assert_like_bm25s(again, catalog)
    assert again.full_builds == 1 and caplog.text.count("is damaged") == 2


def test_a_large_sync_runs_in_the_background_while_fts5_answers(
    catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keyword_index, "INLINE_CHUNKS", 10)
    index = DiskBm25Index(catalog, tmp_path / "kw")
    fts = catalog.sparse_index()
    assert index.search("embedded chroma", 5) == fts.search("embedded chroma", 5)
    deadline = time.monotonic() + 30
    while index.state is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert index.state is not None and index.state.generation == catalog.generation()
    assert_like_bm25s(index, catalog)


def test_an_empty_library(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "empty.sqlite3")
    index = DiskBm25Index(catalog, tmp_path / "kw")
    assert index.warm().n_live == 0 and index.search("solar", 5) == []
    assert DiskBm25Index(catalog, tmp_path / "kw").search("solar", 5) == []


def test_an_index_another_process_built_meanwhile_is_used(catalog: Catalog, tmp_path: Path) -> None:
    first = DiskBm25Index(catalog, tmp_path / "kw")
    assert first.open() is None  # nothing saved yet
    DiskBm25Index(catalog, tmp_path / "kw").warm()  # another process builds and saves it
    assert_like_bm25s(first, catalog)
    assert (first.full_builds, first.indexed_chunks) == (0, 0)
