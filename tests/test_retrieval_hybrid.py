"""Hybrid retrieval, the evidence gate and re-ranking with deterministic fakes."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from retrieval_fakes import MemoryLookup, MemorySparse, make_chunks

from desktop_rag.domain import Chunk, DocScope, ScoredChunk
from desktop_rag.domain.errors import ConfigError
from desktop_rag.domain.fakes import HashEmbedder, InMemoryVectorIndex
from desktop_rag.retrieval.evidence import EvidenceGate, content_terms, term_coverage
from desktop_rag.retrieval.hybrid import HybridConfig, HybridRetriever, identifiers
from desktop_rag.retrieval.rerank import rerank

TEXTS = [
    "The pump assembly uses gasket XK-4471-B rated for high pressure.",
    "Coolant flows through the radiator before reaching the engine block.",
    "Replace the air filter every twelve months or after dusty driving.",
    "The warranty covers manufacturing defects for two years.",
]


def build(
    chunks: Sequence[Chunk], lookup: MemoryLookup | None = None, **config: object
) -> HybridRetriever:
    embedder = HashEmbedder(dim=512)
    vectors = InMemoryVectorIndex()
    vectors.upsert(
        [c.chunk_id for c in chunks],
        embedder.embed_documents([c.text for c in chunks]),
        [c.doc_id for c in chunks],
    )
    lookup = lookup or MemoryLookup(chunks)
    return HybridRetriever(embedder, vectors, MemorySparse(chunks), lookup, HybridConfig(**config))  # type: ignore[arg-type]


def test_hybrid_fuses_both_retrievers_and_records_ranks() -> None:
    chunks = make_chunks("a", TEXTS)
    result = build(chunks).retrieve("gasket XK-4471-B pressure", k=3)
    top = result.candidates[0]
    assert top.chunk.chunk_id == "a:00000"
    assert top.sources == {"dense": 1, "bm25": 1, "exact": 1}
    assert top.score > result.candidates[1].score + 1.0  # the exact-identifier bonus
    assert not result.insufficient_evidence
    assert {"embed_ms", "dense_ms", "bm25_ms", "fuse_ms", "lookup_ms"} <= result.timings_ms.keys()
    by_rank = build(chunks, fusion="rrf").retrieve("gasket XK-4471-B pressure", k=3)
    assert by_rank.candidates[0].chunk.chunk_id == "a:00000"
    assert by_rank.candidates[0].score == pytest.approx(3 / 61)


def test_single_modes_keep_their_native_scores() -> None:
    retriever = build(make_chunks("a", TEXTS))
    dense = retriever.retrieve("radiator coolant engine", k=2, mode="dense")
    assert dense.candidates[0].chunk.chunk_id == "a:00001"
    assert 0 < dense.candidates[0].score <= 1.0 and dense.term_coverage is None
    bm25 = retriever.retrieve("radiator coolant engine", k=2, mode="bm25")
    assert list(bm25.candidates[0].sources) == ["bm25"] and bm25.best_similarity is None
    assert bm25.candidates[0].score > 1.0
    with pytest.raises(ConfigError):
        retriever.retrieve("x", k=2, mode="fuzzy")


def test_excluded_documents_and_vanished_chunks_never_come_back() -> None:
    chunks = make_chunks("a", TEXTS[:2]) + make_chunks("b", TEXTS[2:])
    lookup = MemoryLookup(chunks)
    del lookup.chunks["a:00001"]  # e.g. its document is being removed
    retriever = build(chunks, lookup)
    ids = [c.chunk.chunk_id for c in retriever.retrieve("coolant radiator filter", k=10).candidates]
    assert "a:00001" not in ids and "b:00000" in ids
    not_b = DocScope(exclude=frozenset("b"))
    kept = retriever.retrieve("coolant radiator filter", k=10, scope=not_b).candidates
    assert kept and all(c.chunk.doc_id == "a" for c in kept)
    only_b = DocScope(only=frozenset("b"))
    kept = retriever.retrieve("coolant radiator filter", k=10, scope=only_b).candidates
    assert kept and all(c.chunk.doc_id == "b" for c in kept)


def test_unrelated_query_is_flagged_as_insufficient_evidence() -> None:
    retriever = build(make_chunks("a", TEXTS))
    result = retriever.retrieve("banana smoothie ingredients", k=3)
    assert result.insufficient_evidence
    assert result.term_coverage == 0.0


def test_the_gate_accepts_either_signal() -> None:
    gate = EvidenceGate(min_similarity=0.3, min_term_coverage=0.6)
    assert gate.insufficient(0.1, 0.2)
    assert not gate.insufficient(0.5, 0.0)
    assert not gate.insufficient(0.1, 1.0)
    assert gate.insufficient(None, None)
    assert content_terms("What is the XK-4471-B?") == {"xk", "4471"}
    assert term_coverage("XK-4471-B gasket", ["gasket xk 4471"]) == 1.0
    assert term_coverage("the of", ["anything"]) == 0.0


class ReverseReranker:
    name = "reverse"

    def __init__(self) -> None:
        self.seen: list[str] = []

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        self.seen = list(texts)
        return [float(i) for i in range(len(texts))]


def test_rerank_reorders_only_the_head() -> None:
    items = [ScoredChunk(c, 1.0 - i / 10) for i, c in enumerate(make_chunks("a", TEXTS))]
    reranker = ReverseReranker()
    out = rerank(reranker, "q", items, top_n=3)
    assert [c.chunk.ordinal for c in out] == [2, 1, 0, 3]
    assert [c.score for c in out[:3]] == [2.0, 1.0, 0.0]
    assert out[3] == items[3]
    assert reranker.seen == TEXTS[:3]
    assert rerank(reranker, "q", [], top_n=3) == []


def test_identifiers_are_code_like_tokens_only() -> None:
    assert identifiers("where is XK-4471-B used") == ["xk-4471-b"]
    assert identifiers("error E1234 after v2.3.1") == ["e1234", "v2.3.1"]
    assert identifiers("in 2019 the well-known pump") == []


def test_exact_identifier_match_outranks_near_misses() -> None:
    texts = ["Gasket XK-4471-C fits series one pumps.", "Gasket XK-4471-B fits series two pumps.",
             "Gasket XK-4417-B fits series three pumps."]  # fmt: skip
    result = build(make_chunks("p", texts)).retrieve("XK-4471-B", k=3)
    assert result.candidates[0].chunk.ordinal == 1
    assert "exact" in result.candidates[0].sources
    assert all("exact" not in c.sources for c in result.candidates[1:])


class _FailingSparse:
    def search(self, query: str, k: int, scope: object = None) -> list[tuple[str, float]]:
        raise RuntimeError("sparse index broke")


def test_an_error_in_the_concurrent_bm25_search_reaches_the_caller() -> None:
    retriever = build(make_chunks("a", TEXTS))
    retriever.sparse = _FailingSparse()
    with pytest.raises(RuntimeError, match="sparse index broke"):
        retriever.retrieve("coolant radiator", k=2)
    assert retriever.retrieve("coolant radiator", k=2, mode="dense").candidates
