"""Re-rankers: a tiny cross-encoder built here exercises the real sentence-transformers path."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from retrieval_fakes import tiny_cross_encoder

from desktop_rag.bootstrap import AppContext
from desktop_rag.domain.errors import ConfigError, ModelNotFoundError
from desktop_rag.services.rerankers import Rerankers

__all__ = ["tiny_cross_encoder"]


@pytest.fixture
def ce_context(fake_context: AppContext, tiny_cross_encoder: Path) -> Iterator[AppContext]:
    fake_context.update_settings({"models.cross_encoder": str(tiny_cross_encoder)})
    yield fake_context


def test_cross_encoder_scores_pairs(tiny_cross_encoder: Path) -> None:
    from desktop_rag.retrieval.st_cross_encoder import CrossEncoderReranker

    reranker = CrossEncoderReranker(tiny_cross_encoder)
    texts = ["the pump gasket", "a cake recipe", "torque settings"]
    scores = reranker.score("pump gasket", texts)
    assert len(scores) == 3 and all(isinstance(s, float) for s in scores)
    assert scores == reranker.score("pump gasket", texts)  # deterministic
    assert len(set(scores)) > 1  # the pairs are really scored
    assert reranker.score("q", []) == []


def test_registry_offers_and_auto_picks_the_configured_cross_encoder(
    ce_context: AppContext,
) -> None:
    rerankers = Rerankers(ce_context)
    assert rerankers.available()[:2] == ["none", "cross-encoder"]
    assert rerankers.resolve("auto") == "cross-encoder"
    assert rerankers.resolve(None) == "cross-encoder"  # settings say auto
    assert rerankers.resolve("none") == "none"
    built = rerankers.build("cross-encoder")
    assert built is not None and built.name == "cross-encoder"
    assert rerankers.build("none") is None


def test_without_a_cross_encoder_auto_does_not_pick_it(fake_context: AppContext) -> None:
    rerankers = Rerankers(fake_context)
    assert "cross-encoder" not in rerankers.available()
    assert rerankers.resolve("auto") in ("none", "llm")
    with pytest.raises(ModelNotFoundError):
        rerankers.build("cross-encoder")
    with pytest.raises(ConfigError):
        rerankers.resolve("magic")


def test_a_missing_cross_encoder_folder_is_not_offered(
    fake_context: AppContext, tmp_path: Path
) -> None:
    fake_context.update_settings({"models.cross_encoder": str(tmp_path / "nowhere")})
    assert "cross-encoder" not in Rerankers(fake_context).available()
