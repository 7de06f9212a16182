"""Deletes from embedded Chroma wait on disk for its next write (store/pending_deletes.py), and
every read hides them meanwhile: through real Chroma on disk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from desktop_rag.config import StoreSettings
from desktop_rag.config.paths import AppPaths, resolve_paths
from desktop_rag.domain import DocScope
from desktop_rag.store import chroma_index, pending_deletes, vectors
from desktop_rag.store.pending_deletes import PendingDeletes, pending_file
from desktop_rag.store.vectors import ChromaVectorIndex, drop_collection, open_vector_index
from tests.test_store_vectors import unit


@pytest.fixture
def paths(tmp_path: Path) -> AppPaths:
    return resolve_paths(tmp_path).ensure()


def _filled(paths: AppPaths) -> tuple[ChromaVectorIndex, list[str]]:
    index = open_vector_index(paths, StoreSettings(), "chunks")
    ids = [f"d{i % 3}:{i}" for i in range(9)]
    vecs = np.stack([unit(*[1.0 if j == i % 8 else 0.1 for j in range(8)]) for i in range(9)])
    index.upsert(ids, vecs, [i.split(":")[0] for i in ids])
    index.apply_pending()  # moved in from the recent collection (tests/test_recent_vectors.py)
    return index, ids


def _in_chroma(index: ChromaVectorIndex) -> int:
    """What Chroma itself holds, waiting deletes included."""
    with index._current() as col:
        return int(col.count())


def _reopened(paths: AppPaths) -> ChromaVectorIndex:
    """The index as a new process opens it."""
    vectors._close_client(str(paths.chroma_dir.resolve()))
    return open_vector_index(paths, StoreSettings(), "chunks")


def test_a_delete_waits_on_disk_and_every_read_hides_it(paths: AppPaths) -> None:
    index, ids = _filled(paths)
    gone = [i for i in ids if i.startswith("d0:")]
    index.delete(gone)
    assert _in_chroma(index) == 9  # Chroma was not written
    assert PendingDeletes(pending_file(paths.chroma_dir, "chunks")).ids() == set(gone)
    for reader in (index, _reopened(paths)):  # this process and a new one
        assert reader.count() == 6 and reader.all_ids() == set(ids) - set(gone)
        assert not set(reader.get_embeddings(ids)) & set(gone)
        found = [cid for cid, _ in reader.query(unit(1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1), 9)]
        assert len(found) == 6 and not set(found) & set(gone)
        top = reader.query(unit(1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1), 2)
        assert len(top) == 2 and not {cid for cid, _ in top} & set(gone)
        scoped = reader.query(unit(1, 0, 0, 0, 0, 0, 0, 0), 5, DocScope(frozenset({"d0", "d1"})))
        assert {cid.split(":")[0] for cid, _ in scoped} == {"d1"}
        exported = [cid for page, _, _ in reader.export_vectors() for cid in page]
        assert sorted(exported) == sorted(set(ids) - set(gone))


def test_the_next_write_that_loads_the_index_applies_them_first(paths: AppPaths) -> None:
    index, ids = _filled(paths)
    index.delete(["d0:0", "d0:3"])
    again = _reopened(paths)  # a later process
    again.query(unit(0, 0, 0, 0, 0, 0, 0, 1), 1)  # loads the index: its writes go there
    again.upsert(["d0:0", "d5:1"], np.stack([unit(0, 0, 0, 0, 0, 0, 0, 1)] * 2), ["d0", "d5"])
    assert not pending_file(paths.chroma_dir, "chunks").exists()
    assert _in_chroma(again) == 9  # 9 - 2 deleted + 2 written
    assert again.all_ids() == (set(ids) - {"d0:3"}) | {"d5:1"}  # a re-added id is back
    assert again.query(unit(0, 0, 0, 0, 0, 0, 0, 1), 1)[0][0] in {"d0:0", "d5:1"}


def test_past_the_limit_they_are_applied_at_once(
    paths: AppPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chroma_index, "MAX_PENDING", 3)
    index, ids = _filled(paths)
    index.delete(ids[:2])
    assert _in_chroma(index) == 9
    index.delete(ids[2:4])
    assert _in_chroma(index) == 5 and not pending_file(paths.chroma_dir, "chunks").exists()
    assert index.all_ids() == set(ids[4:])


def test_dropping_the_collection_drops_its_waiting_deletes(paths: AppPaths) -> None:
    index, ids = _filled(paths)
    index.delete(ids[:1])
    drop_collection(paths, StoreSettings(), "chunks")
    assert not pending_file(paths.chroma_dir, "chunks").exists()


def test_the_file_is_read_again_when_another_process_changes_it(tmp_path: Path) -> None:
    path = tmp_path / f"{pending_deletes.PREFIX}chunks"
    mine, theirs = PendingDeletes(path), PendingDeletes(path)
    assert mine.ids() == frozenset()
    assert theirs.add(["a:1", "a:2"]) == 2
    assert mine.ids() == {"a:1", "a:2"}
    theirs.clear()
    assert mine.ids() == frozenset()
    assert not pending_deletes.deferrable(["a\n1"]) and pending_deletes.deferrable(["a:1"])


def test_server_mode_deletes_at_once() -> None:
    """Without a pending file (a server keeps its index loaded) a delete goes to Chroma."""

    class Col:
        def __init__(self) -> None:
            self.deleted: list[Any] = []

        def delete(self, ids: list[str]) -> None:
            self.deleted.append(ids)

    col = Col()
    ChromaVectorIndex(col).delete(["x:1"])
    assert col.deleted == [["x:1"]]


@pytest.mark.slow
def test_a_removed_document_is_gone_from_search_at_once_and_from_chroma_when_applied(
    tmp_path: Path,
) -> None:
    """Through the real library (MiniLM, Chroma on disk, the vector copy): removing a document
    writes nothing to Chroma, searches never see it, in this process or a new one, and applying
    what waits deletes its vectors from Chroma."""
    from desktop_rag.bootstrap import build_context
    from desktop_rag.services import Services
    from tests.ingest_docs import KNOWN, make_pdf

    docs = tmp_path / "docs"
    docs.mkdir()
    make_pdf(docs / "kept.pdf", pages=2, known_page=1)
    gone = make_pdf(docs / "gone.pdf", pages=3, known_page=2)
    data = str(tmp_path / "data")
    library = Services(build_context(data))
    library.ingest([docs])
    paths = library.ctx.paths
    open_vector_index(paths, StoreSettings(), "chunks").apply_pending()  # recent rows moved in
    before = _raw_count(paths)
    library.remove([gone])
    assert _raw_count(paths) == before  # Chroma itself not written
    waiting = PendingDeletes(pending_file(paths.chroma_dir, "chunks")).ids()
    assert waiting and all(
        i.split(":")[0] != d.doc_id for i in waiting for d in library.list_documents()
    )
    for reader in (library, Services(build_context(data))):  # this process and a new one
        hits = reader.search(KNOWN, k=10).results
        assert hits and {Path(h.chunk.path).name for h in hits} == {"kept.pdf"}
        assert reader.check_consistency()["consistent"]
    library.close()
    again = Services(build_context(data))
    again.ingest([make_pdf(tmp_path / "new.pdf", pages=1, known_page=1)])
    assert {Path(h.chunk.path).name for h in again.search(KNOWN, k=10).results} == {
        "kept.pdf", "new.pdf"}  # fmt: skip
    assert again.check_consistency()["consistent"]
    open_vector_index(paths, StoreSettings(), "chunks").apply_pending()  # as a loaded index does
    again.close()
    assert not pending_file(paths.chroma_dir, "chunks").exists()
    assert _raw_count(paths) == before - len(waiting) + 1  # deleted, and the new one's chunk


def _raw_count(paths: AppPaths) -> int:
    """How many vectors Chroma itself holds, waiting deletes included."""
    return _in_chroma(open_vector_index(paths, StoreSettings(), "chunks"))
