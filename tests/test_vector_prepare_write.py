"""A write's notice (`prepare_write`): embedded Chroma loads its index on a thread of its own
while the documents are read and embedded, and the write that follows finds it loaded."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from desktop_rag.bootstrap import Parts, build_context
from desktop_rag.config import Settings
from desktop_rag.config.paths import AppPaths, resolve_paths
from desktop_rag.domain.fakes import HashEmbedder, WordTokenCounter
from desktop_rag.services import Services
from desktop_rag.store import vectors
from desktop_rag.store.lazy_vectors import LazyVectorIndex, prepare_write
from desktop_rag.store.vector_snapshot import SnapshotVectorIndex
from tests.ingest_docs import make_pdf
from tests.test_store_vectors import unit
from tests.test_vector_snapshot import _library, snapshot_index


@pytest.fixture
def paths(tmp_path: Path) -> AppPaths:
    return resolve_paths(tmp_path).ensure()


def test_the_index_loads_on_its_own_thread_and_the_write_follows(paths: AppPaths) -> None:
    _library(paths)  # a copy is current: Chroma's client is closed
    key = str(paths.chroma_dir.resolve())
    writer = snapshot_index(paths)
    assert not writer.source_opened and key not in vectors._clients
    writer.prepare_write().join(timeout=60)
    assert writer.source_opened and key in vectors._clients  # loaded ahead of the write
    writer.upsert(["d9:0"], np.stack([unit(0, 0, 0, 0, 0, 0, 0, 1)]), ["d9"])
    assert writer.refresh() == 61 and key not in vectors._clients
    assert writer.query(unit(0, 0, 0, 0, 0, 0, 0, 1), 1)[0][0] == "d9:0"


def test_an_empty_store_and_an_index_without_the_notice_are_fine(paths: AppPaths) -> None:
    snapshot_index(paths).prepare_write().join(timeout=60)  # nothing to load yet

    class Plain:
        pass

    prepare_write(Plain())  # indexes without it are left alone
    lazy = LazyVectorIndex(lambda: snapshot_index(paths))
    prepare_write(lazy)  # passed on to the real index
    assert lazy.opened


def test_an_ingest_gives_the_notice_before_it_writes_and_not_when_nothing_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    notice, upsert = SnapshotVectorIndex.prepare_write, SnapshotVectorIndex.upsert

    def noticed(self: SnapshotVectorIndex) -> threading.Thread:
        calls.append("notice")
        return notice(self)

    def written(self: SnapshotVectorIndex, *args: Any) -> None:
        calls.append("write")
        upsert(self, *args)

    monkeypatch.setattr(SnapshotVectorIndex, "prepare_write", noticed)
    monkeypatch.setattr(SnapshotVectorIndex, "upsert", written)
    docs = tmp_path / "docs"
    docs.mkdir()
    make_pdf(docs / "report.pdf", pages=2, known_page=1)
    overrides = Parts(token_counter=WordTokenCounter(), embedder=HashEmbedder())

    def fresh() -> Services:
        data = str(tmp_path / "data")
        return Services(build_context(data, settings=Settings(), overrides=overrides))

    first = fresh()
    first.ingest([docs])
    first.close()
    assert calls[:2] == ["notice", "write"]
    calls.clear()
    again = fresh()
    again.ingest([docs])
    again.close()
    assert calls == []
