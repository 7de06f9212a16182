"""Shared fixtures. Heavy real components are session-scoped so each loads once per run."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A throwaway --data-dir."""
    path = tmp_path / "data"
    path.mkdir()
    return path


@pytest.fixture
def fake_context(data_dir: Path) -> Iterator[object]:
    """An AppContext whose embedder, vectors, token counter and engine are deterministic fakes."""
    from desktop_rag.bootstrap import build_context
    from desktop_rag.config import Settings
    from desktop_rag.domain.fakes import (
        FakeChatEngine,
        HashEmbedder,
        InMemoryVectorIndex,
        WordTokenCounter,
    )

    ctx = build_context(
        str(data_dir),
        settings=Settings(),
        overrides={
            "embedder": HashEmbedder(),
            "vectors": InMemoryVectorIndex(),
            "token_counter": WordTokenCounter(),
            "engine": FakeChatEngine(),
        },
    )
    yield ctx
    ctx.close()


@pytest.fixture(scope="session")
def tiny_chat_engine() -> Iterator[object]:
    """The real SmolLM2 chat model (llama.cpp, CPU) on its worker thread, loaded once per run."""
    from desktop_rag.config import LLMSettings, Settings
    from desktop_rag.config.paths import resolve_paths
    from desktop_rag.llm.factory import load_local_engine
    from desktop_rag.models import ModelRegistry

    registry = ModelRegistry(resolve_paths(None), Settings(profile="tiny"))
    llm = LLMSettings(gpu_layers="0", context_size=4096, threads=2, max_tokens=64)
    engine = load_local_engine(registry.tiny_chat_model_path(), llm)
    yield engine
    engine.close()  # type: ignore[attr-defined]
