"""Chroma server mode: the same behavioural store tests in embedded mode and against a real
`chroma run` server (started on a free 127.0.0.1 port for this module, stopped afterwards)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from server_procs import chroma_server

from desktop_rag.bootstrap import build_context
from desktop_rag.config import Settings, StoreSettings
from desktop_rag.config.paths import resolve_paths
from desktop_rag.domain import DocScope
from desktop_rag.domain.errors import StoreError
from desktop_rag.domain.fakes import HashEmbedder, WordTokenCounter
from desktop_rag.store.vectors import ChromaVectorIndex, open_vector_index

_databases = itertools.count()


@pytest.fixture(scope="module")
def chroma_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    folder = tmp_path_factory.mktemp("chroma-server")
    with chroma_server(folder / "db", folder / "server.log") as port:
        yield port


def store_settings(mode: str, request: pytest.FixtureRequest) -> StoreSettings:
    if mode == "embedded":
        return StoreSettings()
    port = request.getfixturevalue("chroma_port")
    return StoreSettings(mode="server", port=port, database=f"lib{next(_databases)}")


@pytest.fixture(params=["embedded", "server"])
def store(request: pytest.FixtureRequest) -> StoreSettings:
    """Each test gets an empty store: a new folder, or a new database on the shared server."""
    return store_settings(request.param, request)


@pytest.fixture
def index(store: StoreSettings, tmp_path: Path) -> ChromaVectorIndex:
    return open_vector_index(resolve_paths(str(tmp_path)).ensure(), store)


def unit(*values: float) -> np.ndarray:
    vec = np.array(values, dtype=np.float32)
    return vec / np.linalg.norm(vec)


def test_upsert_query_get_delete(index: ChromaVectorIndex) -> None:
    vecs = np.stack([unit(1, 0, 0), unit(0, 1, 0), unit(1, 1, 0)])
    index.upsert(["a:0", "b:0", "c:0"], vecs, ["a", "b", "c"])
    found = index.query(unit(1, 0, 0), 2)
    assert [cid for cid, _ in found] == ["a:0", "c:0"]
    assert found[0][1] == pytest.approx(1.0, abs=1e-5)
    assert found[1][1] == pytest.approx(float(unit(1, 1, 0)[0]), abs=1e-5)
    not_a = DocScope(exclude=frozenset("a"))
    assert [c for c, _ in index.query(unit(1, 0, 0), 3, not_a)] == ["c:0", "b:0"]
    only_ab = DocScope(only=frozenset("ab"))
    assert [c for c, _ in index.query(unit(1, 0, 0), 3, only_ab)] == ["a:0", "b:0"]
    got = index.get_embeddings(["b:0", "missing"])
    assert list(got) == ["b:0"] and np.allclose(got["b:0"], vecs[1], atol=1e-6)
    index.upsert(["a:0"], np.stack([unit(0, 0, 1)]), ["a"])  # same id: replaced
    assert index.count() == 3 and index.query(unit(0, 0, 1), 1)[0][0] == "a:0"
    index.delete(["a:0", "b:0", "never-there"])
    assert index.all_ids() == {"c:0"} and index.count() == 1


def test_empty_store(index: ChromaVectorIndex) -> None:
    assert index.query(unit(1, 0, 0), 5) == [] and index.count() == 0
    assert index.all_ids() == set() and index.get_embeddings(["x"]) == {}


def test_many_vectors_are_batched_and_paged(index: ChromaVectorIndex) -> None:
    rng = np.random.default_rng(7)
    vecs = rng.normal(size=(6001, 8)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    ids = [f"d{i % 7}:{i}" for i in range(len(vecs))]
    index.upsert(ids, vecs, [i.split(":")[0] for i in ids])
    assert index.count() == 6001 and index.all_ids() == set(ids)
    best = index.query(vecs[4242], 3)
    assert best[0][0] == ids[4242] and best[0][1] == pytest.approx(1.0, abs=1e-4)
    not_d0 = DocScope(exclude=frozenset({"d0"}))
    assert all(not cid.startswith("d0:") for cid, _ in index.query(vecs[0], 20, not_d0))
    index.delete(ids[:3000])
    assert index.count() == 3001


def test_mismatched_lengths_are_refused(index: ChromaVectorIndex) -> None:
    with pytest.raises(ValueError, match="differ"):
        index.upsert(["a"], np.stack([unit(1, 0), unit(0, 1)]), ["a"])


def test_two_libraries_on_one_server_do_not_see_each_other(
    chroma_port: int, tmp_path: Path
) -> None:
    paths = resolve_paths(str(tmp_path)).ensure()

    def library(name: str) -> ChromaVectorIndex:
        settings = StoreSettings(mode="server", port=chroma_port, database=name)
        return open_vector_index(paths, settings)

    first, second = library("lib-a"), library("lib-b")
    first.upsert(["x:0"], np.stack([unit(1, 0)]), ["x"])
    assert second.count() == 0 and first.count() == 1
    assert library("lib-a").all_ids() == {"x:0"}  # kept on the server for the next client


def test_deletes_an_embedded_library_left_waiting_are_applied_through_the_server(
    chroma_port: int, tmp_path: Path
) -> None:
    from desktop_rag.store.pending_deletes import PendingDeletes, pending_file

    paths = resolve_paths(str(tmp_path)).ensure()
    settings = StoreSettings(mode="server", port=chroma_port, database="lib-waiting")
    first = open_vector_index(paths, settings)
    first.upsert(["a:0", "a:1", "b:0"], np.stack([unit(1, 0), unit(0, 1), unit(1, 1)]),
                 ["a", "a", "b"])  # fmt: skip
    waiting = pending_file(paths.chroma_dir, "chunks")
    PendingDeletes(waiting).add(["a:0", "a:1"])  # as the embedded library left them
    again = open_vector_index(paths, settings)
    assert again.all_ids() == {"b:0"} and not waiting.exists()
    again.delete(["b:0"])  # server mode: at once
    assert first.count() == 0 and not waiting.exists()


def test_writes_an_embedded_library_left_in_its_recent_collection_move_in_at_open(
    chroma_port: int, tmp_path: Path
) -> None:
    from desktop_rag.store.vectors import _http_client, recent_name

    paths = resolve_paths(str(tmp_path)).ensure()
    settings = StoreSettings(mode="server", port=chroma_port, database="lib-recent")
    open_vector_index(paths, settings).upsert(["a:0"], np.stack([unit(1, 0)]), ["a"])
    recent = _http_client(settings).get_or_create_collection(
        recent_name("chunks"), metadata={"hnsw:space": "cosine"}, embedding_function=None
    )
    recent.upsert(ids=["b:0"], embeddings=np.stack([unit(0, 1)]), metadatas=[{"doc_id": "b"}])
    again = open_vector_index(paths, settings)
    assert again.all_ids() == {"a:0", "b:0"} and again.query(unit(0, 1), 1)[0][0] == "b:0"
    assert recent.count() == 0  # emptied


def test_a_server_that_is_down_is_a_clear_store_error(tmp_path: Path) -> None:
    from server_procs import free_port

    port = free_port()
    with pytest.raises(StoreError) as err:
        open_vector_index(resolve_paths(str(tmp_path)).ensure(),
                          StoreSettings(mode="server", port=port))
    assert f"http://127.0.0.1:{port}" in err.value.hint and "chroma run" in err.value.hint


def services_for(store: StoreSettings, data_dir: Path) -> Any:
    from desktop_rag.services import Services

    settings = Settings(profile="tiny", store=store)
    overrides = {"embedder": HashEmbedder(), "token_counter": WordTokenCounter()}
    return Services(build_context(str(data_dir), settings=settings, overrides=overrides))


def test_ingest_search_and_remove_through_the_facade(store: StoreSettings, tmp_path: Path) -> None:
    note = tmp_path / "docs" / "plants.md"
    note.parent.mkdir()
    note.write_text("# Plants\n\nThe northern plant produced 420 tonnes of steel in 2019.\n\n"
                    "# Staff\n\nEmployees get 28 vacation days per year.\n", encoding="utf-8")
    services = services_for(store, tmp_path / "data")
    try:
        report = services.ingest([note])
        assert not report.failed
        assert services.ctx.vectors.count() == len(services.ctx.vectors.all_ids()) > 0
        hits = services.search("steel tonnes northern plant", mode="dense").results
        assert hits and "steel" in hits[0].chunk.text
        assert services.check_consistency()["consistent"] is True
        services.remove([note])
        assert services.ctx.vectors.count() == 0
    finally:
        services.close()
