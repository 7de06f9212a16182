"""What loaders produce and the chunker consumes: paragraph-sized segments with locations."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from desktop_rag.domain import DocKind, LineBox, Reason

SOFT_HYPHEN = "\u00ad"  # marks a word broken across lines; the chunker rejoins it
UNSUPPORTED = "unsupported file type"  # a skip reason's start; the type follows in quotes


class LoadError(Exception):
    """A file cannot be ingested: `code` says why to code, `reason` to the user (next to the
    file's path)."""

    def __init__(self, code: Reason, reason: str, skip: bool = False) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.skip = skip  # True: an outcome `skipped` (nothing wrong), else `failed`


@dataclass(frozen=True, slots=True)
class Line:
    """A text line: its character span in the page (or file) text and its box."""

    start: int
    end: int
    box: LineBox


@dataclass(frozen=True, slots=True, eq=False)
class TablePart:
    """Marks the rows of one table (compared by identity): the chunker keeps them in chunks of
    their own, each under the table's title, so every part says what its numbers are."""

    title: str


@dataclass(frozen=True, slots=True)
class Segment:
    """A paragraph (or heading) of one page; `start`/`end` index the page text (or file)."""

    text: str
    page: int | None
    start: int
    end: int
    lines: tuple[Line, ...] = ()
    heading_path: tuple[str, ...] = ()
    is_heading: bool = False
    table: TablePart | None = None  # a row of this table


@dataclass(slots=True)
class LoadedDocument:
    """A document being read: metadata now, segments lazily (one page at a time for PDFs)."""

    kind: DocKind
    title: str
    pages: int
    segments: Iterator[Segment]
    note: str | None = None  # e.g. how a non-UTF-8 file was decoded
    note_code: Reason = Reason.NONE  # the note's code (the first note's, when there are more)
    empty_reason: str = "no text"  # why nothing is indexed, when no text comes out
    empty_code: Reason = Reason.NO_TEXT
    empty_is_skip: bool = True
    extra: dict[str, str] = field(default_factory=dict)
    stated_title: str | None = None  # the file's own (metadata) title, shown or not
    table_pages: tuple[int, ...] = ()  # pages that look tabular, for the table pass (once read)
    reader_mark: str | None = None  # a PDF's: what table_pages were found for (ingest/catch_up)

    def set_empty(self, code: Reason, reason: str) -> None:
        """What to report when no text comes out (known better as more pages are read)."""
        self.empty_code, self.empty_reason = code, reason

    def add_note(self, code: Reason, note: str) -> None:
        """Notes add up in the text; the code stays the first note's (damage comes before OCR)."""
        if self.note is None:
            self.note, self.note_code = note, code
        else:
            self.note = f"{self.note}; {note}"


def decode_text(data: bytes) -> tuple[str, str | None]:
    """Text of a file and a note when it was not UTF-8; LoadError for binary data."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = data.decode("utf-16", errors="replace")  # odd length, lone surrogates
        return text, "decoded as UTF-16"
    if b"\x00" in data[:65536]:
        raise LoadError(Reason.BINARY, "binary data, not text (contains NUL bytes)")
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252"), "not valid UTF-8; read as Windows-1252"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "not valid UTF-8; read as Latin-1"
