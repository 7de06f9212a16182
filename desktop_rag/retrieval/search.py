"""Search as one component: hybrid retrieval (the documents a question names first), re-ranking,
the page where each result matches, and packing under a token budget. It takes what it uses in
its constructor (services/search.py builds it over the app's context); the lookup and compare
routes call it through the `SearchPort` protocol."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass

from desktop_rag.config import RetrievalSettings
from desktop_rag.domain import EVERYWHERE, DocFocus, DocScope, Passage, ScoredChunk, SearchResult
from desktop_rag.domain.protocols import Reranker
from desktop_rag.retrieval import rerank as rr
from desktop_rag.retrieval.hybrid import HybridRetriever, Retrieval
from desktop_rag.retrieval.packing import Packer
from desktop_rag.text.locate import matching_page
from desktop_rag.text.words import STOPWORDS

OTHERS_SHARE = 5  # a focused search keeps one place in five for the documents not named
WIDER = 3  # ...found among this many times the places in the search of the whole scope


def _placed(query: str, item: ScoredChunk) -> ScoredChunk:
    """The result with the page where the query matches best (a chunk may span two)."""
    page = matching_page(item.chunk, query, STOPWORDS)
    return dataclasses.replace(item, match_page=page)


@dataclass(frozen=True, slots=True)
class SearchParts:
    """What search calls: the retriever (built over the current stores), the re-ranker a name
    stands for, the documents a question names, the retrieval settings and the packer."""

    retriever: Callable[[], HybridRetriever]
    reranker: Callable[[str | None], tuple[str, Reranker | None]]
    named: Callable[[str, DocScope], DocFocus | None]
    settings: Callable[[], RetrievalSettings]
    packer: Callable[[], Packer]


class Search:
    """Hybrid retrieval, re-ranking and packing (see the module text)."""

    def __init__(self, parts: SearchParts) -> None:
        self.parts = parts

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
        k = k or self.parts.settings().top_k
        name, reranker = self.parts.reranker(rerank)
        depth = max(k, self.parts.settings().rerank_candidates) if reranker else k
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
        if not self.parts.settings().focus_named:
            return None
        return self.parts.named(query, scope)

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
        retriever = self.parts.retriever()
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
        return self.parts.packer().pack(result.results, budget_tokens, first_n)
