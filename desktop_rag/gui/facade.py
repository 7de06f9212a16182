"""The part of the service facade the GUI calls, as a Protocol (real Services or a test fake).

Every member returns the real domain types, so the GUI reads their fields directly and mypy
checks both the real facade and the test fake against this one description. The application
context stays behind it: the GUI asks for settings, the data folder, a settings change, an
engine reset and a warm-up, never for the context's parts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from desktop_rag.config import Settings
from desktop_rag.domain import (
    Answer,
    AnswerStage,
    Chunk,
    DocScope,
    Document,
    FileOutcome,
    FollowedFolder,
    IngestReport,
)
from desktop_rag.domain.outcomes import TablesReport
from desktop_rag.domain.progress import CancelToken, ProgressCallback
from desktop_rag.services.core import CoreStatus
from desktop_rag.services.ports import EngineInfo
from desktop_rag.store.chats import ChatSummary, ChatTurn


class GuiServices(Protocol):
    # ---- settings and resources ----------------------------------------------------------
    @property
    def settings(self) -> Settings:
        """The current settings (frozen: a change replaces them through `apply_settings`)."""
        ...

    @property
    def data_dir(self) -> Path: ...

    def apply_settings(self, new: Settings) -> bool:
        """Saves and applies `new`; True when the chat model changed (then `reset_engine`)."""
        ...

    def reset_engine(self) -> None:
        """Closes the chat model and what holds it (on the LLM worker)."""
        ...

    def warm_up(self) -> None:
        """Loads the embedder and the vector store ahead of first use (logs its failures)."""
        ...

    # ---- library -------------------------------------------------------------------------
    def ingest(
        self,
        paths: Sequence[str | Path],
        progress: ProgressCallback = ...,
        cancel: CancelToken | None = None,
        tables_now: bool = ...,
    ) -> IngestReport:
        """The GUI passes tables_now=False: the text is searchable at once, and the table pass
        runs as a job of its own after it (`enrich_tables`)."""
        ...

    def sync(
        self, progress: ProgressCallback = ..., cancel: CancelToken | None = None,
        tables_now: bool = ...,
    ) -> IngestReport: ...

    def enrich_tables(
        self, progress: ProgressCallback = ..., cancel: CancelToken | None = None
    ) -> TablesReport: ...

    def tables_pending(self) -> dict[str, int]:
        """Documents searchable from their text whose tables are still to be read -> how many
        of their pages look tabular."""
        ...

    def followed_folders(self) -> list[FollowedFolder]: ...

    def folders_to_watch(self, limit: int = ...) -> list[str]: ...

    def unfollow(self, paths: Sequence[str | Path]) -> list[FileOutcome]: ...

    def remove(self, paths: Sequence[str | Path]) -> list[FileOutcome]: ...

    def rename(self, path: str | Path, title: str) -> Document: ...

    def list_documents(self) -> list[Document]: ...

    def document_chunks(self, doc_id: str) -> list[Chunk]: ...

    def get_chunks(self, chunk_ids: Sequence[str]) -> dict[str, Chunk]: ...

    def save_note(self, title: str, text: str) -> IngestReport: ...

    # ---- answers -------------------------------------------------------------------------
    def ask(
        self,
        question: str,
        chat_id: str | None = None,
        k: int | None = None,
        on_token: Callable[[str], None] | None = None,
        cancel: CancelToken | None = None,
        scope: DocScope = ...,
        on_stage: Callable[[AnswerStage], None] | None = None,
        route: str | None = None,
    ) -> Answer: ...

    def new_chat(self) -> str: ...

    def list_chats(self) -> list[ChatSummary]: ...

    def chat_history(self, chat_id: str) -> list[ChatTurn]: ...

    def engine_info(self) -> EngineInfo: ...

    # ---- core ----------------------------------------------------------------------------
    def core_add(self, paths: Sequence[str | Path]) -> CoreStatus: ...

    def core_remove(self, paths: Sequence[str | Path]) -> CoreStatus: ...

    def core_status(self) -> CoreStatus: ...

    def core_build(
        self, progress: ProgressCallback = ..., cancel: CancelToken | None = None
    ) -> CoreStatus: ...

    def close(self) -> None: ...
