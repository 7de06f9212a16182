"""A library read before the table pass read what it reads now gets it at the next sync.

The table pass only ever reads the pages the text pass queued (ingest/table_pass.py). So a PDF
indexed by a version without table reading, or without the words of pictures, or with an older
table reader, kept what it had until its file changed: a user who updated the app saw its
tables and pictures only in documents added since. Each PDF is therefore marked, in the
transaction that adds it, with what its pages were queued for ("tables-2,pictures-1"); a sync
(the app does one at start) finds the indexed PDFs whose mark lacks something the current
reader reads, finds their candidate pages the way the text pass does (about a millisecond a
page: the text layer and the image list, no OCR and no table reading), and queues them. The
table pass then reads them in the background, the document searchable as it was meanwhile.

Every candidate page is queued again, not only those of what is new: the pass makes the chunks
of a page range again from the pages' text with what it found on them, so a page with a table
next to a page with a new picture must have its table read again or lose its rows. Turning a
reader off does not read documents again (what was read stays until their file changes).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from desktop_rag.domain import DocKind, DocStatus, Document
from desktop_rag.domain.outcomes import CatchUpReport
from desktop_rag.domain.progress import CancelToken, ProgressCallback, ProgressEvent, no_progress
from desktop_rag.ingest.pdf_pages import open_pdf, page_text
from desktop_rag.ingest.planner import same_file
from desktop_rag.ingest.reader_marks import behind, for_table_pass, reader_mark
from desktop_rag.store.table_steps import TableSteps

log = logging.getLogger(__name__)


def candidate_pages(path: str, tables: bool, pictures: bool, cancel: CancelToken) -> list[int]:
    """The 1-based pages of the PDF at `path` the table pass would read; an unreadable page is
    left out (it is no candidate at its first reading either)."""
    found: list[int] = []
    with open_pdf(path) as pdf:
        for index in range(pdf.page_count):
            cancel.raise_if_cancelled()
            try:
                page = pdf.load_page(index)
                wanted = for_table_pass(page, page_text(page), tables, pictures)
            except Exception as exc:  # one bad page must not keep the others from their tables
                log.warning("%s: page %d unreadable (%s)", path, index + 1, exc)
                continue
            if wanted:
                found.append(index + 1)
    return found


class CatchUp:
    """Queues the candidate pages of the indexed PDFs marked behind the current readers (the
    caller holds the writer lock)."""

    def __init__(
        self, steps: TableSteps, tables: bool, pictures: bool,
        progress: ProgressCallback = no_progress, cancel: CancelToken | None = None,
    ) -> None:
        self.steps, self.tables, self.pictures = steps, tables, pictures
        self.mark = reader_mark(tables, pictures)
        self.progress = progress
        self.cancel = cancel or CancelToken()

    def lagging(self, docs: Sequence[Document]) -> list[Document]:
        """The indexed PDFs among `docs` read before the current readers, not queued already,
        whose file is the one indexed (a changed file is read again whole by the text pass)."""
        marks, queued = self.steps.marks(), self.steps.queued()
        return [d for d in docs if d.kind is DocKind.PDF and d.status is DocStatus.INDEXED
                and d.doc_id not in queued and behind(marks.get(d.doc_id), self.mark)
                and same_file(d)]  # fmt: skip

    def run(self, docs: Sequence[Document]) -> CatchUpReport:
        """Each document behind: its candidate pages queued and its mark set, one transaction
        each; a cancel leaves the rest for the next sync."""
        started = time.perf_counter()
        todo = self.lagging(docs) if self.mark else []
        queued = pages = 0
        failures: list[str] = []
        for n, doc in enumerate(todo):
            self._emit(n, len(todo), doc.path)
            try:
                found = candidate_pages(doc.path, self.tables, self.pictures, self.cancel)
            except Exception as exc:  # cancelled, or the file cannot be opened now
                if self.cancel.cancelled:
                    break
                failures.append(f"{doc.path}: {exc}")
                continue
            self.steps.requeue(doc.doc_id, found, self.mark)
            queued, pages = queued + bool(found), pages + len(found)
        if todo:
            log.info("caught up %d documents read before %s: %d pages queued in %d",
                     len(todo), self.mark, pages, queued)  # fmt: skip
        seconds = round(time.perf_counter() - started, 3)
        return CatchUpReport(len(todo), queued, pages, seconds, tuple(failures))

    def _emit(self, done: int, total: int, path: str) -> None:
        self.progress(ProgressEvent(
            "scan", done, total, f"finding the tables and pictures of {path}", done, total,
        ))
