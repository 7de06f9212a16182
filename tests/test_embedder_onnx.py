"""The ONNX Runtime embedder: its model cache (fast) and the real exported MiniLM."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import numpy as np
import pytest

from desktop_rag.config import Settings
from desktop_rag.models import ModelRegistry
from desktop_rag.paths import AppPaths
from desktop_rag.protocols import Embedder
from desktop_rag.retrieval import embedder as embedder_module
from desktop_rag.retrieval.embedder import export_onnx, load_embedder
from desktop_rag.retrieval.embedder_onnx import (
    MANIFEST,
    MODEL_FILE,
    cached_model,
    ensure_model,
    file_sha256,
    length_buckets,
    load_onnx_embedder,
)
from tests.embedder_shared import torch_fp32


@pytest.fixture(scope="session")
def torch_embedder() -> Embedder:
    return torch_fp32()


TEXTS = [
    "Vitamin D supplementation reduces the risk of fractures in elderly women.",
    "The mitochondria is the powerhouse of the cell. " * 20,
    "short",
    "Error code E1234 appears when the printer runs out of toner.",
]


def _model_dir() -> Path:
    return ModelRegistry(AppPaths(*[Path("/unused")] * 4), Settings()).embedder_path()


def _cache_folder(cache: Path) -> Path:
    (folder,) = [p for p in cache.iterdir() if not p.name.startswith(".")]
    return folder


# --- fast: buckets and the cache's validity rules ---------------------------------------------


def test_length_buckets_cover_every_index_once_longest_first() -> None:
    lengths = [5, 1, 9, 3, 9, 2, 7]
    batches = list(length_buckets(lengths, 3))
    assert [len(b) for b in batches] == [3, 3, 1]
    flat = [i for b in batches for i in b]
    assert sorted(flat) == list(range(len(lengths)))
    assert [lengths[i] for i in flat] == sorted(lengths, reverse=True)
    assert list(length_buckets([], 4)) == []


def _fake_cache(folder: Path, key: str, payload: bytes = b"model bytes") -> Path:
    folder.mkdir(parents=True)
    (folder / MODEL_FILE).write_bytes(payload)
    manifest = {"source": key, "sha256": file_sha256(folder / MODEL_FILE)}
    (folder / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    return folder / MODEL_FILE


def test_cached_model_accepts_only_a_complete_matching_file(tmp_path: Path) -> None:
    model = _fake_cache(tmp_path / "m", "key1")
    assert cached_model(tmp_path / "m", "key1") == model
    assert cached_model(tmp_path / "m", "other-key") is None  # source model changed
    assert cached_model(tmp_path / "missing", "key1") is None


def test_cached_model_rejects_a_damaged_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    model = _fake_cache(tmp_path / "m", "key1")
    model.write_bytes(b"model bytez")
    with caplog.at_level(logging.WARNING):
        assert cached_model(tmp_path / "m", "key1") is None
    assert "damaged" in caplog.text
    (tmp_path / "m" / MANIFEST).write_text("{not json", encoding="utf-8")
    assert cached_model(tmp_path / "m", "key1") is None


def test_a_failed_export_leaves_no_partial_cache(tmp_path: Path) -> None:
    def broken_export(model_dir: Path, target: Path) -> None:
        target.write_bytes(b"half a model")
        raise RuntimeError("export failed")

    with pytest.raises(RuntimeError, match="export failed"):
        ensure_model(_model_dir(), tmp_path, broken_export, "int8")
    assert list(tmp_path.iterdir()) == []  # the temporary build folder is gone too


def test_unknown_backend_is_a_config_error(tmp_path: Path) -> None:
    from desktop_rag.errors import ConfigError

    settings = Settings()
    settings = settings.updated({"models.embedder_backend": "gpu-magic"})
    registry = ModelRegistry(AppPaths(*[tmp_path] * 4), settings)
    with pytest.raises(ConfigError, match="embedder_backend"):
        load_embedder(registry, settings)


# --- real: the packaged MiniLM exported, optimised and quantised ----------------------------


@pytest.fixture(scope="session")
def onnx_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = tmp_path_factory.mktemp("onnx-cache")
    ensure_model(_model_dir(), cache, export_onnx, "int8")
    return cache


@pytest.fixture(scope="session")
def onnx_embedder(onnx_cache: Path) -> Embedder:
    return load_onnx_embedder(_model_dir(), onnx_cache, _no_export, 2, "int8")


def _no_export(model_dir: Path, target: Path) -> None:
    raise AssertionError("the cached model should have been reused")


def test_onnx_embeddings_are_normalised_and_close_to_torch(
    onnx_embedder: Embedder, torch_embedder: Embedder
) -> None:
    got = onnx_embedder.embed_documents(TEXTS)
    want = torch_embedder.embed_documents(TEXTS)
    assert got.shape == (len(TEXTS), 384) and got.dtype == np.float32
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    cosines = np.sum(got * want, axis=1)
    # int8 weights and activations: 0.994 mean, 0.989 min over 600 SciFact passages
    assert cosines.min() > 0.98, cosines
    assert onnx_embedder.dim == 384 and onnx_embedder.max_word_pieces == 256
    assert "onnx" in onnx_embedder.name and "minilm" in onnx_embedder.name


def test_onnx_result_does_not_depend_on_batch_neighbours(onnx_embedder: Embedder) -> None:
    alone = onnx_embedder.embed_documents([TEXTS[0]])[0]
    batched = onnx_embedder.embed_documents(TEXTS)[0]
    # Padding is masked, but int8 activations share one dynamic scale per batch, so a text's
    # vector moves slightly with its neighbours (measured 0.994); fp32 and bf16 do not do this.
    assert float(alone @ batched) > 0.99
    assert np.allclose(onnx_embedder.embed_query(TEXTS[0]), alone, atol=1e-6)
    assert onnx_embedder.embed_documents([]).shape == (0, 384)


def test_onnx_paraphrase_is_closer_than_unrelated(onnx_embedder: Embedder) -> None:
    query = onnx_embedder.embed_query("How do I reset my password?")
    docs = onnx_embedder.embed_documents(
        ["Steps to change a forgotten login password", "The recipe needs two eggs and flour"]
    )
    scores = docs @ query
    assert scores[0] > scores[1] + 0.2


def test_onnx_counts_word_pieces_like_the_model_tokenizer(
    onnx_embedder: Embedder, torch_embedder: Embedder
) -> None:
    texts = [*TEXTS, "", "naïve café déjà-vu 東京 🙂", "word " * 600]
    assert onnx_embedder.count_word_pieces(texts) == torch_embedder.count_word_pieces(texts)
    assert onnx_embedder.count_word_pieces(["word " * 600]) == [600]


def test_damaged_cache_is_rebuilt(onnx_cache: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    shutil.copytree(onnx_cache, cache)
    model = _cache_folder(cache) / MODEL_FILE
    data = bytearray(model.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 64] = bytes(64)
    model.write_bytes(bytes(data))
    exports: list[Path] = []

    def counting_export(model_dir: Path, target: Path) -> None:
        exports.append(target)
        export_onnx(model_dir, target)

    rebuilt = load_onnx_embedder(_model_dir(), cache, counting_export, 2, "int8")
    assert len(exports) == 1
    assert float(rebuilt.embed_query("hello") @ rebuilt.embed_query("hello")) > 0.999
    manifest = json.loads((_cache_folder(cache) / MANIFEST).read_text(encoding="utf-8"))
    assert cached_model(_cache_folder(cache), manifest["source"]) is not None


def test_load_embedder_onnx_backend_builds_into_the_model_cache(
    onnx_cache: Path, tmp_path: Path
) -> None:
    paths = AppPaths(tmp_path / "c", tmp_path / "d", tmp_path / "k", tmp_path / "m").ensure()
    shutil.copytree(onnx_cache, paths.model_cache_dir / "onnx")
    settings = Settings()
    settings = settings.updated({"models.embedder_backend": "onnx"})
    embedder = load_embedder(ModelRegistry(paths, settings), settings)
    assert "onnx-int8" in embedder.name


def test_failed_export_falls_back_to_torch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(model_dir: Path, target: Path) -> None:
        raise RuntimeError("exporter exploded")

    monkeypatch.setattr(embedder_module, "export_onnx", broken)
    paths = AppPaths(tmp_path / "c", tmp_path / "d", tmp_path / "k", tmp_path / "m").ensure()
    settings = Settings()
    settings = settings.updated({"models.embedder_backend": "onnx"})
    with caplog.at_level(logging.WARNING):
        embedder = load_embedder(ModelRegistry(paths, settings), settings)
    assert embedder.name.endswith("(torch)")
    assert "exporter exploded" in caplog.text
