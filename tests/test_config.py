from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.config import Settings, load_settings, save_settings, settings_from_dict
from desktop_rag.domain.errors import ConfigError


def test_settings_round_trip(tmp_path: Path) -> None:
    settings = Settings()
    settings = settings.updated({"llm.context_size": 2048})
    settings = settings.updated({"llm.gpu_layers": "0"})
    settings = settings.updated({"models.chat_model": '/tmp/my "model".gguf'})
    path = tmp_path / "settings.toml"
    save_settings(settings, path)
    assert load_settings(path) == settings


def test_invalid_value_names_key_value_and_range() -> None:
    with pytest.raises(ConfigError) as info:
        settings_from_dict({"llm": {"context_size": 10}})
    assert "llm.context_size" in info.value.message
    assert "10" in info.value.message
    assert "512" in info.value.hint


def test_unknown_key_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"retrieval\.topk"):
        settings_from_dict({"retrieval": {"topk": 3}})


def test_wrong_type_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"retrieval\.top_k"):
        settings_from_dict({"retrieval": {"top_k": "many"}})


def test_missing_file_gives_defaults(tmp_path: Path) -> None:
    assert load_settings(tmp_path / "none.toml") == Settings()


def test_bad_toml_names_file(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text("profile = [", encoding="utf-8")
    with pytest.raises(ConfigError, match=str(path)):
        load_settings(path)
