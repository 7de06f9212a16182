"""The facade that both the CLI and the GUI call. Qt-free; callbacks and cancel tokens only.

Each area is a service object that receives what it uses in its constructor (the context's
parts, and the services it calls); `Services` builds them over one AppContext and only delegates.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

from desktop_rag.bootstrap import AppContext
from desktop_rag.config import Settings, save_settings
from desktop_rag.services.answer import AnswerService
from desktop_rag.services.core import CoreService
from desktop_rag.services.library import LibraryService
from desktop_rag.services.rerankers import Rerankers
from desktop_rag.services.searching import SearchService
from desktop_rag.services.tables import TablesService

log = logging.getLogger(__name__)


def engine_changed(old: Settings, new: Settings) -> bool:
    """Whether `new` needs the chat model loaded anew: every `llm` setting is read when it is
    loaded, except `max_tokens`, which each answer reads."""
    def loaded_with(s: Settings) -> tuple[object, ...]:
        return s.profile, s.models.chat_model, dataclasses.replace(s.llm, max_tokens=0)

    return loaded_with(old) != loaded_with(new)


class Services:
    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self.rerankers = rerankers = Rerankers(ctx)
        self.tables = tables = TablesService(ctx)
        self.library = library = LibraryService(ctx, tables)
        self.searching = search = SearchService(ctx, rerankers)
        self.core = core = CoreService(ctx)
        self.answers = answers = AnswerService(ctx, search, core, search.focus_finder.focus)
        # library
        self.ingest, self.sync, self.remove, self.rename = (
            library.ingest, library.sync, library.remove, library.rename)
        self.unfollow, self.followed_folders, self.folders_to_watch = (
            library.unfollow, library.followed_folders, library.folders_to_watch)
        self.list_documents, self.get_document, self.document_chunks, self.get_chunks = (
            library.list_documents, library.get_document, library.document_chunks,
            library.get_chunks)
        self.scope_of, self.save_note, self.check_consistency = (
            library.scope_of, library.save_note, library.check_consistency)
        # the table pass (text first, tables after)
        self.enrich_tables, self.tables_pending = tables.enrich_tables, tables.tables_pending
        # search
        self.search, self.pack_context = search.search, search.pack_context
        self.reranker, self.available_rerankers = search.reranker, search.available_rerankers
        # answers and chats
        self.ask, self.engine_info = answers.ask, answers.engine_info
        self.new_chat, self.list_chats, self.chat_history, self.delete_chat = (
            answers.new_chat, answers.list_chats, answers.chat_history, answers.delete_chat)
        # the cached core
        self.core_add, self.core_remove, self.core_status, self.core_build = (
            core.core_add, core.core_remove, core.core_status, core.core_build)
        self.core_budget, self.core_context = core.core_budget, core.core_context

    # ---- settings and models ---------------------------------------------------------------
    @property
    def settings(self) -> Settings:
        return self.ctx.settings

    @property
    def data_dir(self) -> Path:
        return self.ctx.paths.data_dir

    def apply_settings(self, new: Settings) -> bool:
        """Saves `new` and puts it in place of the current settings, whole. True when the chat
        model changed: the caller then calls `reset_engine` where the engine runs."""
        changed = engine_changed(self.ctx.settings, new)
        save_settings(new, self.ctx.paths.settings_file)
        self.ctx.replace_settings(new)
        return changed

    def reset_engine(self) -> None:
        """Closes the chat model and what holds it (the re-rankers); the next use loads anew."""
        self.ctx.reset("engine")

    def warm_up(self) -> None:
        """Loads what the first ingestion or search needs (the embedder, the vector store), so
        the first real use is quick. Failures surface later, where they belong."""
        try:
            self.ctx.embedder.embed_query("warm up")
            _ = self.ctx.vectors
        except Exception:  # the real operation will report it with a message and hint
            log.debug("warm-up failed", exc_info=True)

    def close(self) -> None:
        self.ctx.close()


__all__ = ["Services", "engine_changed"]
