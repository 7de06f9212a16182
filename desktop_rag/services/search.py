"""Service facade: search operations (hybrid retrieval, re-ranking, context packing)."""

from __future__ import annotations

import dataclasses
import time

from desktop_rag.bootstrap import AppContext
from desktop_rag.domain import EVERYWHERE, DocFocus, DocScope, Passage, ScoredChunk, SearchResult
from desktop_rag.domain.protocols import Reranker
from desktop_rag.retrieval import rerank as rr
from desktop_rag.retrieval.evidence import EvidenceGate
from desktop_rag.retrieval.hybrid import HybridConfig, HybridRetriever, Retrieval
from desktop_rag.retrieval.packing import Packer
from desktop_rag.services.doc_focus import FocusFinder
from desktop_rag.services.rerankers import Rerankers
from desktop_rag.text.locate import matching_page
from desktop_rag.text.words import STOPWORDS

OTHERS_SHARE = 5  # a focused search keeps one place in five for the documents not named
WIDER = 3  # ...found among this many times the places in the search of the whole scope


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


def _placed(query: str, item: ScoredChunk) -> ScoredChunk:
    """The result with the page where the query matches best (a chunk may span two)."""
    page = matching_page(item.chunk, query, STOPWORDS)
    return dataclasses.replace(item, match_page=page)


class SearchService:
    """Hybrid retrieval, re-ranking and packing over the context's stores and models."""

    def __init__(self, ctx: AppContext, rerankers: Rerankers) -> None:
        self.ctx = ctx
        self.rerankers = rerankers
        self.focus_finder = FocusFinder(ctx.catalog, ctx.paths.doc_profiles_file)

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

    def search(
        self,
        query: str,
        k: int | None = None,
        mode: str = "hybrid",
        rerank: str | None = None,
        scope: DocScope = EVERYWHERE,
    ) -> SearchResult:
        """The best `k` chunks for `query` among the documents `scope` allows."""
        start = time.perf_counter()
        k = k or self.ctx.settings.retrieval.top_k
        name, reranker = self.reranker(rerank)
        depth = max(k, self.ctx.settings.retrieval.rerank_candidates) if reranker else k
        focus = self.named_documents(query, scope)
        found = self._retrieve(query, depth, mode, scope, focus)
        results = found.candidates
        if reranker is not None:
            began = time.perf_counter()
            results = rr.rerank(reranker, query, results, len(results))
            found.timings_ms["rerank_ms"] = (time.perf_counter() - began) * 1000
        found.timings_ms["total_ms"] = (time.perf_counter() - start) * 1000
        placed = tuple(_placed(query, item) for item in results[:k])
        weak = found.insufficient_evidence
        return SearchResult(
            query, mode, name, weak, placed, found.timings_ms, focus, found.added_terms
        )

    def named_documents(self, query: str, scope: DocScope) -> DocFocus | None:
        """The documents `query` names within `scope`, when the setting allows and it is clear."""
        if not self.ctx.settings.retrieval.focus_named:
            return None
        return self.focus_finder.focus(query, scope)

    def _retrieve(
        self, query: str, depth: int, mode: str, scope: DocScope, focus: DocFocus | None
    ) -> Retrieval:
        """Candidates from the named documents first, the rest of `scope` after them.

        The rest keeps one place in OTHERS_SHARE (the last ones): a match can be wrong, and then
        those are where the answer is. On MMLongBench over the whole library, focused searches
        with that share found the evidence page in the top 10 for 0.681 of the questions, 0.662
        without it and 0.662 unfocused (0.644, 0.621 and 0.629 on the third of the questions the
        matcher was not tuned on). The others come from the scope's own search, less the named
        documents, rather than from a search that excludes them: Chroma's `$nin` query failed
        ("Error finding id") while another process was adding chunks, and a search of the whole
        library is what ran before the focus, filterless."""
        retriever = self.retriever()
        if focus is None:
            return retriever.retrieve(query, depth, mode, scope)
        began = time.perf_counter()
        found = retriever.retrieve(query, depth, mode, DocScope(only=frozenset(focus.doc_ids)))
        named = set(focus.doc_ids)
        wider = retriever.retrieve(query, WIDER * depth, mode, scope)  # filtered here: see below
        others = [c for c in wider.candidates if c.chunk.doc_id not in named]
        kept = found.candidates[: depth - depth // OTHERS_SHARE]
        found.candidates[:] = (kept + others)[:depth]
        found.timings_ms["focus_ms"] = (time.perf_counter() - began) * 1000
        return found

    def pack_context(
        self, result: SearchResult, budget_tokens: int, first_n: int = 1
    ) -> list[Passage]:
        """Numbered passages for the answer step, within `budget_tokens` tiktoken tokens."""
        packer = Packer(self.ctx.token_counter, self.ctx.catalog)
        return packer.pack(result.results, budget_tokens, first_n)
