"""Decides what each found file needs, from the catalog and the file's content hash.

- same path, same size and mtime as the indexed document: unchanged (not even hashed);
- same content hash as the document at that path: unchanged;
- content already indexed at another path that no longer exists: moved (no re-embedding);
  if that path still exists: skipped as a duplicate;
- anything else: extracted, chunked and embedded (indexed, or updated when the path had an
  older version).
A sync (not an explicit ingestion) leaves a file changed in the last `settle_s` seconds for the
next sync: it may still be being copied or downloaded, and a half-written PDF would fail.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from desktop_rag.config.files import file_sha256
from desktop_rag.domain import DocStatus, Document, FileOutcome, Outcome, Reason
from desktop_rag.ingest.loaders import failed_for_want_of_ocr, kind_of
from desktop_rag.ingest.scan import Found
from desktop_rag.ingest.segments import UNSUPPORTED
from desktop_rag.store.documents import Catalog

BEING_WRITTEN = "changed a moment ago (still being copied?); it is read at the next sync"


@dataclass(frozen=True, slots=True)
class Job:
    """A file to extract and embed."""

    path: Path
    size: int
    mtime: float
    sha256: str
    previous: Document | None  # the indexed version at the same path, if any


@dataclass(frozen=True, slots=True)
class Move:
    doc: Document
    path: Path
    size: int
    mtime: float


@dataclass(slots=True)
class Plan:
    jobs: list[Job]
    moves: list[Move]
    outcomes: list[FileOutcome]


def same_file(doc: Document) -> bool:
    """Whether the file at the document's path is still the one indexed (as the planner
    decides: same size and mtime, else same content)."""
    try:
        st = os.stat(doc.path)
        if (st.st_size, st.st_mtime) == (doc.size, doc.mtime):
            return True
        return st.st_size == doc.size and file_sha256(Path(doc.path)) == doc.sha256
    except OSError:
        return False


class Planner:
    def __init__(self, catalog: Catalog, ocr_on: bool = False, settle_s: float = 0.0) -> None:
        self.catalog = catalog
        self.ocr_on = ocr_on  # scans that failed for want of OCR are read again
        self.settle_s = settle_s  # files changed more recently wait for the next sync
        self.plan = Plan([], [], [])
        self._claimed: dict[str, Path] = {}  # sha -> first path of this run

    def add(self, found: Found) -> None:
        outcome = self._classify(found.path)
        if outcome is not None:
            self.plan.outcomes.append(outcome)

    def _classify(self, path: Path) -> FileOutcome | None:
        name = str(path)
        if not _is_utf8(name):  # the catalog stores UTF-8 text; such a name cannot be kept
            shown = os.fsencode(name).decode("utf-8", "backslashreplace")
            return _failed(shown, Reason.BAD_NAME, "file name is not valid UTF-8; rename it")
        if kind_of(path) is None:
            return _skipped(name, Reason.UNSUPPORTED, f"{UNSUPPORTED} '{path.suffix}'")
        try:
            st = path.stat()
            if not stat.S_ISREG(st.st_mode):  # a FIFO or device would block or never end
                return _skipped(name, Reason.NOT_A_FILE, "not a regular file")
            if st.st_size == 0:
                return _skipped(name, Reason.EMPTY, "empty file (0 bytes)")
            current = self._indexed_at(name)
            if current and (current.size, current.mtime) == (st.st_size, st.st_mtime):
                return _unchanged(current)
            if 0 <= time.time() - st.st_mtime < self.settle_s:
                return _skipped(name, Reason.BEING_WRITTEN, BEING_WRITTEN)
            failed = self._failed_at(name)
            if failed and (failed.size, failed.mtime) == (st.st_size, st.st_mtime) and not (
                self.ocr_on and failed_for_want_of_ocr(failed.error)
            ):
                return _failed(name, Reason.UNCHANGED, failed.error)
            sha = file_sha256(path)
        except OSError as exc:
            return _failed(name, Reason.UNREADABLE, f"cannot read file: {exc.strerror or exc}")
        return self._by_content(path, sha, st.st_size, st.st_mtime, current)

    def _by_content(
        self, path: Path, sha: str, size: int, mtime: float, current: Document | None
    ) -> FileOutcome | None:
        name = str(path)
        if current is not None and current.sha256 == sha:
            self.catalog.touch(current.doc_id, size, mtime)
            self._claimed.setdefault(sha, path)
            return _unchanged(current)
        if sha in self._claimed:
            return _skipped(name, Reason.DUPLICATE, f"duplicate of {self._claimed[sha]}")
        self._claimed[sha] = path
        known = self.catalog.document_with_sha(sha)
        if known is not None and os.path.lexists(known.path):
            return _skipped(name, Reason.DUPLICATE, f"duplicate of {known.path}")
        if known is not None:
            self.plan.moves.append(Move(known, path, size, mtime))
            return None
        self.plan.jobs.append(Job(path, size, mtime, sha, current))
        return None

    def _indexed_at(self, path: str) -> Document | None:
        return self._at(path, DocStatus.INDEXED)

    def _failed_at(self, path: str) -> Document | None:
        """A failure recorded for this very file (same size and mtime) is not retried, unless it
        was a scan that can be read now."""
        return self._at(path, DocStatus.FAILED)

    def _at(self, path: str, status: DocStatus) -> Document | None:
        docs = [d for d in self.catalog.documents_at(path) if d.status is status]
        return docs[0] if docs else None


def _is_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _unchanged(doc: Document) -> FileOutcome:
    return FileOutcome(
        doc.path, Outcome.UNCHANGED, None, doc.doc_id, doc.pages, doc.chunks, Reason.UNCHANGED
    )


def _skipped(path: str, code: Reason, reason: str) -> FileOutcome:
    return FileOutcome(path, Outcome.SKIPPED, reason, code=code)


def _failed(path: str, code: Reason, reason: str | None) -> FileOutcome:
    return FileOutcome(path, Outcome.FAILED, reason, code=code)
