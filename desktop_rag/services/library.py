"""Service facade: the document library (ingest, remove, list, notes, consistency)."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Collection, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from desktop_rag.bootstrap import AppContext
from desktop_rag.domain import (
    EVERYWHERE,
    Chunk,
    DocScope,
    DocStatus,
    Document,
    FileOutcome,
    FollowedFolder,
    IngestReport,
    Outcome,
    Reason,
)
from desktop_rag.domain.errors import DesktopRagError, NotFoundError
from desktop_rag.domain.progress import CancelToken, ProgressCallback, no_progress
from desktop_rag.services.named_documents import documents_named
from desktop_rag.services.refresh import refresh_after_write
from desktop_rag.services.tables import TablesService
from desktop_rag.store.followed import is_within

log = logging.getLogger(__name__)

FOLDER_MISSING = (
    "folder not found (moved, or on a drive not mounted); its documents are kept: remove the "
    "folder from the library if it is gone for good"
)
FOLDER_EMPTY = (
    "folder is empty (a drive not mounted?); its documents are kept: remove the folder from the "
    "library if its files were deleted"
)
FILE_MISSING = (
    "file not found (moved, or on a drive not mounted); its document is kept: remove it from "
    "the library if it is gone for good"
)

SYNC_SETTLE_S = 2.0  # a sync leaves files changed more recently for the next one


def _slug(title: str) -> str:
    slug = re.sub(r"[^\w\-]+", "-", title.strip().lower(), flags=re.UNICODE).strip("-")
    return slug[:80] or "note"


class LibraryService:
    """The library's writes (under the writer lock) and reads, over the context's stores."""

    def __init__(self, ctx: AppContext, tables: TablesService | None = None) -> None:
        self.ctx = ctx
        self.writer_lock = ctx.writer_lock  # re-entrant; another process is refused meanwhile
        self.tables = tables or TablesService(ctx)

    def ingest(
        self, paths: Sequence[str | Path], progress: ProgressCallback = no_progress,
        cancel: CancelToken | None = None, tables_now: bool = True,
    ) -> IngestReport:
        """Ingests files and folders. The folders are followed from then on (see `sync`), and
        files removed from the library earlier are taken back when these paths hold them.
        Their PDFs read before the current table and picture readers are queued for them.
        The text is committed first; with `tables_now` the table pass follows before this
        returns, else the caller runs it (`enrich_tables`: the GUI, in the background)."""
        from desktop_rag.ingest.scan import absolute

        with self.writer_lock:
            given = [str(absolute(p)) for p in paths]
            self.ctx.catalog.followed().take_back(given)
            report = self._ingest(paths, progress, cancel, frozenset(), 0.0)
            docs = [d for d in self.ctx.catalog.documents()
                    if any(is_within(d.path, p) for p in given)]
            caught_up = self.tables.catch_up(docs, progress, cancel)
            self.tables.after_text(tables_now, progress, cancel)
            return replace(report, caught_up=caught_up)

    def _ingest(
        self, paths: Sequence[str | Path], progress: ProgressCallback,
        cancel: CancelToken | None, removed: Collection[str], settle_s: float,
    ) -> IngestReport:
        from desktop_rag.ingest.ingestion import Ingestor
        from desktop_rag.ingest.memory import MemoryBudget
        from desktop_rag.ingest.ocr import ocr_config
        from desktop_rag.ingest.scan import absolute
        from desktop_rag.store.lazy_vectors import LazyVectorIndex

        with self.writer_lock:
            ctx = self.ctx
            vectors = LazyVectorIndex(lambda: ctx.vectors)  # unchanged files never open Chroma
            ingestor = Ingestor(
                ctx.catalog, vectors, lambda: ctx.embedder, lambda: ctx.token_counter,
                progress, cancel, MemoryBudget(ctx.settings.ingest.memory_budget_mb),
                ocr_config(ctx.settings.ingest), ctx.settings.ingest.ocr_processes,
                tables=ctx.settings.ingest.tables == "auto",
            )
            try:
                report = ingestor.run(paths, removed, settle_s)
            finally:
                refresh_after_write(self.ctx)
            if not ingestor.cancel.cancelled:
                folders = [absolute(p) for p in paths]
                ctx.catalog.followed().follow(str(f) for f in folders if f.is_dir())
            return report

    def sync(
        self, progress: ProgressCallback = no_progress, cancel: CancelToken | None = None,
        tables_now: bool = True,
    ) -> IngestReport:
        """Walks the followed folders again and re-checks every other document's file: new and
        changed files are indexed, documents whose file left a followed folder are removed. A
        folder or file missing altogether (moved, or on a drive not mounted) is reported and
        its documents are kept. The library's PDFs read before the current table and picture
        readers are queued for them (ingest/catch_up.py). Then the table pass, as in `ingest`."""
        folders = self.ctx.catalog.followed().folders()
        lone = sorted({
            d.path for d in self.ctx.catalog.documents()
            if d.status in (DocStatus.INDEXED, DocStatus.FAILED)
            and not any(is_within(d.path, f) for f in folders)
        })
        unavailable = {f: self._folder_unavailable(f) for f in folders}
        present = [f for f in folders if unavailable[f] is None]
        present += [p for p in lone if os.path.lexists(p)]
        missing = [FileOutcome(f, Outcome.SKIPPED, why[1], code=why[0])
                   for f, why in unavailable.items() if why]
        missing += [FileOutcome(p, Outcome.SKIPPED, FILE_MISSING, code=Reason.FILE_MISSING)
                    for p in lone if not os.path.lexists(p)]
        with self.writer_lock:
            removed = self.ctx.catalog.followed().removed_files()
            report = (self._ingest(present, progress, cancel, removed, SYNC_SETTLE_S)
                      if present else IngestReport(()))
            caught_up = self.tables.catch_up(None, progress, cancel)
            self.tables.after_text(tables_now, progress, cancel)
        outcomes = sorted([*report.outcomes, *missing], key=lambda o: o.path)
        return IngestReport(tuple(outcomes), report.seconds, report.embedded_chunks, caught_up)

    def _folder_unavailable(self, folder: str) -> tuple[Reason, str] | None:
        """Why a sync must leave `folder`'s documents alone: it is gone, or it is empty while
        documents were indexed from it (the mount point of a drive not mounted)."""
        if not os.path.isdir(folder):
            return Reason.FOLDER_MISSING, FOLDER_MISSING
        try:
            with os.scandir(folder) as entries:
                empty = next(entries, None) is None
        except OSError as exc:
            why = f"cannot read the folder: {exc.strerror or exc}; its documents are kept"
            return Reason.FOLDER_UNREADABLE, why
        indexed = any(d.status is DocStatus.INDEXED
                      for d in self.ctx.catalog.documents_under(folder))
        return (Reason.FOLDER_EMPTY, FOLDER_EMPTY) if empty and indexed else None

    def folders_to_watch(self, limit: int = 2000) -> list[str]:
        """The followed folders that are present and the folders below them (at most `limit`):
        what the app watches for changes while it is open."""
        from desktop_rag.ingest.scan import folders_below

        present = [f for f in self.ctx.catalog.followed().folders() if os.path.isdir(f)]
        return folders_below(present, limit)

    def unfollow(self, paths: Sequence[str | Path]) -> list[FileOutcome]:
        """Stops following the folders at or below `paths`; their documents stay in the library
        (each file is still re-checked at a sync, as a file added on its own is)."""
        from desktop_rag.ingest.scan import absolute

        with self.writer_lock:
            followed, outcomes = self.ctx.catalog.followed(), []
            for raw in paths:
                gone = followed.unfollow_within(str(absolute(raw)))
                outcomes += [FileOutcome(f, Outcome.REMOVED, "no longer followed; its documents "
                                         "stay in the library", code=Reason.UNFOLLOWED)
                             for f in gone]
                if not gone:
                    outcomes.append(FileOutcome(str(raw), Outcome.SKIPPED, "not a followed folder",
                                                code=Reason.NOT_FOLLOWED))
            return outcomes

    def followed_folders(self) -> list[FollowedFolder]:
        """The folders a sync walks, with how many indexed documents each holds."""
        catalog = self.ctx.catalog
        return [
            FollowedFolder(folder, os.path.isdir(folder), sum(
                1 for d in catalog.documents_under(folder) if d.status is DocStatus.INDEXED
            ))
            for folder in catalog.followed().folders()
        ]

    def remove(self, paths: Sequence[str | Path]) -> list[FileOutcome]:
        """Removes documents by path (a folder: everything under it, and it is no longer
        followed) or by doc_id. A file removed from a followed folder stays out at a sync."""
        from desktop_rag.ingest.recovery import remove_documents
        from desktop_rag.ingest.scan import absolute

        with self.writer_lock:
            followed, outcomes = self.ctx.catalog.followed(), []
            for raw in paths:
                docs = self._documents_for(raw)
                unfollowed = followed.unfollow_within(str(absolute(raw)))
                outcomes += [FileOutcome(f, Outcome.REMOVED, "folder no longer followed",
                                         code=Reason.UNFOLLOWED) for f in unfollowed]
                if not docs and not unfollowed:
                    outcomes.append(FileOutcome(str(raw), Outcome.SKIPPED, "not in the library",
                                                code=Reason.NOT_IN_LIBRARY))
                for doc in docs:
                    remove_documents(self.ctx.catalog, self.ctx.vectors, [doc.doc_id])
                    outcomes.append(FileOutcome(
                        doc.path, Outcome.REMOVED, None, doc.doc_id, doc.pages, doc.chunks
                    ))
                followed.remember_removed([d.path for d in docs])
            refresh_after_write(self.ctx)
            return outcomes

    def rename(self, path: str | Path, title: str) -> Document:
        """Gives the document at `path` (a file, or a doc id) the user's title, which it keeps
        when its file is moved or changed and read again; returns the document renamed."""
        from desktop_rag.ingest.scan import absolute

        title = " ".join(title.split())
        if not title:
            raise DesktopRagError("A document's title cannot be empty", "type the new title")
        with self.writer_lock:
            catalog = self.ctx.catalog
            by_id = catalog.get_document(str(path))
            docs = [by_id] if by_id is not None else catalog.documents_at(str(absolute(path)))
            if not docs:
                raise NotFoundError(f"{path} is not in the library", "see `desktop-rag list`")
            for doc in docs:  # every version at the path (an interrupted update leaves two)
                catalog.rename(doc.doc_id, title)
            refresh_after_write(self.ctx)
        return replace(docs[0], title=title, title_by_user=True)

    def _documents_for(self, raw: str | Path) -> list[Document]:
        return documents_named(self.ctx.catalog, raw)

    def scope_of(self, paths: Sequence[str | Path]) -> DocScope:
        """A search scope of the documents at `paths` (files, folders or doc ids); a path with
        no indexed document in the library is an error, not a silently wider search."""
        doc_ids: set[str] = set()
        for raw in paths:
            found = [d for d in self._documents_for(raw) if d.status is DocStatus.INDEXED]
            if not found:
                raise NotFoundError(
                    f"{raw} is not in the library", "ingest it first, or check the path"
                )
            doc_ids.update(d.doc_id for d in found)
        return DocScope(only=frozenset(doc_ids)) if paths else EVERYWHERE

    def list_documents(self) -> list[Document]:
        return self.ctx.catalog.documents()

    def get_document(self, doc_id: str) -> Document:
        doc = self.ctx.catalog.get_document(doc_id)
        if doc is None:
            raise NotFoundError(f"No document with id {doc_id}", "see `desktop-rag list`")
        return doc

    def document_chunks(self, doc_id: str) -> list[Chunk]:
        self.get_document(doc_id)
        return self.ctx.catalog.chunks_of(doc_id)

    def get_chunks(self, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        """The searchable chunks among `chunk_ids` (a removed document's are absent)."""
        return self.ctx.catalog.get_chunks(list(chunk_ids)) if chunk_ids else {}

    def save_note(self, title: str, text: str) -> IngestReport:
        """Writes <notes_dir>/<slug>.md (a new name if it exists) and ingests it."""
        folder = self.ctx.paths.notes_dir
        folder.mkdir(parents=True, exist_ok=True)
        path, n = folder / f"{_slug(title)}.md", 1
        while path.exists():
            n += 1
            path = folder / f"{_slug(title)}-{n}.md"
        body = text if text.lstrip().startswith("#") else f"# {title.strip()}\n\n{text}"
        path.write_text(body.rstrip() + "\n", encoding="utf-8")
        return self.ingest([path], tables_now=False)  # Markdown: no tables to read

    def check_consistency(self, repair: bool = False) -> dict[str, Any]:
        """Catalog vs vectors vs sparse index, chunk for chunk. With `repair`, first finishes
        interrupted work, deletes orphan vectors and re-embeds missing ones (takes the lock)."""
        from desktop_rag.ingest import recovery

        ctx = self.ctx
        if not repair:
            return recovery.consistency_report(ctx.catalog, ctx.vectors)
        with self.writer_lock:
            done = recovery.resume(ctx.catalog, ctx.vectors, lambda: ctx.embedder)
            done["orphan_vectors_deleted"] += recovery.delete_orphans(ctx.catalog, ctx.vectors)
            done["vectors_reembedded"] = recovery.repair_missing_vectors(
                ctx.catalog, ctx.vectors, lambda: ctx.embedder
            )
            report = recovery.consistency_report(ctx.catalog, ctx.vectors)
            report["repaired"] = done
            return report
