"""Service facade: search over the app's context (retrieval/search.py does the work), and the
re-rankers a user can choose."""

from __future__ import annotations

from desktop_rag.bootstrap import AppContext
from desktop_rag.domain.protocols import Reranker
from desktop_rag.retrieval.doc_focus import FocusFinder
from desktop_rag.retrieval.evidence import EvidenceGate
from desktop_rag.retrieval.hybrid import HybridConfig, HybridRetriever
from desktop_rag.retrieval.packing import Packer
from desktop_rag.retrieval.search import Search, SearchParts
from desktop_rag.services.rerankers import Rerankers


def hybrid_config(ctx: AppContext) -> HybridConfig:
    s = ctx.settings.retrieval
    gate = EvidenceGate(s.min_similarity, s.min_term_coverage)
    return HybridConfig(
        fetch_k=s.fetch_k,
        fusion=s.fusion,
        rrf_k=s.rrf_k,
        dense_weight=s.dense_weight,
        sparse_weight=s.sparse_weight,
        gate=gate,
        doc_weight=s.doc_prior,
        doc_chunks=s.doc_prior_passages,
        ratio_terms=s.ratio_terms,
    )


class SearchService(Search):
    """Search built over the context's stores and models; the re-rankers by name."""

    def __init__(self, ctx: AppContext, rerankers: Rerankers) -> None:
        self.ctx = ctx
        self.rerankers = rerankers
        self.focus_finder = FocusFinder(ctx.catalog, ctx.paths.doc_profiles_file)
        super().__init__(SearchParts(
            self.retriever, rerankers.get, self.focus_finder.focus,
            lambda: ctx.settings.retrieval, lambda: Packer(ctx.token_counter, ctx.catalog),
        ))  # fmt: skip

    def retriever(self) -> HybridRetriever:
        c = self.ctx
        return HybridRetriever(
            c.embedder, c.vectors, c.sparse, c.catalog, hybrid_config(c), pages=c.catalog
        )

    def reranker(self, name: str | None = None) -> tuple[str, Reranker | None]:
        """The re-ranker `name` stands for, loaded once per context; `auto` falls back to none."""
        return self.rerankers.get(name)

    def available_rerankers(self) -> list[str]:
        return self.rerankers.available()
