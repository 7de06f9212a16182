"""What an ingestion, sync or removal reports for each file: an outcome, a reason code for code
to act on, and a reason text for a person.

The text may be reworded at any time and often names a path or a count; the code is stable (the
CLI's `--json` output prints it as `code`), so nothing ever needs to look inside the text.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Outcome(StrEnum):
    INDEXED = "indexed"
    UNCHANGED = "unchanged"
    UPDATED = "updated"
    MOVED = "moved"
    REMOVED = "removed"
    SKIPPED = "skipped"
    FAILED = "failed"
    CANCELLED = "cancelled"


class Reason(StrEnum):
    """Why a file got its outcome. Skips are deliberate (nothing is wrong with the file, the
    library leaves it); failures say what is wrong with it."""

    NONE = "none"  # nothing to explain: indexed, updated or removed as asked
    UNCHANGED = "unchanged"  # not read again: as it was when indexed, or when it failed (why then)
    MOVED = "moved"  # its content was indexed at a path that no longer exists
    DUPLICATE = "duplicate"  # its content is indexed at another path that exists
    DECODED = "decoded"  # indexed; not UTF-8, so read as UTF-16, Windows-1252 or Latin-1
    REPAIRED = "repaired"  # indexed; damaged and repaired, so some text may be missing
    OCR = "ocr"  # indexed; scanned pages were read by OCR
    UNSUPPORTED = "unsupported"  # a file type the library does not read
    EMPTY = "empty"  # 0 bytes
    NO_TEXT = "no_text"  # opened, but there is no text in it (by OCR neither)
    NOT_A_FILE = "not_a_file"  # a FIFO, device or socket: reading it would block or never end
    BEING_WRITTEN = "being_written"  # changed a moment ago: a sync reads it the next time
    REMOVED_BY_USER = "removed_by_user"  # found in a folder, but removed from the library earlier
    NOT_FOUND = "not_found"  # a path given to ingest does not exist
    BAD_NAME = "bad_name"  # the file name is not valid UTF-8, so the catalog cannot keep it
    UNREADABLE = "unreadable"  # the system refuses to read it (permissions, a symlink loop)
    CORRUPT = "corrupt"  # truncated, corrupt or not a valid document
    ENCRYPTED = "encrypted"  # password-protected
    TOO_NESTED = "too_nested"  # HTML/XML nested too deep to open
    TOO_LARGE = "too_large"  # an archive that inflates too far (a zip bomb), or too many parts
    BINARY = "binary"  # a text file holding binary data
    SCANNED = "scanned"  # no text layer, only scanned images, and OCR is off or unavailable
    OCR_FAILED = "ocr_failed"  # scanned, and OCR failed
    UNEXPECTED = "unexpected"  # an unexpected error while reading (a loader bug)
    CANCELLED = "cancelled"  # the ingestion was cancelled before the file was done
    FOLDER_MISSING = "folder_missing"  # a followed folder is gone (or not mounted): docs kept
    FOLDER_EMPTY = "folder_empty"  # a followed folder is empty (a drive not mounted?): docs kept
    FOLDER_UNREADABLE = "folder_unreadable"  # a followed folder cannot be read: docs kept
    FILE_MISSING = "file_missing"  # a document's file is gone (or not mounted): document kept
    FILE_GONE = "file_gone"  # removed: its file left a folder being ingested again
    UNFOLLOWED = "unfollowed"  # a folder is no longer followed
    NOT_FOLLOWED = "not_followed"  # asked to unfollow a folder that is not followed
    NOT_IN_LIBRARY = "not_in_library"  # asked to remove a path with no document


@dataclass(frozen=True, slots=True)
class FileOutcome:
    """One file's outcome; `reason` is the text for a person, `code` the same for code."""

    path: str
    outcome: Outcome
    reason: str | None = None
    doc_id: str | None = None
    pages: int = 0
    chunks: int = 0
    code: Reason = Reason.NONE


@dataclass(frozen=True, slots=True)
class IngestReport:
    outcomes: tuple[FileOutcome, ...]
    seconds: float = 0.0
    embedded_chunks: int = 0
    caught_up: CatchUpReport | None = None  # a sync's: documents read before the current readers

    def count(self, outcome: Outcome) -> int:
        return sum(1 for o in self.outcomes if o.outcome is outcome)

    @property
    def failed(self) -> bool:
        return any(o.outcome is Outcome.FAILED for o in self.outcomes)


@dataclass(frozen=True, slots=True)
class TablesReport:
    """What a table pass reports (it runs after the text of PDFs is searchable: see
    ingest/table_pass.py): documents and pages that look tabular read, tables found, chunks
    written. `left`: documents still queued (cancelled, or their file is not the indexed one
    now: moved, changed, on a drive not mounted). `failures`: "file: why" of documents whose
    tables could not be put in (their text stays searchable)."""

    documents: int = 0
    pages: int = 0
    tables: int = 0
    chunks: int = 0
    left: int = 0
    failures: tuple[str, ...] = ()
    seconds: float = 0.0
    pictures: int = 0  # pictures whose words were read (picture text)


@dataclass(frozen=True, slots=True)
class CatchUpReport:
    """What a sync's catch-up with the current table and picture readers did
    (ingest/catch_up.py). `checked`: PDFs read before them; `queued`: those with pages for the
    table pass (the others are only marked); `pages`: how many; `failures`: "file: why"."""

    checked: int = 0
    queued: int = 0
    pages: int = 0
    seconds: float = 0.0
    failures: tuple[str, ...] = ()
