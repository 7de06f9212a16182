"""Where things live: platformdirs folders, or everything under one --data-dir for a run."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

APP_NAME = "desktop-rag"


@dataclass(frozen=True, slots=True)
class AppPaths:
    config_dir: Path
    data_dir: Path
    cache_dir: Path
    model_cache_dir: Path  # assembled/downloaded model files; shared across data dirs

    @property
    def settings_file(self) -> Path:
        return self.config_dir / "settings.toml"

    @property
    def catalog_db(self) -> Path:
        return self.data_dir / "catalog.sqlite3"

    @property
    def chroma_dir(self) -> Path:
        return self.data_dir / "chroma"

    @property
    def chats_db(self) -> Path:
        return self.data_dir / "chats.sqlite3"

    @property
    def notes_dir(self) -> Path:
        return self.data_dir / "notes"

    @property
    def core_cache_dir(self) -> Path:
        return self.cache_dir / "core"

    @property
    def doc_profiles_file(self) -> Path:
        """What each document is called and what its cover says (services/doc_focus.py)."""
        return self.cache_dir / "doc-profiles.json"

    @property
    def lock_file(self) -> Path:
        return self.data_dir / "library.lock"

    @property
    def tiktoken_dir(self) -> Path:
        return self.model_cache_dir / "tiktoken"

    def ensure(self) -> AppPaths:
        for folder in (self.config_dir, self.data_dir, self.cache_dir, self.model_cache_dir):
            folder.mkdir(parents=True, exist_ok=True)
        return self


def _default_model_cache(cache_dir: Path) -> Path:
    override = os.environ.get("DESKTOP_RAG_MODEL_CACHE")
    return Path(override) if override else cache_dir / "models"


def resolve_paths(data_dir: str | os.PathLike[str] | None = None) -> AppPaths:
    """Platform folders by default; with `data_dir`, config, data and cache all go under it.

    Model files (the assembled chat model, downloads) stay in the user cache folder so that
    throwaway data folders do not copy a gigabyte each; DESKTOP_RAG_MODEL_CACHE overrides that.
    """
    import platformdirs

    user_cache = Path(platformdirs.user_cache_dir(APP_NAME))
    if data_dir is not None:
        root = Path(data_dir).expanduser().resolve()
        models = _default_model_cache(user_cache)
        return AppPaths(root / "config", root / "data", root / "cache", models)
    env_dir = os.environ.get("DESKTOP_RAG_DATA_DIR")
    if env_dir:
        return resolve_paths(env_dir)
    return AppPaths(
        Path(platformdirs.user_config_dir(APP_NAME)),
        Path(platformdirs.user_data_dir(APP_NAME)),
        user_cache,
        _default_model_cache(user_cache),
    )
