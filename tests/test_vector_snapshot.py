"""The persisted copy of the vector collection (store/vector_snapshot.py): it answers like Chroma,
is used only while current, and lets a reading process start without Chroma or torch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from desktop_rag.config import StoreSettings
from desktop_rag.config.paths import AppPaths, resolve_paths
from desktop_rag.domain import DocScope
from desktop_rag.domain.protocols import Vector
from desktop_rag.store.stamp import STAMP_NAME
from desktop_rag.store.vector_snapshot import (
    POINTER,
    SnapshotVectorIndex,
    VectorSource,
    load_snapshot,
)
from desktop_rag.store.vectors import open_vector_index
from tests.test_store_vectors import unit


class Opened:
    """Counts how often the source (Chroma) is opened."""

    def __init__(self, paths: AppPaths) -> None:
        self.paths, self.times = paths, 0

    def __call__(self) -> VectorSource:
        self.times += 1
        return open_vector_index(self.paths, StoreSettings(), "chunks")


def snapshot_index(paths: AppPaths, opened: Opened | None = None) -> SnapshotVectorIndex:
    return SnapshotVectorIndex(
        paths.data_dir / "vector-snapshot" / "chunks", paths.chroma_dir / STAMP_NAME, "chunks",
        opened or Opened(paths),
    )


class RefreshedAfterWrites(SnapshotVectorIndex):
    """Reads always from a current copy: the contract checks the copy's answers."""

    def upsert(self, ids: Sequence[str], embeddings: Vector, doc_ids: Sequence[str]) -> None:
        super().upsert(ids, embeddings, doc_ids)
        assert self.refresh() is not None and self.current() is not None

    def delete(self, ids: Sequence[str]) -> None:
        super().delete(ids)
        assert self.refresh() is not None and self.current() is not None


@pytest.fixture
def paths(tmp_path: Path) -> AppPaths:
    return resolve_paths(tmp_path).ensure()


def _library(paths: AppPaths, n: int = 60) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(7)
    vecs = rng.normal(size=(n, 8)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    ids = [f"d{i % 5}:{i}" for i in range(n)]
    writer = snapshot_index(paths)
    writer.upsert(ids, vecs, [f"d{i % 5}" for i in range(n)])
    writer.close()  # a writer's close leaves a current copy
    return ids, vecs


def test_the_copy_passes_the_vector_index_contract(paths: AppPaths) -> None:
    from tests.test_store_vectors import test_query_on_an_empty_index, test_upsert_query_get_delete

    index = RefreshedAfterWrites(
        paths.data_dir / "snap", paths.chroma_dir / STAMP_NAME, "chunks", Opened(paths)
    )
    test_query_on_an_empty_index(index)
    test_upsert_query_get_delete(index)


def test_a_new_process_reads_the_copy_without_opening_chroma(paths: AppPaths) -> None:
    ids, vecs = _library(paths)
    opened = Opened(paths)
    reader = snapshot_index(paths, opened)
    query = unit(1, 0.2, 0, 0, 0, 0, 0, 0.4)
    scope = DocScope(only=frozenset({"d1", "d3"}), exclude=frozenset({"d3"}))
    found = reader.query(query, 5, scope)
    assert reader.count() == 60 and reader.all_ids() == set(ids)
    got = reader.get_embeddings([ids[2], "missing"])
    assert list(got) == [ids[2]] and np.allclose(got[ids[2]], vecs[2])
    assert opened.times == 0
    exact = sorted(((float(v @ query), cid) for cid, v in zip(ids, vecs, strict=True)
                    if cid.startswith("d1:")), reverse=True)[:5]  # fmt: skip
    assert [c for c, _ in found] == [c for _, c in exact]
    assert [s for _, s in found] == pytest.approx([s for s, _ in exact], abs=1e-6)
    chroma = open_vector_index(paths, StoreSettings(), "chunks")
    assert [c for c, _ in chroma.query(query, 5, scope)] == [c for c, _ in found]


def test_another_process_writing_makes_the_copy_stale_until_a_close(paths: AppPaths) -> None:
    _library(paths)
    reader = snapshot_index(paths)
    assert reader.current() is not None
    other = open_vector_index(paths, StoreSettings(), "chunks")  # another process's writer
    other.upsert(["new:0"], np.stack([unit(0, 0, 0, 0, 0, 0, 0, 1)]), ["new"])
    assert reader.current() is None
    best = reader.query(unit(0, 0, 0, 0, 0, 0, 0, 1), 1)
    assert best[0][0] == "new:0"  # from Chroma, which sees the write
    assert reader.source_opened
    reader.close()  # it opened Chroma anyway: it leaves a current copy behind
    fresh = Opened(paths)
    again = snapshot_index(paths, fresh)
    assert again.query(unit(0, 0, 0, 0, 0, 0, 0, 1), 1)[0][0] == "new:0"
    assert again.count() == 61 and fresh.times == 0


def test_a_damaged_copy_or_another_collection_is_not_used(paths: AppPaths) -> None:
    _library(paths)
    folder = paths.data_dir / "vector-snapshot" / "chunks"
    pointer = json.loads((folder / POINTER).read_text(encoding="utf-8"))
    (folder / pointer["build"] / "ids.json").write_text("[1, 2", encoding="utf-8")
    assert load_snapshot(folder) is None
    opened = Opened(paths)
    reader = snapshot_index(paths, opened)
    assert reader.count() == 60 and opened.times == 1  # answered by Chroma
    reader.close()
    assert load_snapshot(folder) is not None  # rewritten at close
    moved = SnapshotVectorIndex(
        folder, paths.chroma_dir / STAMP_NAME, "chunks", Opened(paths), lambda: "chunks-e5"
    )
    assert moved.current() is None  # an embedder switch made another collection active


def test_search_runs_in_a_process_where_torch_and_chroma_cannot_be_imported(
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "trip.md").write_text(
        "# Trip\n\nThe hotel booking reference is ZX-4471 for the Lisbon stay in May.\n",
        encoding="utf-8",
    )
    (notes / "garden.md").write_text(
        "# Garden\n\nTomatoes need watering every morning in July.\n", encoding="utf-8"
    )
    data = str(tmp_path / "data")
    cli = str(Path(sys.executable).parent / "desktop-rag")
    subprocess.run([cli, "--data-dir", data, "ingest", str(notes)], check=True,
                   capture_output=True, timeout=300)  # fmt: skip
    blocked = (
        "import sys\n"
        "for name in ('torch', 'chromadb', 'sentence_transformers', 'transformers'):\n"
        "    sys.modules[name] = None  # importing it raises ImportError\n"
        "from desktop_rag.cli import main\n"
        "sys.argv[0] = 'desktop-rag'\n"
        "code = main()\n"
        "assert 'chromadb' not in [m for m in sys.modules if sys.modules[m] is not None]\n"
        "sys.exit(code)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", blocked, "--data-dir", data, "search", "booking reference",
         "--json"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)["results"]
    assert "ZX-4471" in hits[0]["text"]


class Exports:
    """A source that counts full exports (what the journal spares)."""

    def __init__(self, paths: AppPaths) -> None:
        self.paths, self.exports = paths, 0

    def __call__(self) -> VectorSource:
        source = open_vector_index(self.paths, StoreSettings(), "chunks")
        export = source.export_vectors

        def counted() -> Iterator[tuple[list[str], Vector, list[str]]]:
            self.exports += 1
            yield from export()

        source.export_vectors = counted  # type: ignore[method-assign]
        return source


def copy_rows(paths: AppPaths) -> dict[str, tuple[list[float], int]]:
    snap = load_snapshot(paths.data_dir / "vector-snapshot" / "chunks")
    assert snap is not None
    names = {code: doc for doc, code in snap.doc_codes.items()}
    return {cid: (np.asarray(snap.vectors[i]).round(6).tolist(), names[int(snap.doc_of_row[i])])
            for i, cid in enumerate(snap.ids) if snap.doc_of_row[i] >= 0}  # masked rows: gone


def test_a_writer_brings_the_copy_up_to_date_from_its_own_writes(paths: AppPaths) -> None:
    ids, _ = _library(paths)
    source = Exports(paths)
    writer = snapshot_index(paths, source)  # type: ignore[arg-type]
    new = np.random.default_rng(3).normal(size=(4, 8)).astype(np.float32)
    new /= np.linalg.norm(new, axis=1, keepdims=True)
    writer.upsert(["d9:0", "d9:1", ids[0], ids[1]], new, ["d9", "d9", "d0", "d1"])
    writer.delete([ids[2], ids[3], "d9:1"])
    assert writer.refresh() == 60 - 2 + 1 and source.exports == 0  # no export from Chroma
    from_journal = copy_rows(paths)
    assert from_journal[ids[0]] == (new[2].round(6).tolist(), "d0")
    assert "d9:1" not in from_journal and from_journal["d9:0"][1] == "d9"
    writer.upsert(["d9:2"], new[:1], ["d9"])
    (paths.data_dir / "vector-snapshot" / "chunks" / POINTER).unlink()  # no copy to start from
    assert writer.refresh() == 60 and source.exports == 1
    exported = copy_rows(paths)
    del exported["d9:2"]
    assert exported == from_journal  # the journal's copy is the export's
    writer.close()


def test_a_refresh_reads_the_copy_once(paths: AppPaths, monkeypatch: pytest.MonkeyPatch) -> None:
    """The copy `current()` just read is the one the writes are applied to (reading a million
    ids twice cost 0.28 s a refresh); one moved by another process is read again."""
    from desktop_rag.store import vector_snapshot

    ids, _ = _library(paths)
    reads: list[Path] = []
    load = vector_snapshot.load_snapshot

    def counted(folder: Path) -> Any:
        reads.append(folder)
        return load(folder)

    monkeypatch.setattr(vector_snapshot, "load_snapshot", counted)
    writer = snapshot_index(paths)
    writer.delete([ids[0]])
    assert writer.refresh() == 59 and len(reads) == 1
    writer.delete([ids[1]])
    assert writer.current() is None  # read the copy again (the stamp moved)
    pointer = paths.data_dir / "vector-snapshot" / "chunks" / POINTER
    os.utime(pointer, ns=(1, 1))  # as if another process had published a copy since
    reads.clear()
    assert writer.refresh() == 58 and len(reads) == 1  # read again, not taken from memory


def test_another_writer_in_between_means_an_export(paths: AppPaths) -> None:
    ids, _ = _library(paths)
    source = Exports(paths)
    writer = snapshot_index(paths, source)  # type: ignore[arg-type]
    writer.delete([ids[0]])
    other = snapshot_index(paths)
    other.delete([ids[1]])  # the stamp is no longer the one the writer's last write left
    assert writer.refresh() == 58 and source.exports == 1
    assert set(copy_rows(paths)) == set(ids[2:])
    other.close()
    writer.close()


def test_removals_alone_mask_rows_without_copying_the_vectors(paths: AppPaths) -> None:
    ids, vecs = _library(paths)
    source = Exports(paths)
    writer = snapshot_index(paths, source)  # type: ignore[arg-type]
    folder = paths.data_dir / "vector-snapshot" / "chunks"
    before = json.loads((folder / POINTER).read_text())["build"]
    inode = (folder / before / "vectors.npy").stat().st_ino
    gone = [cid for cid in ids if cid.startswith("d0:")]  # a whole document
    writer.delete(gone)
    assert writer.refresh() == 60 - len(gone) and source.exports == 0
    after = json.loads((folder / POINTER).read_text())["build"]
    assert after != before and (folder / after / "vectors.npy").stat().st_ino == inode
    reader = snapshot_index(paths)  # another process: the copy is current for it
    assert reader.count() == 60 - len(gone) and reader.all_ids() == set(ids) - set(gone)
    scopes = (DocScope(), DocScope(exclude=frozenset({"d1"})), DocScope(only=frozenset({"d0"})))
    for scope in scopes:
        found = {cid for cid, _ in reader.query(vecs[0], 60, scope)}
        assert not found & set(gone)
    assert {cid for cid, _ in reader.query(vecs[0], 60)} == set(ids) - set(gone)
    assert reader.get_embeddings(gone[:1]) == {}
    writer.upsert([gone[0]], vecs[:1], ["d0"])  # back again: appended to the tail
    assert writer.refresh() == 60 - len(gone) + 1 and source.exports == 0
    snap = load_snapshot(folder)
    assert snap is not None and snap.size() == 60 - len(gone) + 1
    assert snap.live_ids() == set(ids) - set(gone[1:])
    assert (folder / json.loads((folder / POINTER).read_text())["build"] / "vectors.npy"
            ).stat().st_ino == inode  # the base is still the first build's file
    reader.close()
    writer.close()


def test_a_current_copy_releases_chromas_memory_and_a_later_write_opens_it_again(
    paths: AppPaths,
) -> None:
    """Embedded Chroma holds its whole vector index in memory once written or queried (2 GB at a
    million vectors): once the copy serves reads, the writer's process closes its client, and
    the next write opens it again, with nothing lost."""
    from desktop_rag.store import vectors

    ids, _ = _library(paths)
    key = str(paths.chroma_dir.resolve())
    writer = snapshot_index(paths)
    writer.upsert(["d9:0"], np.stack([unit(0, 0, 0, 0, 0, 0, 0, 1)]), ["d9"])
    assert key in vectors._clients  # the write opened Chroma
    assert writer.refresh() == 61
    assert key not in vectors._clients  # released: the copy answers
    assert writer.query(unit(0, 0, 0, 0, 0, 0, 0, 1), 1)[0][0] == "d9:0"
    assert key not in vectors._clients
    writer.delete([ids[0]])  # waits for the next write (store/pending_deletes.py)
    assert key not in vectors._clients
    writer.upsert(["d9:1"], np.stack([unit(0, 0, 0, 0, 0, 0, 1, 0)]), ["d9"])  # opens it again
    assert key in vectors._clients
    writer.close()
    assert key not in vectors._clients
    chroma = open_vector_index(paths, StoreSettings(), "chunks")
    assert chroma.count() == 61 and ids[0] not in chroma.all_ids()
    assert {"d9:0", "d9:1"} <= chroma.all_ids()
