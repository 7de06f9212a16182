"""Service facade: the table pass, which gives documents searchable from their text their tables
(text first, tables after: see desktop_rag/ingest/table_pass.py)."""

from __future__ import annotations

from collections.abc import Sequence

from desktop_rag.bootstrap import AppContext
from desktop_rag.domain import Document
from desktop_rag.domain.outcomes import CatchUpReport, TablesReport
from desktop_rag.domain.progress import CancelToken, ProgressCallback, no_progress
from desktop_rag.services.refresh import refresh_after_write


class TablesService:
    """Runs the table pass under the writer lock, over the context's stores."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self.writer_lock = ctx.writer_lock

    def enrich_tables(
        self, progress: ProgressCallback = no_progress, cancel: CancelToken | None = None
    ) -> TablesReport:
        """Reads the tables of every document queued for them, those a stopped process left
        included, and puts their rows in place of those pages' text (and the words of their
        large pictures, when OCR reads them). Cancelling leaves the documents not done queued;
        nothing is done while both `ingest.tables` and picture text are off."""
        from desktop_rag.ingest.ocr import ocr_config
        from desktop_rag.ingest.table_pass import TablePass
        from desktop_rag.store.lazy_vectors import LazyVectorIndex

        ctx = self.ctx
        tables, ocr = ctx.settings.ingest.tables == "auto", ocr_config(ctx.settings.ingest)
        if not (tables or (ocr and ocr.pictures)) or not self.tables_pending():
            return TablesReport()
        with self.writer_lock:
            vectors = LazyVectorIndex(lambda: ctx.vectors)
            table_pass = TablePass(
                ctx.catalog, vectors, lambda: ctx.embedder, lambda: ctx.token_counter,
                progress, cancel, ctx.settings.ingest.ocr_processes, tables, ocr,
            )
            try:
                return table_pass.run()
            finally:
                refresh_after_write(self.ctx)

    def catch_up(
        self, docs: Sequence[Document] | None = None, progress: ProgressCallback = no_progress,
        cancel: CancelToken | None = None,
    ) -> CatchUpReport:
        """Queues for the table pass the candidate pages of the PDFs among `docs` (None: the
        whole library) read before the current table and picture readers: a library from an
        older version gets its tables and pictures' words (ingest/catch_up.py)."""
        from desktop_rag.ingest.catch_up import CatchUp
        from desktop_rag.ingest.ocr import ocr_config

        ctx = self.ctx
        tables, ocr = ctx.settings.ingest.tables == "auto", ocr_config(ctx.settings.ingest)
        with self.writer_lock:
            found = ctx.catalog.documents() if docs is None else docs
            steps = ctx.catalog.tables()
            return CatchUp(steps, tables, bool(ocr and ocr.pictures), progress, cancel).run(found)

    def after_text(
        self, now: bool, progress: ProgressCallback, cancel: CancelToken | None
    ) -> None:
        """The table pass right after a text pass (the CLI, evaluations: what they report or
        measure includes the tables), unless the caller runs it later itself (the GUI, in the
        background) or the text pass was cancelled."""
        if now and not (cancel is not None and cancel.cancelled):
            self.enrich_tables(progress, cancel)

    def tables_pending(self) -> dict[str, int]:
        """Indexed documents whose tables are still to be read -> how many pages look tabular
        (the library shows them searchable, tables pending)."""
        return {doc_id: len(pages) for doc_id, pages in self.ctx.catalog.tables().queued().items()}
