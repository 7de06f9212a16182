"""Helpers for the answer, core and LLM tests: library documents and a tiny search mixin."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from desktop_rag.bootstrap import AppContext, build_context
from desktop_rag.config import Settings
from desktop_rag.domain import (
    EVERYWHERE,
    Chunk,
    DocKind,
    DocScope,
    DocStatus,
    Document,
    Passage,
    ScoredChunk,
    SearchResult,
)
from desktop_rag.domain.fakes import HashEmbedder, InMemoryVectorIndex, WordTokenCounter
from desktop_rag.services.answer import AnswerService
from desktop_rag.services.core import CoreService


def tiny_context(data_dir: str, engine: Any, max_tokens: int) -> AppContext:
    """A tiny-profile context: the given real chat engine, fake embedder, vectors and counter."""
    settings = Settings(profile="tiny").updated(
        {"llm.context_size": 4096, "llm.max_tokens": max_tokens}
    )
    return build_context(
        data_dir,
        settings=settings,
        overrides={
            "embedder": HashEmbedder(),
            "vectors": InMemoryVectorIndex(),
            "token_counter": WordTokenCounter(),
            "engine": engine,
        },
    )


def add_document(ctx: Any, path: str, title: str, pages: Sequence[str]) -> Document:
    """Indexes one document with one chunk per page into the catalog and the vectors."""
    doc_id = hashlib.sha256(path.encode()).hexdigest()[:16]
    sha = hashlib.sha256("".join(pages).encode()).hexdigest()
    chunks = [
        Chunk(
            f"{doc_id}-{i}",
            doc_id,
            path,
            title,
            DocKind.PDF,
            text,
            i,
            (i + 1,),
            (0, len(text)),
            token_count=len(text.split()),
        )
        for i, text in enumerate(pages)
    ]
    doc = Document(
        doc_id, path, title, DocKind.PDF, sha, 100, 1.0, len(pages), len(chunks), DocStatus.PENDING
    )
    ctx.catalog.add_pending(doc, chunks)
    ctx.catalog.finalize(doc_id)
    vectors = ctx.embedder.embed_documents([c.text for c in chunks])
    ctx.vectors.upsert([c.chunk_id for c in chunks], vectors, [doc_id] * len(chunks))
    return doc


class TinySearch:
    """Dense search over ctx.vectors, the shape of SearchService.search and pack_context."""

    min_score = 0.2

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx

    def search(
        self,
        query: str,
        k: int | None = None,
        mode: str = "hybrid",
        rerank: str | None = None,
        scope: DocScope = EVERYWHERE,
    ) -> SearchResult:
        hits = self.ctx.vectors.query(self.ctx.embedder.embed_query(query), k or 3, scope)
        chunks = self.ctx.catalog.get_chunks([cid for cid, _ in hits])
        results = tuple(ScoredChunk(chunks[cid], score) for cid, score in hits if cid in chunks)
        weak = not results or results[0].score < self.min_score
        return SearchResult(query, mode, "none", weak, results, {"rerank_ms": 0.0})

    def pack_context(
        self, result: SearchResult, budget_tokens: int, first_n: int = 1
    ) -> list[Passage]:
        return [
            Passage(i + 1, s.chunk, s.chunk.text, s.score) for i, s in enumerate(result.results)
        ]


class AnswerServices:
    """The answer and core services over a TinySearch (or a subclass given as `search`)."""

    def __init__(self, ctx: Any, search: type[TinySearch] = TinySearch) -> None:
        self.ctx = ctx
        self.searcher = search(ctx)
        self.core = CoreService(ctx)
        self.answers = AnswerService(ctx, self.searcher, self.core)
        self.ask, self.new_chat, self.chat_history, self.list_chats = (
            self.answers.ask, self.answers.new_chat, self.answers.chat_history,
            self.answers.list_chats)
        self.delete_chat, self.engine_info = self.answers.delete_chat, self.answers.engine_info
        self.core_add, self.core_remove, self.core_status, self.core_build = (
            self.core.core_add, self.core.core_remove, self.core.core_status,
            self.core.core_build)
        self.core_budget, self.core_context = self.core.core_budget, self.core.core_context
        self.search, self.pack_context = self.searcher.search, self.searcher.pack_context
