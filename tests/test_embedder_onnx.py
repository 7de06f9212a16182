"""The ONNX Runtime embedder: its model cache (fast) and the real exported MiniLM."""

from __future__ import annotations

import json
import logging
import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from desktop_rag.config import Settings
from desktop_rag.config.paths import AppPaths
from desktop_rag.domain.protocols import Embedder
from desktop_rag.models import ModelRegistry
from desktop_rag.retrieval import embedder as embedder_module
from desktop_rag.retrieval.embedder import export_onnx, load_embedder
from desktop_rag.retrieval.embedder_onnx import (
    MANIFEST,
    MODEL_FILE,
    PROBES,
    OnnxVerificationError,
    cached_model,
    ensure_model,
    file_sha256,
    length_buckets,
    load_onnx_embedder,
    remove_damaged_builds,
    source_key,
    verify_file,
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
    model = folder / MODEL_FILE
    model.write_bytes(payload)
    stat = model.stat()
    identity = [stat.st_size, stat.st_mtime_ns]
    manifest = {"source": key, "sha256": file_sha256(model), "file": identity}
    (folder / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    return model


def test_cached_model_accepts_only_a_complete_matching_file(tmp_path: Path) -> None:
    model = _fake_cache(tmp_path / "m", "key1")
    assert cached_model(tmp_path / "m", "key1") == model
    assert verify_file(tmp_path / "m")
    assert cached_model(tmp_path / "m", "other-key") is None  # source model changed
    assert cached_model(tmp_path / "missing", "key1") is None


def test_cached_model_rejects_a_changed_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    model = _fake_cache(tmp_path / "m", "key1")
    model.write_bytes(b"model bytez")
    with caplog.at_level(logging.WARNING):
        assert cached_model(tmp_path / "m", "key1") is None
    assert "damaged" in caplog.text
    assert not verify_file(tmp_path / "m")
    (tmp_path / "m" / MANIFEST).write_text("{not json", encoding="utf-8")
    assert cached_model(tmp_path / "m", "key1") is None


def test_the_full_check_removes_a_damaged_build_only(tmp_path: Path) -> None:
    _fake_cache(tmp_path / "good", "key1")
    bad = _fake_cache(tmp_path / "bad", "key2")
    bad.write_bytes(b"model bytez")  # the same size: only the hash tells
    assert remove_damaged_builds(tmp_path) == (2, ["bad"])
    assert (tmp_path / "good").exists() and not (tmp_path / "bad").exists()


def test_source_key_follows_the_recipe_and_the_files(tmp_path: Path) -> None:
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    (model_dir / "config.json").write_text("{}", encoding="utf-8")
    first = source_key(model_dir, "fp32")
    assert first != source_key(model_dir, "int8")
    (model_dir / "config.json").write_text('{"changed": 1}', encoding="utf-8")
    assert source_key(model_dir, "fp32") != first
    weights = bytearray(os.urandom(6 << 20))
    (model_dir / "model.safetensors").write_bytes(bytes(weights))
    with_weights = source_key(model_dir, "fp32")
    copy = tmp_path / "another-environment" / "model"
    shutil.copytree(model_dir, copy)  # the same package installed elsewhere, later
    assert source_key(copy, "fp32") == with_weights
    weights[-10] ^= 1  # other weights of the same size
    (model_dir / "model.safetensors").write_bytes(bytes(weights))
    assert source_key(model_dir, "fp32") != with_weights


def test_a_failed_export_leaves_no_partial_cache(tmp_path: Path) -> None:
    def broken_export(model_dir: Path, target: Path) -> None:
        target.write_bytes(b"half a model")
        raise RuntimeError("export failed")

    with pytest.raises(RuntimeError, match="export failed"):
        ensure_model(_model_dir(), tmp_path, broken_export, "int8")
    assert list(tmp_path.iterdir()) == []  # the temporary build folder is gone too


def test_unknown_backend_is_a_config_error(tmp_path: Path) -> None:
    from desktop_rag.domain.errors import ConfigError

    settings = Settings()
    settings = settings.updated({"models.embedder_backend": "gpu-magic"})
    registry = ModelRegistry(AppPaths(*[tmp_path] * 4), settings)
    with pytest.raises(ConfigError, match="embedder_backend"):
        load_embedder(registry, settings)


# --- real: the packaged MiniLM exported, optimised, verified (and quantised) ----------------


@pytest.fixture(scope="session")
def fp32_cache(tmp_path_factory: pytest.TempPathFactory, torch_embedder: Embedder) -> Path:
    cache = tmp_path_factory.mktemp("onnx-fp32")
    ensure_model(_model_dir(), cache, export_onnx, "fp32", torch_embedder.embed_documents)
    return cache


@pytest.fixture(scope="session")
def int8_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = tmp_path_factory.mktemp("onnx-int8")
    ensure_model(_model_dir(), cache, export_onnx, "int8")
    return cache


@pytest.fixture(scope="session")
def onnx_embedder(fp32_cache: Path) -> Embedder:
    return load_onnx_embedder(_model_dir(), fp32_cache, _no_export, 2, "fp32")


def _no_export(model_dir: Path, target: Path) -> None:
    raise AssertionError("the cached model should have been reused")


def test_fp32_vectors_are_torch_vectors(onnx_embedder: Embedder, torch_embedder: Embedder) -> None:
    got = onnx_embedder.embed_documents(TEXTS)
    want = torch_embedder.embed_documents(TEXTS)
    assert got.shape == (len(TEXTS), 384) and got.dtype == np.float32
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    cosines = np.sum(got * want, axis=1)
    # one embedding space: 0.9999999 min over 400 SciFact passages
    assert cosines.min() > 0.9999, cosines
    assert onnx_embedder.dim == 384 and onnx_embedder.max_word_pieces == 256
    assert onnx_embedder.name == "all-minilm-l6-v2 (onnx-fp32)"


def test_fp32_result_does_not_depend_on_batch_neighbours(onnx_embedder: Embedder) -> None:
    alone = onnx_embedder.embed_documents([TEXTS[0]])[0]
    batched = onnx_embedder.embed_documents(TEXTS)[0]
    assert float(alone @ batched) > 0.99999
    assert np.allclose(onnx_embedder.embed_query(TEXTS[0]), alone, atol=1e-6)
    assert onnx_embedder.embed_documents([]).shape == (0, 384)


def test_int8_stays_close_to_torch(int8_cache: Path, torch_embedder: Embedder) -> None:
    int8 = load_onnx_embedder(_model_dir(), int8_cache, _no_export, 2, "int8")
    cosines = np.sum(int8.embed_documents(TEXTS) * torch_embedder.embed_documents(TEXTS), axis=1)
    # int8 weights and activations: 0.994 mean, 0.989 min over 600 SciFact passages
    assert cosines.min() > 0.98, cosines
    # int8 activations share one dynamic scale per batch: neighbours move a vector slightly
    alone, batched = int8.embed_documents([TEXTS[0]])[0], int8.embed_documents(TEXTS)[0]
    assert float(alone @ batched) > 0.99
    assert int8.name.endswith("(onnx-int8)")


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


def _counting_export(exports: list[Path]) -> Callable[[Path, Path], None]:
    def export(model_dir: Path, target: Path) -> None:
        exports.append(target)
        export_onnx(model_dir, target)

    return export


def test_damaged_weights_are_caught_and_rebuilt(
    fp32_cache: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    shutil.copytree(fp32_cache, cache)
    model = _cache_folder(cache) / MODEL_FILE
    stat = model.stat()
    data = bytearray(model.read_bytes())
    start = int(len(data) * 0.3)
    data[start : start + 65536] = bytes(65536)  # weights zeroed in place
    model.write_bytes(bytes(data))
    os.utime(model, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # size and mtime as recorded
    exports: list[Path] = []
    rebuilt = load_onnx_embedder(_model_dir(), cache, _counting_export(exports), 2, "fp32")
    assert len(exports) == 1
    assert float(rebuilt.embed_query("hello") @ rebuilt.embed_query("hello")) > 0.999
    manifest = json.loads((_cache_folder(cache) / MANIFEST).read_text(encoding="utf-8"))
    assert cached_model(_cache_folder(cache), manifest["source"]) is not None
    assert verify_file(_cache_folder(cache))


def test_a_build_that_disagrees_with_the_reference_is_not_kept(tmp_path: Path) -> None:
    def wrong_reference(texts: Sequence[str]) -> np.ndarray:
        vectors = np.random.default_rng(0).normal(size=(len(texts), 384)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    with pytest.raises(OnnxVerificationError, match="differ from the reference"):
        ensure_model(_model_dir(), tmp_path, export_onnx, "fp32", wrong_reference)
    assert list(tmp_path.iterdir()) == []
    assert len(PROBES) >= 3


def test_auto_backend_is_verified_onnx_fp32_from_the_model_cache(
    fp32_cache: Path, tmp_path: Path
) -> None:
    paths = AppPaths(tmp_path / "c", tmp_path / "d", tmp_path / "k", tmp_path / "m").ensure()
    shutil.copytree(fp32_cache, paths.model_cache_dir / "onnx")
    settings = Settings()
    embedder = load_embedder(ModelRegistry(paths, settings), settings)
    assert embedder.name.endswith("(onnx-fp32)")
    manifest = json.loads((_cache_folder(paths.model_cache_dir / "onnx") / MANIFEST).read_text())
    assert manifest["reference_cosine"] > 0.9999


def test_failed_export_falls_back_to_torch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(model_dir: Path, target: Path) -> None:
        raise RuntimeError("exporter exploded")

    monkeypatch.setattr(embedder_module, "export_onnx", broken)
    paths = AppPaths(tmp_path / "c", tmp_path / "d", tmp_path / "k", tmp_path / "m").ensure()
    settings = Settings()
    with caplog.at_level(logging.WARNING):
        embedder = load_embedder(ModelRegistry(paths, settings), settings)
    assert embedder.name.endswith("(torch)")
    assert "exporter exploded" in caplog.text
    assert "Preparing the embedder" in caplog.text  # the one-time wait is announced


def test_a_runtime_that_embeds_differently_is_caught_by_the_probe(
    fp32_cache: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    shutil.copytree(fp32_cache, cache)
    manifest_file = _cache_folder(cache) / MANIFEST
    manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    manifest["probe"] = list(reversed(manifest["probe"]))  # as if recorded by another runtime
    manifest_file.write_text(json.dumps(manifest), encoding="utf-8")
    exports: list[Path] = []
    load_onnx_embedder(_model_dir(), cache, _counting_export(exports), 2, "fp32")
    assert len(exports) == 1  # rebuilt with this runtime
