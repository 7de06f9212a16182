"""Service facade: the CAG core (pinned documents always in context, KV state cached on disk)."""

from __future__ import annotations

import dataclasses
import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from desktop_rag.answering import prompts
from desktop_rag.answering.draft import CoreContext
from desktop_rag.bootstrap import AppContext
from desktop_rag.domain import EVERYWHERE, DocScope, Document
from desktop_rag.domain.errors import CoreTooLargeError, NotFoundError
from desktop_rag.domain.progress import CancelToken, ProgressCallback, ProgressEvent, no_progress
from desktop_rag.domain.protocols import ChatEngine, ChatMessage
from desktop_rag.llm.core_cache import (
    CoreCacheFiles,
    as_prefix_engine,
    cache_key,
    core_passages,
    model_sha256,
    prefix_tokens,
    supports_prefix_cache,
)
from desktop_rag.llm.worker import run_on_engine, unwrap
from desktop_rag.services.named_documents import documents_named

PROMPT_RESERVE = 256  # question, source tags and the chat template around them


class CoreState(StrEnum):
    """Where the core's cached state stands (the value is what `core list --json` prints)."""

    EMPTY = "empty"  # nothing pinned
    MISSING = "missing"  # pinned, never built
    BUILDING = "building"
    READY = "ready"
    STALE = "stale"  # built for other documents, settings or model
    SERVER_CACHE = "server-cache"  # an LLM server keeps the evaluated prefix
    UNCACHED = "uncached"  # the engine cannot save a state


@dataclass(frozen=True, slots=True)
class CoreDoc:
    doc_id: str
    path: str
    title: str
    tokens: int


@dataclass(frozen=True, slots=True)
class CoreStatus:
    docs: tuple[CoreDoc, ...]
    total_tokens: int
    budget: int
    state: CoreState
    cache_file: str | None = None
    cache_bytes: int = 0
    details: dict[str, Any] = field(default_factory=dict)


class CoreService:
    """Pins documents and builds the cached core over the context's catalog and engine."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx

    # ---- facade ----------------------------------------------------------------------------
    def core_add(self, paths: Sequence[str | Path]) -> CoreStatus:
        """Pins documents, under the library's writer lock. Over the budget, only the ones this
        call pinned are unpinned again: those pinned before stay pinned."""
        docs = [d for p in paths for d in self._library_documents(p)]
        with self.ctx.writer_lock:
            added = [d for d in docs if not d.is_core]
            for doc in added:
                self.ctx.catalog.set_core(doc.doc_id, True)
            status = self.core_status()
            if status.total_tokens > status.budget:
                for doc in added:
                    self.ctx.catalog.set_core(doc.doc_id, False)
                raise _too_large(status.total_tokens, status.budget, self.ctx)
        return status

    def core_remove(self, paths: Sequence[str | Path]) -> CoreStatus:
        docs = [d for p in paths for d in self._library_documents(p)]
        with self.ctx.writer_lock:
            for doc in docs:
                self.ctx.catalog.set_core(doc.doc_id, False)
        return self.core_status()

    def core_status(self) -> CoreStatus:
        """The pinned documents and their tokens, counted by the chat model's own tokenizer, as
        `core build` counts them: the total is the whole cached prefix (instructions included),
        so what `core add` and `core list` call fitting, the build accepts."""
        docs = self._core_documents()
        if not docs:
            return CoreStatus((), 0, self.core_budget(), CoreState.EMPTY)
        rows = tuple(CoreDoc(d.doc_id, d.path, d.title, self._doc_tokens(d.doc_id)) for d in docs)
        total = self._prefix_size(self.core_context())
        if self._server_backend():  # no state file: the server keeps the prefix evaluated
            url = {"server_url": self.ctx.settings.llm.server_url}
            return CoreStatus(rows, total, self.core_budget(), CoreState.SERVER_CACHE, details=url)
        core = self.core_context()
        files = self._core_files()
        path = files.state_path(core.key)
        size = path.stat().st_size if path.is_file() else 0
        details = files.meta(core.key) or {}
        return CoreStatus(
            rows,
            total,
            self.core_budget(),
            CoreState(files.state(core.key)),
            str(path),
            size,
            {k: v for k, v in details.items() if k != "key"},
        )

    def core_build(
        self, progress: ProgressCallback = no_progress, cancel: CancelToken | None = None
    ) -> CoreStatus:
        core = self.core_context()
        if not core.passages:
            return self.core_status()
        if not supports_prefix_cache(unwrap(self.ctx.engine)):
            return self._warm_prompt_cache(core, progress, cancel)
        progress(ProgressEvent("build", 0, 1, f"prefilling {len(core.passages)} core passages"))
        run_on_engine(self.ctx.engine, lambda e: self._build_on(e, core, cancel))
        progress(ProgressEvent("build", 1, 1, "core cache saved"))
        return self.core_status()

    # ---- helpers used by answers -----------------------------------------------------------
    def core_budget(self) -> int:
        s = self.ctx.settings
        reserve = s.retrieval.context_tokens + s.llm.max_tokens + PROMPT_RESERVE
        return max(s.llm.context_size - reserve, 0)

    def core_context(self, scope: DocScope = EVERYWHERE) -> CoreContext:
        """The core for a question over `scope`: none unless it is the whole library."""
        docs = self._core_documents() if scope.whole_library else []
        passages = core_passages([self.ctx.catalog.chunks_of(d.doc_id) for d in docs])
        system = prompts.system_message(passages)
        if not docs:
            return CoreContext(frozenset(), (), system, {})
        key = cache_key(self._identity(), prompts.prompt_fingerprint(), [d.sha256 for d in docs])
        key["system_sha256"] = hashlib.sha256(system.encode()).hexdigest()
        return CoreContext(frozenset(d.doc_id for d in docs), tuple(passages), system, key)

    def _warm_prompt_cache(
        self, core: CoreContext, progress: ProgressCallback, cancel: CancelToken | None
    ) -> CoreStatus:
        """An engine without a saved KV state (an LLM server): sends the core prefix once with
        max_tokens=1, so a server that reuses prompt prefixes has it evaluated already."""
        engine = self.ctx.engine
        tokens = engine.count_tokens(core.system)
        if tokens > self.core_budget():
            raise _too_large(tokens, self.core_budget(), self.ctx)
        progress(ProgressEvent("build", 0, 1, f"sending {len(core.passages)} core passages"))
        start = time.perf_counter()
        generation = engine.generate(
            [ChatMessage("system", core.system), ChatMessage("user", "?")], 1, None, cancel
        )
        progress(ProgressEvent("build", 1, 1, "core prefix sent to the model"))
        state = CoreState.SERVER_CACHE if self._server_backend() else CoreState.UNCACHED
        details = {
            "tokens": tokens,
            "prompt_tokens": generation.prompt_tokens,
            "warm_ms": round((time.perf_counter() - start) * 1000, 2),
        }
        return dataclasses.replace(self.core_status(), state=state, details=details)

    def _prefix_size(self, core: CoreContext) -> int:
        """The core prefix's tokens exactly as a build counts them (chat template included)."""
        engine = self.ctx.engine
        if supports_prefix_cache(unwrap(engine)):
            return run_on_engine(
                engine, lambda e: len(prefix_tokens(as_prefix_engine(e), core.system)))
        return engine.count_tokens(core.system)

    def _server_backend(self) -> bool:
        return self.ctx.settings.llm.backend == "server"

    def _build_on(
        self, chat: ChatEngine, core: CoreContext, cancel: CancelToken | None
    ) -> None:
        engine = as_prefix_engine(chat)
        tokens = prefix_tokens(engine, core.system)
        if len(tokens) > self.core_budget():
            raise _too_large(len(tokens), self.core_budget(), self.ctx)
        self._core_files().build(engine, core.key, tokens, cancel)

    def _core_files(self) -> CoreCacheFiles:
        return CoreCacheFiles(self.ctx.paths.core_cache_dir)

    def engine_identity(self) -> dict[str, Any]:
        """Every part of the chat model's set-up that changes a saved KV state."""
        return self._identity()

    def _identity(self) -> dict[str, Any]:
        from desktop_rag.llm.llama_loading import gpu_offload_supported, resolve_gpu_layers

        llm = self.ctx.settings.llm
        if self._server_backend():  # never assemble the local model for a server
            engine = self.ctx.engine.name
            return {"backend": "server", "server_url": llm.server_url, "model": engine}
        model = self.ctx.registry.chat_model_path()
        return {
            "model_sha256": model_sha256(model, self.ctx.paths.model_cache_dir),  # shared memo
            "context_size": llm.context_size,
            "kv_type": "f16",
            "gpu_layers": resolve_gpu_layers(llm.gpu_layers, gpu_offload_supported()),
            "batch_size": llm.batch_size,
        }

    def _core_documents(self) -> list[Document]:
        ids = self.ctx.catalog.core_doc_ids()
        docs = [d for d in (self.ctx.catalog.get_document(i) for i in ids) if d is not None]
        return sorted(docs, key=lambda d: (d.path, d.doc_id))

    def _doc_tokens(self, doc_id: str) -> int:
        """A document's share of the core prefix: its sources as the prompt writes them."""
        passages = core_passages([self.ctx.catalog.chunks_of(doc_id)])
        return self.ctx.engine.count_tokens(prompts.format_sources(passages))

    def _library_documents(self, path: str | Path) -> list[Document]:
        """The documents `path` names, found as every other command finds them."""
        docs = documents_named(self.ctx.catalog, path)
        if not docs:
            raise NotFoundError(f"{path} is not in the library", "ingest it first, then add it")
        return docs


def _too_large(tokens: int, budget: int, ctx: AppContext) -> CoreTooLargeError:
    llm = ctx.settings.llm
    return CoreTooLargeError(
        f"The core needs {tokens} tokens but its budget is {budget} (context {llm.context_size} "
        f"minus room for retrieved passages and the answer)",
        "remove a document from the core, or raise llm.context_size",
    )
