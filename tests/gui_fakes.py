"""A small stand-in for the service facade, for fast GUI tests, on the real types.

It implements the GUI's `GuiServices` Protocol (mypy checks this file), returns the facade's
real records (`Document`, `IngestReport`, `CoreStatus`, `ChatSummary`, `ChatTurn`, `Answer`),
reads real PDFs with PyMuPDF (so line boxes are genuine), keeps its chats in a real ChatStore
(so restored chats have the store's records) and streams a scripted answer. test_gui_real.py
covers the actual services; test_gui_contract.py runs the same assertions against both.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from desktop_rag.config import Settings, save_settings
from desktop_rag.config.paths import AppPaths, resolve_paths
from desktop_rag.domain import (
    EVERYWHERE,
    Answer,
    AnswerStage,
    CheckedCalculation,
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
from desktop_rag.domain.errors import CancelledError, NotFoundError
from desktop_rag.domain.outcomes import CatchUpReport, TablesReport
from desktop_rag.domain.progress import CancelToken, ProgressCallback, ProgressEvent, no_progress
from desktop_rag.gui.facade import GuiServices
from desktop_rag.services import engine_changed
from desktop_rag.services.core import CoreDoc, CoreState, CoreStatus
from desktop_rag.services.ports import EngineInfo
from desktop_rag.store.chats import ChatStore, ChatSummary, ChatTurn

DEFAULT_REPLY = "The main telescope was completed in **1987** [1]. The moon is cheese."
CORE_DOC_TOKENS = 100
CORE_BUDGET = 1000


def pdf_chunks(path: Path, doc_id: str) -> list[Chunk]:
    """One chunk per text line, with the line's real box."""
    import pymupdf

    chunks: list[Chunk] = []
    with pymupdf.open(str(path)) as doc:  # type: ignore[no-untyped-call]
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
    """The GUI's facade in memory (chats in a ChatStore under `data_dir`)."""

    def __init__(self, data_dir: Path, reply: str = "", token_delay: float = 0.0) -> None:
        self.paths: AppPaths = resolve_paths(data_dir)
        self.settings = Settings()
        self.store = ChatStore(self.paths.chats_db)
        self.reply = reply or DEFAULT_REPLY
        self.calculations: tuple[CheckedCalculation, ...] = ()  # the scripted answer's checks
        self.token_delay = token_delay
        self.prefill_steps = 0  # steps of the reading stage, each `prefill_delay` s long
        self.prefill_delay = 0.0
        self.file_delay = 0.0
        self.docs: dict[str, Document] = {}
        self.chunks: dict[str, list[Chunk]] = {}
        self.core: set[str] = set()
        self.threads: set[str] = set()
        self.scopes: list[DocScope] = []
        self.routes: list[str | None] = []  # the route each question forced (None: router)
        self.syncs = 0
        self.sync_extra: list[FileOutcome] = []  # outcomes a sync reports besides unchanged
        self.sync_delay = 0.0  # seconds a sync with a file to read takes
        self.followed: list[FollowedFolder] = []
        self.engine_resets: list[str] = []  # the threads reset_engine ran on
        self.warmed: list[str] = []  # the threads warm_up ran on
        self.tables_queue: dict[str, int] = {}  # doc id -> pages; ingest(tables_now=False) adds
        self.table_pages = 0  # pages that look tabular in each PDF ingested (none: no table pass)
        self.table_passes: list[tuple[str, bool]] = []  # (thread, cancelled) of each table pass
        self.tables_delay = 0.0  # seconds a table pass with work takes
        self.catch_up = False  # a sync queues every PDF's `table_pages` (read by an older version)
        self.lock = threading.Lock()

    def _seen(self) -> str:
        from PySide6.QtCore import QThread

        name = QThread.currentThread().objectName() or threading.current_thread().name
        self.threads.add(name)
        return name

    # ---- settings and resources ----------------------------------------------------------
    @property
    def data_dir(self) -> Path:
        return self.paths.data_dir

    def apply_settings(self, new: Settings) -> bool:
        changed = engine_changed(self.settings, new)
        save_settings(new, self.paths.settings_file)
        self.settings = new
        return changed

    def reset_engine(self) -> None:
        self.engine_resets.append(self._seen())

    def warm_up(self) -> None:
        self.warmed.append(self._seen())

    # ---- library -------------------------------------------------------------------------
    def ingest(self, paths: Sequence[str | Path], progress: ProgressCallback = no_progress,
               cancel: CancelToken | None = None, tables_now: bool = True) -> IngestReport:
        """Each PDF is indexed; with tables_now=False and `table_pages`, it is left queued for a
        table pass."""
        self._seen()
        files = [Path(p) for p in paths]
        outcomes: list[FileOutcome] = []
        for i, path in enumerate(files):
            if cancel is not None and cancel.cancelled:
                outcomes.append(FileOutcome(str(path), Outcome.CANCELLED))
                continue
            time.sleep(self.file_delay)
            outcome = self._ingest_one(path)
            outcomes.append(outcome)
            if outcome.doc_id and self.table_pages and not tables_now:
                with self.lock:
                    self.tables_queue[outcome.doc_id] = self.table_pages
            progress(ProgressEvent("file-done", i + 1, len(files), files_done=i + 1,
                                   files_total=len(files), pages_done=i + 1, eta_s=1.0))
        return IngestReport(tuple(outcomes))

    def enrich_tables(self, progress: ProgressCallback = no_progress,
                      cancel: CancelToken | None = None) -> TablesReport:
        """Empties the queue after `tables_delay` seconds, unless cancelled meanwhile."""
        thread = self._seen()
        with self.lock:
            queued = dict(self.tables_queue)
        if queued:
            progress(ProgressEvent("tables", 0, sum(queued.values()), "reading",
                                   files_total=len(queued)))
            deadline = time.monotonic() + self.tables_delay
            while time.monotonic() < deadline and not (cancel is not None and cancel.cancelled):
                time.sleep(0.01)
        cancelled = cancel is not None and cancel.cancelled
        self.table_passes.append((thread, cancelled))
        if cancelled:
            return TablesReport(left=len(queued))
        with self.lock:
            for doc_id in queued:
                self.tables_queue.pop(doc_id, None)
        return TablesReport(len(queued), sum(queued.values()), len(queued))

    def tables_pending(self) -> dict[str, int]:
        with self.lock:
            return {d: n for d, n in self.tables_queue.items() if d in self.docs}

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
             cancel: CancelToken | None = None, tables_now: bool = True) -> IngestReport:
        """Every document is unchanged (a real sync is tested over the real facade)."""
        self._seen()
        self.syncs += 1
        if any(o.outcome is Outcome.INDEXED for o in self.sync_extra):
            progress(ProgressEvent("embed", 0, 1, files_done=0, files_total=1))
            time.sleep(self.sync_delay)
        with self.lock:
            docs = list(self.docs.values())
            behind = [d for d in docs if self.catch_up and d.doc_id not in self.tables_queue]
            self.tables_queue.update((d.doc_id, self.table_pages) for d in behind)
        caught_up = CatchUpReport(len(behind), len(behind), len(behind) * self.table_pages)
        return IngestReport((
            *(FileOutcome(d.path, Outcome.UNCHANGED, doc_id=d.doc_id) for d in docs),
            *self.sync_extra,
        ), caught_up=caught_up)

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
            on_stage: Callable[[AnswerStage], None] | None = None,
            route: str | None = None) -> Answer:
        self._seen()
        self.scopes.append(scope)
        self.routes.append(route)
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
                        ("The moon is cheese.",), False, "none", False, {"ttft_ms": 12.0},
                        self.calculations)
        self.store.add_exchange(chat_id, question, answer)
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
        return self.store.new_chat()

    def list_chats(self) -> list[ChatSummary]:
        return self.store.list_chats()

    def chat_history(self, chat_id: str) -> list[ChatTurn]:
        return self.store.history(chat_id)

    def engine_info(self) -> EngineInfo:
        return {"model": "fake-chat", "gpu_offload": False, "backend": "fake",
                "context_size": self.settings.llm.context_size}

    # ---- core ----------------------------------------------------------------------------
    def core_status(self) -> CoreStatus:
        with self.lock:
            docs = tuple(CoreDoc(d.doc_id, d.path, d.title, CORE_DOC_TOKENS)
                         for d in self.docs.values() if d.doc_id in self.core)
        return CoreStatus(docs, CORE_DOC_TOKENS * len(docs), CORE_BUDGET,
                          CoreState.STALE if docs else CoreState.EMPTY)

    def core_add(self, paths: Sequence[str | Path]) -> CoreStatus:
        wanted = {str(p) for p in paths}
        with self.lock:
            self.core |= {d.doc_id for d in self.docs.values() if d.path in wanted}
        return self.core_status()

    def core_remove(self, paths: Sequence[str | Path]) -> CoreStatus:
        wanted = {str(p) for p in paths}
        with self.lock:
            self.core -= {d.doc_id for d in self.docs.values() if d.path in wanted}
        return self.core_status()

    def core_build(self, progress: ProgressCallback = no_progress,
                   cancel: CancelToken | None = None) -> CoreStatus:
        progress(ProgressEvent("build", 1, 1))
        return replace(self.core_status(), state=CoreState.READY)

    def close(self) -> None:
        self.store.close()


def _with_core(doc: Document, core: bool) -> Document:
    return replace(doc, is_core=core)


def _no_stage(_stage: AnswerStage) -> None:
    """The stage callback of a caller that asks for none."""


_CHECK: type[GuiServices] = FakeServices  # mypy: the fake implements the GUI's facade
