"""The sentence-transformers embedder adapter (the one module that imports torch).

`load_embedder(registry, settings)` is the factory the composition root calls.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from desktop_rag.errors import ModelNotFoundError
from desktop_rag.protocols import Embedder, Vector

if TYPE_CHECKING:
    from desktop_rag.config import Settings
    from desktop_rag.models import ModelRegistry

log = logging.getLogger(__name__)

BATCH_SIZE = 32


def cpu_threads() -> int:
    """All the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def count_with(tokenizer: Any, texts: Sequence[str]) -> list[int]:
    """Word pieces per text (no special tokens, no truncation) with a fast tokenizer."""
    if not texts:
        return []
    encoded = tokenizer(list(texts), add_special_tokens=False, truncation=False)
    return [len(ids) for ids in encoded["input_ids"]]


class TorchEmbedder:
    """A sentence-transformers model on the CPU (fp32)."""

    backend = "torch"

    def __init__(self, model_dir: Path, threads: int | None = None) -> None:
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(threads or cpu_threads())
        self._model = SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)
        self._model.eval()
        self.dim = int(self._model.get_embedding_dimension() or 0)
        self.max_word_pieces = int(self._model.max_seq_length or 512)
        self.name = f"{model_name(model_dir)} ({self.backend})"

    def embed_documents(self, texts: Sequence[str]) -> Vector:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._model.encode(
            list(texts),
            batch_size=BATCH_SIZE,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def embed_query(self, text: str) -> Vector:
        result: Vector = self.embed_documents([text])[0]
        return result

    def count_word_pieces(self, texts: Sequence[str]) -> list[int]:
        return count_with(self._model.tokenizer, texts)


def model_name(model_dir: Path) -> str:
    """A readable model name: the folder's name, or its package's for the packaged model."""
    if model_dir.name != "model":
        return model_dir.name
    return model_dir.parent.name.removeprefix("gt_").replace("_", "-")


def load_embedder(registry: ModelRegistry, settings: Settings) -> Embedder:
    """Builds the embedder the settings ask for."""
    model_dir = registry.embedder_path()
    if not (model_dir / "config.json").exists():
        raise ModelNotFoundError(
            f"No sentence-transformers model in {model_dir}", "check models.embedder"
        )
    embedder = TorchEmbedder(model_dir)
    log.info("embedder %s loaded (dim %d)", embedder.name, embedder.dim)
    return embedder
