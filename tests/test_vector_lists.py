"""The vector copy's inverted lists (store/vector_lists.py): a listed copy answers as the exact one
does (every rule of the copy holds when its rows are regrouped), finds the exact top 10 at the
probe share the app uses, stays listed when a writer's journal changes it, and a damaged lists
file is ignored (the copy is searched exactly)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from desktop_rag.config.paths import AppPaths, resolve_paths
from desktop_rag.domain import EVERYWHERE, DocScope
from desktop_rag.store import vector_lists, vector_tail
from desktop_rag.store.vector_copy import _publish, load_snapshot, write_snapshot
from desktop_rag.store.vector_journal import Journal, applied_build
from tests import test_vector_snapshot as copy_tests


@pytest.fixture
def paths(tmp_path: Path) -> AppPaths:
    return resolve_paths(tmp_path).ensure()


@pytest.mark.parametrize(
    "check",
    [copy_tests.test_the_copy_passes_the_vector_index_contract,
     copy_tests.test_a_new_process_reads_the_copy_without_opening_chroma,
     copy_tests.test_a_writer_brings_the_copy_up_to_date_from_its_own_writes,
     copy_tests.test_removals_alone_mask_rows_without_copying_the_vectors],
)  # fmt: skip
def test_a_listed_copy_keeps_every_rule_of_the_copy(
    check: Callable[[AppPaths], None], paths: AppPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vector_lists, "LIST_MIN_ROWS", 1)  # every copy listed, rows regrouped
    check(paths)
    snap = load_snapshot(paths.data_dir / "vector-snapshot" / "chunks")
    assert snap is None or snap.lists is not None


def clustered(rows: int, seed: int) -> npt.NDArray[np.float32]:
    """Unit vectors around 200 topics, as a library's chunks are."""
    rng = np.random.default_rng(seed)
    topics = rng.standard_normal((200, 64)).astype(np.float32)
    noise = rng.standard_normal((rows, 64)).astype(np.float32) * 0.5
    out = topics[rng.integers(0, 200, rows)] + noise
    return out / np.linalg.norm(out, axis=1, keepdims=True)


class Matrix:
    collection_name = "chunks"

    def __init__(self, matrix: npt.NDArray[np.float32]) -> None:
        self.matrix = matrix

    def export_vectors(self) -> Iterator[tuple[list[str], npt.NDArray[np.float32], list[str]]]:
        yield ([f"c{i}" for i in range(len(self.matrix))], self.matrix,
               [f"d{i // 50}" for i in range(len(self.matrix))])  # fmt: skip


def listed_copy(folder: Path, rows: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vector_lists, "LIST_MIN_ROWS", 1000)
    write_snapshot(folder, Matrix(clustered(rows, 1)), "s1")  # type: ignore[arg-type]


def test_the_lists_find_the_exact_top_ten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    listed_copy(tmp_path, 40_000, monkeypatch)
    snap = load_snapshot(tmp_path)
    assert snap is not None and snap.lists is not None and len(snap.lists.centroids) == 200
    assert snap.lists.probe < len(snap.lists.centroids)  # not every list is read
    exact = dataclasses.replace(snap, lists=None)
    queries = clustered(200, 2)
    recall = [len({c for c, _ in snap.query(q, 10, EVERYWHERE)}
                  & {c for c, _ in exact.query(q, 10, EVERYWHERE)}) / 10
              for q in queries]  # fmt: skip
    assert np.mean(recall) >= 0.99
    one = DocScope(only=frozenset({"d7"}))  # a document's own rows: exact
    assert [snap.query(q, 10, one) for q in queries[:20]] == [exact.query(q, 10, one)
                                                              for q in queries[:20]]  # fmt: skip


def test_a_journal_keeps_the_copy_listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    listed_copy(tmp_path, 4_000, monkeypatch)
    old = load_snapshot(tmp_path)
    assert old is not None and old.lists is not None
    journal = Journal("s1")
    fresh = clustered(30, 3)
    journal.upsert([f"new{i}" for i in range(30)], fresh, ["d999"] * 30)
    journal.delete([f"c{i}" for i in range(100)])
    build, docs, rows = applied_build(tmp_path, old, journal)
    _publish(tmp_path, build, "s2", "chunks", docs)
    snap = load_snapshot(tmp_path)
    assert snap is not None and snap.lists is not None and rows == 4_000 - 100 + 30
    assert int(snap.lists.offsets[-1]) == rows  # every row in a list
    nearest = vector_lists.assign(fresh, snap.lists.centroids)
    for i, lst in enumerate(nearest):  # each new row lies in its nearest list
        row = snap.ids.index(f"new{i}")
        assert snap.lists.offsets[lst] <= row < snap.lists.offsets[lst + 1]
        assert snap.query(fresh[i], 1, EVERYWHERE)[0][0] == f"new{i}"
    assert not {f"c{i}" for i in range(100)} & set(snap.ids)


def test_a_damaged_lists_file_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    listed_copy(tmp_path, 2_000, monkeypatch)
    snap = load_snapshot(tmp_path)
    assert snap is not None and snap.build is not None and snap.lists is not None
    np.savez(snap.build / vector_lists.FILE, centroids=snap.lists.centroids,
             offsets=np.arange(3, dtype=np.int64) * 10**6)  # fmt: skip
    again = load_snapshot(tmp_path)
    assert again is not None and again.lists is None  # searched exactly
    (snap.build / vector_lists.FILE).write_bytes(b"not a numpy file")
    again = load_snapshot(tmp_path)
    assert again is not None and again.lists is None and len(again.query(
        clustered(1, 5)[0], 10, EVERYWHERE)) == 10  # fmt: skip


def test_rows_added_go_to_a_tail_until_it_is_written_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    listed_copy(tmp_path, 4_000, monkeypatch)
    monkeypatch.setattr(vector_tail, "MIN_TAIL", 50)
    monkeypatch.setattr(vector_tail, "MAX_TAIL", 0.0)
    old = load_snapshot(tmp_path)
    assert old is not None and old.build is not None and vector_tail.fits(old, 30)
    inode = (old.build / "vectors.npy").stat().st_ino
    fresh = clustered(60, 3)
    journal = Journal("s1")
    journal.upsert([f"new{i}" for i in range(30)], fresh[:30], ["d999"] * 30)
    journal.delete([f"c{i}" for i in range(10)])
    build, docs, rows = vector_tail.appended_build(tmp_path, old, journal)
    _publish(tmp_path, build, "s2", "chunks", docs)
    snap = load_snapshot(tmp_path)
    assert snap is not None and snap.build is not None and (snap.build / vector_tail.TAIL).exists()
    assert (snap.build / "vectors.npy").stat().st_ino == inode  # the base is not written again
    assert rows == snap.size() == 4_000 - 10 + 30
    for i in range(30):  # the tail is searched
        assert snap.query(fresh[i], 1, EVERYWHERE)[0][0] == f"new{i}"
    assert not {f"c{i}" for i in range(10)} & {c for c, _ in snap.query(fresh[0], 4_000,
                                                                        EVERYWHERE)}  # fmt: skip
    assert not vector_tail.fits(snap, 30)  # 60 rows would pass the tail's limit: one file again
    more = Journal("s2")
    more.upsert([f"new{i}" for i in range(30, 60)], fresh[30:], ["d999"] * 30)
    build, docs, rows = applied_build(tmp_path, snap, more)
    _publish(tmp_path, build, "s3", "chunks", docs)
    whole = load_snapshot(tmp_path)
    assert whole is not None and whole.build is not None and whole.lists is not None
    assert not (whole.build / vector_tail.TAIL).exists() and int(whole.lists.offsets[-1]) == rows
    assert whole.live_ids() == snap.live_ids() | {f"new{i}" for i in range(30, 60)}
    assert all(whole.query(fresh[i], 1, EVERYWHERE)[0][0] == f"new{i}" for i in range(60))
