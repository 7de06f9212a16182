"""A small in-memory stand-in for the service facade, for fast GUI tests.

It reads real PDFs with PyMuPDF (so line boxes are genuine) and streams a scripted answer; the
real-facade tests in test_gui_real.py cover the actual services.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from desktop_rag.bootstrap import AppContext
from desktop_rag.domain import (
    EVERYWHERE,
    Answer,
    AnswerStage,
    Chunk,
    Citation,
    DocKind,
    DocScope,
    DocStatus,
    Document,
    FileOutcome,
    FollowedFolder,
    IngestReport,
    LineBox,
    Outcome,
    Passage,
    Stage,
)
from desktop_rag.errors import CancelledError, NotFoundError
from desktop_rag.progress import CancelToken, ProgressCallback, ProgressEvent, no_progress

DEFAULT_REPLY = "The main telescope was completed in **1987** [1]. The moon is cheese."


@dataclass
class FakeChat:
    chat_id: str
    title: str
    turns: list[Answer] = field(default_factory=list)


def pdf_chunks(path: Path, doc_id: str) -> list[Chunk]:
    """One chunk per text line, with the line's real box."""
    import pymupdf

    chunks: list[Chunk] = []
    with pymupdf.open(str(path)) as doc:
        for page_no, page in enumerate(doc, start=1):
            for block in page.get_text("dict")["blocks"]:
                for line in block.get("lines", []):
                    text = "".join(s["text"] for s in line["spans"])
                    box = LineBox(page_no, *line["bbox"])
                    chunks.append(Chunk(f"{doc_id}:{len(chunks)}", doc_id, str(path), path.stem,
                                        DocKind.PDF, text, len(chunks), (page_no,), (0, len(text)),
                                        (box,)))
    return chunks


class FakeServices:
    def __init__(self, ctx: AppContext, reply: str = "", token_delay: float = 0.0) -> None:
        self.ctx = ctx
        self.reply = reply or DEFAULT_REPLY
        self.token_delay = token_delay
        self.prefill_steps = 0  # steps of the reading stage, each `prefill_delay` s long
        self.prefill_delay = 0.0
        self.file_delay = 0.0
        self.docs: dict[str, Document] = {}
        self.chunks: dict[str, list[Chunk]] = {}
        self.chats: dict[str, FakeChat] = {}
        self.core: set[str] = set()
        self.threads: set[str] = set()
        self.scopes: list[DocScope] = []
        self.syncs = 0
        self.sync_extra: list[FileOutcome] = []  # outcomes a sync reports besides unchanged
        self.sync_delay = 0.0  # seconds a sync with a file to read takes
        self.followed: list[FollowedFolder] = []
        self.lock = threading.Lock()

    def _seen(self) -> None:
        from PySide6.QtCore import QThread

        self.threads.add(QThread.currentThread().objectName() or threading.current_thread().name)

    # ---- library -------------------------------------------------------------------------
    def ingest(self, paths: Sequence[str | Path], progress: ProgressCallback = no_progress,
               cancel: CancelToken | None = None) -> IngestReport:
        self._seen()
        files = [Path(p) for p in paths]
        outcomes = []
        for i, path in enumerate(files):
            if cancel is not None and cancel.cancelled:
                outcomes.append(FileOutcome(str(path), Outcome.CANCELLED))
                continue
            time.sleep(self.file_delay)
            outcomes.append(self._ingest_one(path))
            progress(ProgressEvent("file-done", i + 1, len(files), files_done=i + 1,
                                   files_total=len(files), pages_done=i + 1, eta_s=1.0))
        return IngestReport(tuple(outcomes))

    def _ingest_one(self, path: Path) -> FileOutcome:
        try:
            chunks = pdf_chunks(path, hashlib.sha1(str(path).encode()).hexdigest()[:12])
        except Exception:
            return FileOutcome(str(path), Outcome.FAILED, reason="not a readable PDF (damaged?)")
        doc_id = chunks[0].doc_id if chunks else "empty"
        with self.lock:
            self.chunks[doc_id] = chunks
            self.docs[doc_id] = Document(doc_id, str(path), path.stem, DocKind.PDF, "x", 1, 0.0,
                                         max(c.pages[0] for c in chunks), len(chunks),
                                         DocStatus.INDEXED)
        return FileOutcome(str(path), Outcome.INDEXED, doc_id=doc_id, chunks=len(chunks))

    def sync(self, progress: ProgressCallback = no_progress,
             cancel: CancelToken | None = None) -> IngestReport:
        """Every document is unchanged (a real sync is tested over the real facade)."""
        self._seen()
        self.syncs += 1
        if any(o.outcome is Outcome.INDEXED for o in self.sync_extra):
            progress(ProgressEvent("embed", 0, 1, files_done=0, files_total=1))
            time.sleep(self.sync_delay)
        with self.lock:
            docs = list(self.docs.values())
        return IngestReport((
            *(FileOutcome(d.path, Outcome.UNCHANGED, doc_id=d.doc_id) for d in docs),
            *self.sync_extra,
        ))

    def followed_folders(self) -> list[FollowedFolder]:
        with self.lock:
            return list(self.followed)

    def unfollow(self, paths: Sequence[str | Path]) -> list[FileOutcome]:
        self._seen()
        wanted = {str(p) for p in paths}
        with self.lock:
            gone = [f for f in self.followed if f.path in wanted]
            self.followed = [f for f in self.followed if f.path not in wanted]
        return [FileOutcome(f.path, Outcome.REMOVED, "no longer followed") for f in gone]

    def folders_to_watch(self, limit: int = 2000) -> list[str]:
        with self.lock:
            return [f.path for f in self.followed if f.present][:limit]

    def remove(self, paths: Sequence[str | Path]) -> list[FileOutcome]:
        self._seen()
        wanted = {str(p) for p in paths}
        with self.lock:
            gone = [d for d in self.docs.values() if d.path in wanted]
            for doc in gone:
                del self.docs[doc.doc_id]
            self.followed = [f for f in self.followed if f.path not in wanted]
        return [FileOutcome(d.path, Outcome.REMOVED, doc_id=d.doc_id) for d in gone]

    def rename(self, path: str | Path, title: str) -> Document:
        self._seen()
        with self.lock:
            doc = next((d for d in self.docs.values() if d.path == str(path)), None)
            if doc is None:
                raise NotFoundError(f"{path} is not in the library", "see `desktop-rag list`")
            self.docs[doc.doc_id] = replace(doc, title=title, title_by_user=True)
            return self.docs[doc.doc_id]

    def list_documents(self) -> list[Document]:
        with self.lock:
            return [_with_core(d, d.doc_id in self.core) for d in self.docs.values()]

    def document_chunks(self, doc_id: str) -> list[Chunk]:
        return list(self.chunks.get(doc_id, []))

    def get_chunks(self, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        every = {c.chunk_id: c for chunks in self.chunks.values() for c in chunks}
        return {cid: every[cid] for cid in chunk_ids if cid in every}

    def save_note(self, title: str, text: str) -> IngestReport:
        return IngestReport(())

    def search_chunk(self, word: str, scope: DocScope = EVERYWHERE) -> Chunk | None:
        for chunks in self.chunks.values():
            for chunk in chunks:
                if word.lower() in chunk.text.lower() and scope.allows(chunk.doc_id):
                    return chunk
        return None

    # ---- answers -------------------------------------------------------------------------
    def ask(self, question: str, chat_id: str | None = None, k: int | None = None,
            on_token: Callable[[str], None] | None = None,
            cancel: CancelToken | None = None, scope: DocScope = EVERYWHERE,
            on_stage: Callable[[AnswerStage], None] | None = None) -> Answer:
        self._seen()
        self.scopes.append(scope)
        stage = on_stage or _no_stage
        stage(AnswerStage(Stage.SEARCHING))
        chunk = self.search_chunk("completed", scope) or self.search_chunk("", scope)
        passages = (Passage(1, chunk, chunk.text, 0.9),) if chunk else ()
        self._read(passages, stage, cancel)
        for i, piece in enumerate(self.reply.split(" ")):
            if cancel is not None and cancel.cancelled:
                raise CancelledError()
            time.sleep(self.token_delay)
            if i == 0:
                stage(AnswerStage(Stage.WRITING, passages, 1840))
            if on_token is not None:
                on_token(piece + " ")
        chat_id = chat_id or self.new_chat()
        answer = Answer(question, self.reply, chat_id,
                        (Citation(1, chunk, 0.8),) if chunk else (), passages,
                        ("The moon is cheese.",), False, "none", False, {"ttft_ms": 12.0})
        self.chats[chat_id].turns.append(answer)
        return answer

    def _read(self, passages: tuple[Passage, ...], stage: Callable[[AnswerStage], None],
              cancel: CancelToken | None) -> None:
        """The reading stage: `prefill_steps` steps of 128 tokens; a Stop ends it between two."""
        total = 128 * self.prefill_steps
        for done in range(0, total + 1, 128):
            if cancel is not None and cancel.cancelled:
                raise CancelledError()
            stage(AnswerStage(Stage.READING, passages, 1840, done, total))
            if done < total:
                time.sleep(self.prefill_delay)

    def new_chat(self) -> str:
        chat_id = f"chat{len(self.chats) + 1}"
        self.chats[chat_id] = FakeChat(chat_id, f"Chat {len(self.chats) + 1}")
        return chat_id

    def list_chats(self) -> list[FakeChat]:
        return list(reversed(self.chats.values()))

    def chat_history(self, chat_id: str) -> list[dict[str, Any]]:
        if chat_id not in self.chats:
            raise NotFoundError(f"No chat {chat_id}", "pick another chat")
        return [{"question": a.question, "answer": a.answer} for a in self.chats[chat_id].turns]

    def engine_info(self) -> dict[str, Any]:
        return {"model": "fake-chat", "gpu_offload": False, "backend": "fake"}

    # ---- core ----------------------------------------------------------------------------
    def core_status(self) -> dict[str, Any]:
        docs = [{"title": self.docs[d].title, "tokens": 100} for d in self.core if d in self.docs]
        return {"docs": docs, "total_tokens": 100 * len(docs), "budget_tokens": 1000,
                "state": "stale" if docs else "empty"}

    def core_add(self, paths: Sequence[str | Path]) -> dict[str, Any]:
        wanted = {str(p) for p in paths}
        self.core |= {d.doc_id for d in self.docs.values() if d.path in wanted}
        return self.core_status()

    def core_remove(self, paths: Sequence[str | Path]) -> dict[str, Any]:
        wanted = {str(p) for p in paths}
        self.core -= {d.doc_id for d in self.docs.values() if d.path in wanted}
        return self.core_status()

    def core_build(self, progress: ProgressCallback = no_progress,
                   cancel: CancelToken | None = None) -> dict[str, Any]:
        progress(ProgressEvent("build", 1, 1))
        return {**self.core_status(), "state": "ready"}

    def close(self) -> None:
        pass


def _with_core(doc: Document, core: bool) -> Document:
    return replace(doc, is_core=core)


def _no_stage(_stage: AnswerStage) -> None:
    """The stage callback of a caller that asks for none."""
