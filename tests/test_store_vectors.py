"""The vector index contract, run against the Chroma adapter on a temporary folder (real
chromadb) and the in-memory fake the fast tests use: both must pass the same assertions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from desktop_rag.config import StoreSettings
from desktop_rag.config.paths import resolve_paths
from desktop_rag.domain import DocScope
from desktop_rag.domain.fakes import InMemoryVectorIndex
from desktop_rag.domain.protocols import VectorIndex
from desktop_rag.store.vectors import ChromaVectorIndex, open_vector_index


@pytest.fixture
def chroma(tmp_path: Path) -> ChromaVectorIndex:
    return open_vector_index(resolve_paths(tmp_path).ensure(), StoreSettings())


@pytest.fixture(params=["chroma", "in-memory"])
def index(request: pytest.FixtureRequest, tmp_path: Path) -> VectorIndex:
    if request.param == "chroma":
        return open_vector_index(resolve_paths(tmp_path).ensure(), StoreSettings())
    return InMemoryVectorIndex()


def unit(*values: float) -> np.ndarray:
    vec = np.array(values, dtype=np.float32)
    return vec / np.linalg.norm(vec)


def test_upsert_query_get_delete(index: VectorIndex) -> None:
    vecs = np.stack([unit(1, 0, 0), unit(0, 1, 0), unit(1, 1, 0)])
    index.upsert(["a:0", "b:0", "c:0"], vecs, ["a", "b", "c"])
    found = index.query(unit(1, 0, 0), 2)
    assert [cid for cid, _ in found] == ["a:0", "c:0"]
    assert found[0][1] == pytest.approx(1.0, abs=1e-5)  # cosine similarity
    not_a = DocScope(exclude=frozenset("a"))
    assert next(c for c, _ in index.query(unit(1, 0, 0), 3, not_a)) == "c:0"
    only_b = DocScope(only=frozenset("b"))
    assert [c for c, _ in index.query(unit(1, 0, 0), 3, only_b)] == ["b:0"]
    nothing = DocScope(only=frozenset("a"), exclude=frozenset("a"))
    assert nothing.empty and index.query(unit(1, 0, 0), 3, nothing) == []
    got = index.get_embeddings(["b:0", "zzz"])
    assert list(got) == ["b:0"] and np.allclose(got["b:0"], vecs[1])
    index.upsert(["a:0"], np.stack([unit(0, 0, 1)]), ["a"])  # same id: replaced, not added
    assert index.count() == 3
    index.delete(["a:0", "b:0"])
    assert index.all_ids() == {"c:0"}


def test_query_on_an_empty_index(index: VectorIndex) -> None:
    assert index.query(unit(1, 0, 0), 5) == []


def test_a_small_scope_is_scored_here_like_chroma_scores_it(
    chroma: ChromaVectorIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = chroma
    rng = np.random.default_rng(3)
    vecs = rng.normal(size=(60, 3)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    index.upsert([f"d{i % 6}:{i}" for i in range(60)], vecs, [f"d{i % 6}" for i in range(60)])
    scope = DocScope(only=frozenset({"d1", "d4"}), exclude=frozenset({"d4"}))
    here = index.query(unit(1, 0.5, 0), 5, scope)
    monkeypatch.setattr("desktop_rag.store.chroma_reads.FEW_VECTORS", 3)  # Chroma's filtered query
    by_chroma = index.query(unit(1, 0.5, 0), 5, scope)
    assert [c for c, _ in here] == [c for c, _ in by_chroma]
    assert all(c.startswith("d1:") for c, _ in here)
    assert [s for _, s in here] == pytest.approx([s for _, s in by_chroma], abs=1e-5)
