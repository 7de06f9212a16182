"""The part of the service facade the GUI calls, as a Protocol (real Services or a test fake)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from desktop_rag.bootstrap import AppContext
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
from desktop_rag.progress import CancelToken, ProgressCallback


class GuiServices(Protocol):
    ctx: AppContext

    def ingest(
        self,
        paths: Sequence[str | Path],
        progress: ProgressCallback = ...,
        cancel: CancelToken | None = None,
    ) -> IngestReport: ...

    def sync(
        self, progress: ProgressCallback = ..., cancel: CancelToken | None = None
    ) -> IngestReport: ...

    def followed_folders(self) -> list[FollowedFolder]: ...

    def folders_to_watch(self, limit: int = ...) -> list[str]: ...

    def unfollow(self, paths: Sequence[str | Path]) -> list[FileOutcome]: ...

    def remove(self, paths: Sequence[str | Path]) -> list[FileOutcome]: ...

    def rename(self, path: str | Path, title: str) -> Document: ...

    def list_documents(self) -> list[Document]: ...

    def document_chunks(self, doc_id: str) -> list[Chunk]: ...

    def get_chunks(self, chunk_ids: Sequence[str]) -> dict[str, Chunk]: ...

    def save_note(self, title: str, text: str) -> IngestReport: ...

    def ask(
        self,
        question: str,
        chat_id: str | None = None,
        k: int | None = None,
        on_token: Callable[[str], None] | None = None,
        cancel: CancelToken | None = None,
        scope: DocScope = ...,
        on_stage: Callable[[AnswerStage], None] | None = None,
    ) -> Answer: ...

    def new_chat(self) -> str: ...

    def list_chats(self) -> Sequence[Any]: ...

    def chat_history(self, chat_id: str) -> Sequence[Any]: ...

    def engine_info(self) -> dict[str, Any]: ...

    def core_add(self, paths: Sequence[str | Path]) -> Any: ...

    def core_remove(self, paths: Sequence[str | Path]) -> Any: ...

    def core_status(self) -> Any: ...

    def core_build(
        self, progress: ProgressCallback = ..., cancel: CancelToken | None = None
    ) -> Any: ...

    def close(self) -> None: ...
