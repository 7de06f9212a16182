"""Real embedders shared by the embedder tests: each loads once per test run."""

from __future__ import annotations

from functools import cache

from desktop_rag.config import Settings
from desktop_rag.config.paths import AppPaths
from desktop_rag.domain.protocols import Embedder
from desktop_rag.models import ModelRegistry
from desktop_rag.retrieval.embedder import TorchEmbedder


@cache
def torch_fp32() -> Embedder:
    """The packaged all-MiniLM-L6-v2 under plain sentence-transformers fp32: the reference."""
    from pathlib import Path

    registry = ModelRegistry(AppPaths(*[Path("/unused")] * 4), Settings())
    return TorchEmbedder(registry.embedder_path(), "fp32", 2)
