"""Embedded writes go first to a small recent collection while the process has not loaded the
library's own (store/chroma_index.py), and every read combines the two: through real Chroma on
disk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from desktop_rag.config import StoreSettings
from desktop_rag.config.paths import AppPaths, resolve_paths
from desktop_rag.domain import DocScope
from desktop_rag.store import chroma_index, vectors
from desktop_rag.store.pending_deletes import PendingDeletes, pending_file
from desktop_rag.store.vectors import (
    ChromaVectorIndex,
    collection_names,
    drop_collection,
    open_vector_index,
    recent_name,
)
from tests.test_store_vectors import unit


@pytest.fixture
def paths(tmp_path: Path) -> AppPaths:
    return resolve_paths(tmp_path).ensure()


def _vec(i: int) -> np.ndarray:
    return unit(*[1.0 if j == i % 8 else 0.1 for j in range(8)])


def _write(index: ChromaVectorIndex, ids: list[str]) -> None:
    index.upsert(ids, np.stack([_vec(int(i.split(":")[1])) for i in ids]),
                 [i.split(":")[0] for i in ids])  # fmt: skip


def _held(paths: AppPaths) -> tuple[int, int]:
    """What Chroma itself holds: (the library's collection, the recent one)."""
    client = vectors._persistent_client(str(paths.chroma_dir.resolve()))
    main = client.get_or_create_collection("chunks", embedding_function=None).count()
    names = {c.name for c in client.list_collections()}
    name = recent_name("chunks")
    recent = client.get_collection(name, embedding_function=None).count() if name in names else 0
    return int(main), int(recent)


def _reopened(paths: AppPaths) -> ChromaVectorIndex:
    """The index as a new process opens it."""
    vectors._close_client(str(paths.chroma_dir.resolve()))
    return open_vector_index(paths, StoreSettings(), "chunks")


def _reads(reader: ChromaVectorIndex, live: set[str]) -> None:
    """Every read sees exactly `live`, each id once."""
    assert reader.count() == len(live) and reader.all_ids() == live
    assert set(reader.get_embeddings(sorted(live | {"zz:1"}))) == live
    found = [cid for cid, _ in reader.query(_vec(0), 50)]
    assert sorted(found) == sorted(live)
    scoped = reader.query(_vec(0), 50, DocScope(frozenset({"d1"})))
    assert {cid for cid, _ in scoped} == {i for i in live if i.startswith("d1:")}
    exported = [cid for page, _, _ in reader.export_vectors() for cid in page]
    assert sorted(exported) == sorted(live)


def test_a_write_goes_to_the_recent_collection_and_every_read_sees_it(paths: AppPaths) -> None:
    index = open_vector_index(paths, StoreSettings(), "chunks")
    ids = [f"d{i % 3}:{i}" for i in range(9)]
    _write(index, ids)
    assert _held(paths) == (0, 9)  # the library's collection was not loaded
    for reader in (index, _reopened(paths)):  # this process and a new one
        _reads(reader, set(ids))
        assert reader.query(_vec(4), 1)[0][0] == "d1:4"


def test_a_row_written_again_is_read_from_the_recent_collection(paths: AppPaths) -> None:
    index = open_vector_index(paths, StoreSettings(), "chunks")
    ids = [f"d{i % 3}:{i}" for i in range(9)]
    _write(index, ids)
    index.apply_pending()  # moved into the library's collection
    assert _held(paths) == (9, 0)
    again = _reopened(paths)
    again.upsert(["d1:4"], np.stack([_vec(7)]), ["d1"])  # its new vector
    assert _held(paths) == (9, 1)
    for reader in (again, _reopened(paths)):
        _reads(reader, set(ids))
        assert np.allclose(reader.get_embeddings(["d1:4"])["d1:4"], _vec(7))
        assert {cid for cid, _ in reader.query(_vec(7), 2)} == {"d1:4", "d1:7"}


def test_a_delete_hides_a_recent_row_and_a_later_write_brings_it_back(paths: AppPaths) -> None:
    index = open_vector_index(paths, StoreSettings(), "chunks")
    ids = [f"d{i % 3}:{i}" for i in range(9)]
    _write(index, ids[:6])
    index.apply_pending()
    _write(_reopened(paths), ids[6:])
    later = _reopened(paths)
    later.delete(["d0:0", "d0:6"])  # one in each collection
    assert _held(paths) == (6, 3)  # Chroma not written: the log hides them
    _reads(_reopened(paths), set(ids) - {"d0:0", "d0:6"})
    _write(_reopened(paths), ["d0:6"])  # written again after its delete
    _reads(_reopened(paths), set(ids) - {"d0:0"})
    settled = _reopened(paths)
    settled.apply_pending()
    assert _held(paths) == (8, 0)
    _reads(settled, set(ids) - {"d0:0"})


def test_what_waits_is_applied_in_an_order_a_crash_cannot_break(paths: AppPaths) -> None:
    """Deleted recent rows leave the recent collection before the log is forgotten, so that a
    crash between the two never brings them back."""
    index = open_vector_index(paths, StoreSettings(), "chunks")
    _write(index, ["d0:0", "d1:1", "d2:2"])
    index.delete(["d1:1"])
    calls: list[str] = []
    log = PendingDeletes(pending_file(paths.chroma_dir, "chunks"))
    clear = log.clear
    index._pending = log
    log.clear = lambda: (calls.append("clear"), clear())[1]  # type: ignore[method-assign]
    recent = index._recent
    assert recent is not None
    delete = recent.delete
    index._recent = type("Spy", (), {
        "delete": lambda _s, ids: (calls.append(f"delete {sorted(ids)}"), delete(ids=ids))[1],
        "get": lambda _s, **kw: recent.get(**kw),
        "count": lambda _s: recent.count(),
    })()
    index.apply_pending()
    assert calls == ["delete ['d1:1']", "clear", "delete ['d0:0', 'd2:2']"]
    _reads(_reopened(paths), {"d0:0", "d2:2"})


def test_the_rows_move_in_past_the_limit(paths: AppPaths, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chroma_index, "RECENT_MAX", 4)
    index = open_vector_index(paths, StoreSettings(), "chunks")
    _write(index, ["d0:0", "d0:1", "d0:2"])
    assert _held(paths) == (0, 3)
    _write(_reopened(paths), ["d1:3", "d1:4"])  # five now: over the limit
    assert _held(paths) == (5, 0)
    assert not pending_file(paths.chroma_dir, "chunks").exists()
    assert collection_names(paths, StoreSettings()) == ["chunks"]
    _reads(_reopened(paths), {"d0:0", "d0:1", "d0:2", "d1:3", "d1:4"})


def test_a_process_that_loaded_the_index_writes_to_it(paths: AppPaths) -> None:
    index = open_vector_index(paths, StoreSettings(), "chunks")
    _write(index, ["d0:0", "d0:1"])
    reader = _reopened(paths)
    reader.query(_vec(0), 1)  # loads the library's collection
    _write(reader, ["d1:2"])
    assert _held(paths) == (3, 0)  # and the recent rows moved in with it
    _reads(_reopened(paths), {"d0:0", "d0:1", "d1:2"})


def test_a_move_cut_short_reads_each_row_once(paths: AppPaths) -> None:
    """A crash after the waiting ids were forgotten and before the recent collection was
    dropped leaves equal rows in both collections."""
    index = open_vector_index(paths, StoreSettings(), "chunks")
    _write(index, ["d0:0", "d1:1", "d2:2"])
    client = vectors._persistent_client(str(paths.chroma_dir.resolve()))
    recent = client.get_collection(recent_name("chunks"), embedding_function=None)
    main = client.get_or_create_collection("chunks", embedding_function=None)
    got = recent.get(include=["embeddings", "metadatas"])
    main.upsert(ids=got["ids"], embeddings=got["embeddings"], metadatas=got["metadatas"])
    PendingDeletes(pending_file(paths.chroma_dir, "chunks")).clear()
    assert _held(paths) == (3, 3)
    reader = _reopened(paths)
    _reads(reader, {"d0:0", "d1:1", "d2:2"})
    reader.apply_pending()
    assert _held(paths) == (3, 0)


def test_dropping_the_collection_drops_its_recent_one(paths: AppPaths) -> None:
    _write(open_vector_index(paths, StoreSettings(), "chunks"), ["d0:0"])
    assert drop_collection(paths, StoreSettings(), "chunks")
    client = vectors._persistent_client(str(paths.chroma_dir.resolve()))
    assert not [c.name for c in client.list_collections()]


def test_without_a_slot_writes_go_to_the_collection() -> None:
    """The server mode: the server keeps its index loaded, so nothing waits."""

    class Col:
        def __init__(self) -> None:
            self.upserted: list[Any] = []

        def upsert(self, ids: list[str], **_: Any) -> None:
            self.upserted.append(ids)

    col = Col()
    ChromaVectorIndex(col).upsert(["x:1"], np.stack([_vec(1)]), ["x"])
    assert col.upserted == [["x:1"]]


def test_a_document_added_and_removed_again_and_again_cannot_grow_the_log_forever(
    paths: AppPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chroma_index, "MAX_PENDING", 5)
    index = open_vector_index(paths, StoreSettings(), "chunks")
    log = pending_file(paths.chroma_dir, "chunks")
    sizes = []
    for _ in range(4):  # the same two ids each time: four lines a round
        _write(index, ["d0:0", "d0:1"])
        index.delete(["d0:0", "d0:1"])
        sizes.append(len(log.read_text().splitlines()) if log.exists() else 0)
    assert max(sizes) <= 5  # 4, 8, 12, 16 without the limit on lines
    _write(index, ["d0:1"])
    _reads(_reopened(paths), {"d0:1"})
