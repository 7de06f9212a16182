"""Hybrid retrieval: dense (embedder + vector index) and BM25 over the same chunks, over-fetched,
fused (z-scored convex combination by default, or weighted Reciprocal Rank Fusion), then gated by
the evidence threshold."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from desktop_rag.domain import EVERYWHERE, Chunk, DocScope, ScoredChunk
from desktop_rag.domain.errors import ConfigError
from desktop_rag.domain.protocols import ChunkLookup, Embedder, PageLookup, SparseIndex, VectorIndex
from desktop_rag.retrieval.doc_prior import with_document_prior
from desktop_rag.retrieval.evidence import EvidenceGate, term_coverage
from desktop_rag.retrieval.fusion import DEFAULT_RRF_K, Fused, rrf_fuse, zscore_fuse
from desktop_rag.retrieval.pages import page_references
from desktop_rag.retrieval.ratio_terms import ratio_terms

MODES = ("hybrid", "dense", "bm25")
DENSE, SPARSE, EXACT, PAGE = "dense", "bm25", "exact", "page"
MAX_PAGE_SCOPE = 20  # page references count in searches within at most this many documents
# Code-like tokens (part numbers, error codes, versions): a digit plus a letter or a separator.
_IDENTIFIER = re.compile(r"(?<![\w-])(?=[\w.-]*\d)(?=[\w.-]*[A-Za-z_-])[\w]+(?:[-./][\w]+)*")


def identifiers(query: str) -> list[str]:
    """Code-like tokens of `query`, lower-cased: `XK-4471-B`, `E1234`, `v2.3.1`."""
    return [m.group(0).lower() for m in _IDENTIFIER.finditer(query) if len(m.group(0)) >= 3]


@dataclass(frozen=True, slots=True)
class HybridConfig:
    fetch_k: int = 80
    fusion: str = "zscore"  # or "rrf"
    rrf_k: int = DEFAULT_RRF_K
    dense_weight: float = 1.0
    sparse_weight: float = 1.0
    exact_weight: float = 1.0  # the exact-identifier list (hybrid mode, code-like queries only)
    page_weight: float = 3.0  # passages on pages the question names come first (within documents)
    doc_weight: float = 0.0  # hybrid, many documents: a gain for the passages of well-matched ones
    doc_chunks: int = 3  # ...a document's match: the sum of its best this many passages' scores
    ratio_terms: bool = True  # BM25 also looks for the statement lines a named ratio needs
    gate: EvidenceGate = field(default_factory=EvidenceGate)


def fuse(lists: dict[str, list[tuple[str, float]]], config: HybridConfig) -> list[Fused]:
    """Dense, BM25, exact-identifier and named-page hits as one ranking, by the configured fusion.

    With score fusion the exact and page lists are bonuses of `exact_weight` / `page_weight`
    deviations rather than scores of their own (the exact list's scores are BM25's again)."""
    weights = {
        DENSE: config.dense_weight, SPARSE: config.sparse_weight,
        EXACT: config.exact_weight, PAGE: config.page_weight,
    }
    if config.fusion == "rrf":
        rankings = {name: [cid for cid, _ in hits] for name, hits in lists.items()}
        return rrf_fuse(rankings, weights, config.rrf_k)
    gains = {EXACT: config.exact_weight, PAGE: config.page_weight}
    scored = {name: hits for name, hits in lists.items() if name not in gains}
    bonus = {
        name: ([cid for cid, _ in lists[name]], gain)
        for name, gain in gains.items()
        if lists.get(name)
    }
    return zscore_fuse(scored, weights, bonus)


@dataclass(slots=True)
class Retrieval:
    """Candidates best first, with what the evidence gate saw and per-stage timings."""

    candidates: list[ScoredChunk]
    insufficient_evidence: bool
    best_similarity: float | None = None
    term_coverage: float | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)
    added_terms: str = ""  # words the keyword search looked for besides the query's


@contextmanager
def timed(timings: dict[str, float], name: str) -> Iterator[None]:
    start = time.perf_counter()
    try:
        yield
    finally:
        timings[name] = timings.get(name, 0.0) + (time.perf_counter() - start) * 1000


class _InThread:
    """One call on a short-lived thread; `result()` waits and re-raises its exception."""

    def __init__(self, call: Callable[[], list[tuple[str, float]]]) -> None:
        self._call = call
        self._value: list[tuple[str, float]] = []
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="bm25-search", daemon=True)

    def _run(self) -> None:
        try:
            self._value = self._call()
        except BaseException as exc:  # handed to the caller by result()
            self._error = exc

    def start(self) -> None:
        self._thread.start()

    def result(self) -> list[tuple[str, float]]:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value


def _with_terms(query: str, added: str) -> str:
    return f"{query} {added}" if added else query


def _many_documents(scope: DocScope) -> bool:
    return scope.included is None or len(scope.included) > 1


class HybridRetriever:
    def __init__(
        self,
        embedder: Embedder,
        vectors: VectorIndex,
        sparse: SparseIndex,
        lookup: ChunkLookup,
        config: HybridConfig | None = None,
        pages: PageLookup | None = None,
    ) -> None:
        self.embedder = embedder
        self.vectors = vectors
        self.sparse = sparse
        self.lookup = lookup
        self.config = config or HybridConfig()
        self.pages = pages

    def dense(
        self,
        query: str,
        n: int,
        scope: DocScope = EVERYWHERE,
        timings: dict[str, float] | None = None,
    ) -> list[tuple[str, float]]:
        timings = {} if timings is None else timings
        with timed(timings, "embed_ms"):
            vector = self.embedder.embed_query(query)
        with timed(timings, "dense_ms"):
            return self.vectors.query(vector, n, scope)

    def bm25(
        self,
        query: str,
        n: int,
        scope: DocScope = EVERYWHERE,
        timings: dict[str, float] | None = None,
    ) -> list[tuple[str, float]]:
        with timed({} if timings is None else timings, "bm25_ms"):
            return self.sparse.search(query, n, scope)

    def added_terms(self, query: str) -> str:
        """The statement lines of a financial ratio the query names (retrieval/ratio_terms.py),
        for the keyword search, so the statements that hold them are found too."""
        return ratio_terms(query) if self.config.ratio_terms else ""

    def lexical_query(self, query: str) -> str:
        return _with_terms(query, self.added_terms(query))

    def _both(
        self, query: str, words: str, n: int, scope: DocScope, timings: dict[str, float]
    ) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
        """Dense hits for `query` and BM25 hits for `words`; BM25 runs on its own thread while
        the query is embedded and searched (SQLite, torch and Chroma release the GIL), so the
        slower one sets the pace."""
        lexical_timings: dict[str, float] = {}
        lexical = _InThread(lambda: self.bm25(words, n, scope, lexical_timings))
        lexical.start()
        try:
            dense = self.dense(query, n, scope, timings)
        finally:
            sparse = lexical.result()
        timings.update(lexical_timings)
        return dense, sparse

    def exact(self, codes: list[str], hits: list[tuple[str, float]]) -> list[tuple[str, float]]:
        """The lexical hits that contain every identifier verbatim, in BM25 order.

        Fusion sees this as a third ranking, so an exact part number or error code that the
        embedder cannot tell from its neighbours (XK-4471-B vs XK-4471-C) still comes first.
        """
        chunks = self.lookup.get_chunks([cid for cid, _ in hits])
        return [
            (cid, score)
            for cid, score in hits
            if cid in chunks and all(code in chunks[cid].text.lower() for code in codes)
        ]

    def named_pages(self, query: str, scope: DocScope) -> list[tuple[str, float]]:
        """Passages on the pages the query names, within a scope of a few documents (across a
        whole library "page 3" names a page of every document)."""
        chosen = scope.included
        if self.pages is None or chosen is None or not 0 < len(chosen) <= MAX_PAGE_SCOPE:
            return []
        named = page_references(query)
        return [(cid, 1.0) for cid in self.pages.chunk_ids_on_pages(chosen, named)] if named else []

    def retrieve(
        self, query: str, k: int, mode: str = "hybrid", scope: DocScope = EVERYWHERE
    ) -> Retrieval:
        """The top `k` candidates within `scope` (at least `fetch_k` are fetched per retriever)."""
        if mode not in MODES:
            raise ConfigError(f"Unknown search mode {mode!r}", f"use one of: {', '.join(MODES)}")
        timings: dict[str, float] = {}
        n = max(k, self.config.fetch_k)
        lists: dict[str, list[tuple[str, float]]] = {}
        added = self.added_terms(query) if mode != "dense" else ""
        words = _with_terms(query, added)
        if mode == "hybrid":
            lists[DENSE], lists[SPARSE] = self._both(query, words, n, scope, timings)
        elif mode == "dense":
            lists[DENSE] = self.dense(query, n, scope, timings)
        else:
            lists[SPARSE] = self.bm25(words, n, scope, timings)
        if mode == "hybrid" and identifiers(query):
            with timed(timings, "exact_ms"):
                lists[EXACT] = self.exact(identifiers(query), lists[SPARSE])
        if mode == "hybrid":
            lists[PAGE] = self.named_pages(query, scope)
        with timed(timings, "fuse_ms"):
            scored = self._combine(lists, mode)
        if mode == "hybrid" and self.config.doc_weight > 0 and _many_documents(scope):
            with timed(timings, "doc_prior_ms"):
                c = self.config
                scored = with_document_prior(scored, c.doc_weight, c.doc_chunks)
        with timed(timings, "lookup_ms"):
            candidates = self._materialise(scored, k)
        found = self._gate(query, lists, candidates, timings)
        found.added_terms = added
        return found

    def _combine(
        self, lists: dict[str, list[tuple[str, float]]], mode: str
    ) -> list[tuple[str, float, dict[str, int]]]:
        if mode != "hybrid":
            name, hits = next(iter(lists.items()))
            return [(cid, score, {name: r}) for r, (cid, score) in enumerate(hits, start=1)]
        return [(f.chunk_id, f.score, f.ranks) for f in fuse(lists, self.config)]

    def _materialise(
        self, scored: list[tuple[str, float, dict[str, int]]], k: int
    ) -> list[ScoredChunk]:
        """Chunks of the best `k` ids that are still searchable (a vanished chunk is skipped)."""
        out: list[ScoredChunk] = []
        start = 0
        while len(out) < k and start < len(scored):
            window = scored[start : start + 2 * k]
            chunks: dict[str, Chunk] = self.lookup.get_chunks([cid for cid, _, _ in window])
            out += [ScoredChunk(chunks[c], s, r) for c, s, r in window if c in chunks]
            start += len(window)
        return out[:k]

    def _gate(
        self,
        query: str,
        lists: dict[str, list[tuple[str, float]]],
        candidates: list[ScoredChunk],
        timings: dict[str, float],
    ) -> Retrieval:
        dense_hits = lists.get(DENSE)
        best = (max((s for _, s in dense_hits), default=0.0)) if dense_hits is not None else None
        coverage = None
        if SPARSE in lists:
            coverage = term_coverage(query, (c.chunk.text for c in candidates))
        weak = not candidates or self.config.gate.insufficient(best, coverage)
        return Retrieval(candidates, weak, best, coverage, timings)
