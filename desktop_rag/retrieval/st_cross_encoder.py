"""The cross-encoder adapter: the one module that imports sentence_transformers' CrossEncoder."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

BATCH_SIZE = 16
MAX_LENGTH = 512


class CrossEncoderReranker:
    """Scores (query, passage) pairs jointly with a sentence-transformers CrossEncoder (CPU)."""

    name = "cross-encoder"

    def __init__(self, model_dir: Path, max_length: int = MAX_LENGTH) -> None:
        from sentence_transformers import CrossEncoder

        self.model_dir = model_dir
        self._model: Any = CrossEncoder(
            str(model_dir), device="cpu", max_length=max_length, local_files_only=True
        )
        log.info("cross-encoder loaded from %s", model_dir)

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        scores = self._model.predict(
            [(query, t) for t in texts], batch_size=BATCH_SIZE, show_progress_bar=False
        )
        return [float(s) for s in scores.reshape(len(texts), -1)[:, -1]]
