"""Plain data shared by every layer: documents, chunks, locations, passages, citations, answers.

All page numbers are 1-based. Bounding boxes are PDF points with PyMuPDF's top-left origin
(x0, y0, x1, y1); the GUI converts them for its own coordinate system.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

# The per-file outcome types and the checked calculations of an answer live in their own modules;
# every layer imports them from here too.
from desktop_rag.domain.computed import CalculationProblem as CalculationProblem
from desktop_rag.domain.computed import CheckedCalculation as CheckedCalculation
from desktop_rag.domain.computed import CheckedInput as CheckedInput
from desktop_rag.domain.focused import DocFocus as DocFocus
from desktop_rag.domain.outcomes import FileOutcome as FileOutcome
from desktop_rag.domain.outcomes import IngestReport as IngestReport
from desktop_rag.domain.outcomes import Outcome as Outcome
from desktop_rag.domain.outcomes import Reason as Reason
from desktop_rag.domain.routed import ListedItem as ListedItem
from desktop_rag.domain.routed import RouteInfo as RouteInfo
from desktop_rag.domain.routed import RouteName as RouteName

# A chunk line with the words OCR read inside a picture opens with this (ingest/picture_text):
# search and answers use them; a summary's key sentences do not (OCR'd labels are no prose).
PICTURE_TEXT = "Picture text:"


class DocKind(StrEnum):
    PDF = "pdf"
    MARKDOWN = "markdown"
    TEXT = "text"
    OTHER = "other"  # other formats PyMuPDF opens (EPUB, XPS, HTML ...), paged like a PDF


class DocStatus(StrEnum):
    PENDING = "pending"  # chunks written, vectors possibly incomplete; invisible to search
    INDEXED = "indexed"
    FAILED = "failed"
    REMOVING = "removing"


@dataclass(frozen=True, slots=True)
class LineBox:
    """One text line of a chunk on a page, in PDF points (top-left origin). `start`/`end` are the
    line's characters in the chunk's text (-1: unknown, in libraries indexed before they were
    recorded), so that a sentence of the chunk can be placed on its page and lines."""

    page: int
    x0: float
    y0: float
    x1: float
    y1: float
    start: int = -1
    end: int = -1


@dataclass(frozen=True, slots=True)
class Chunk:
    chunk_id: str
    doc_id: str
    path: str
    title: str
    kind: DocKind
    text: str
    ordinal: int
    pages: tuple[int, ...]  # 1-based; empty for notes without pages
    char_span: tuple[int, int]  # in the page text (first page) or the whole file for notes
    bboxes: tuple[LineBox, ...] = ()
    heading_path: tuple[str, ...] = ()
    prev_id: str | None = None
    next_id: str | None = None
    token_count: int = 0

    @property
    def page(self) -> int | None:
        return self.pages[0] if self.pages else None


@dataclass(frozen=True, slots=True)
class Document:
    doc_id: str
    path: str
    title: str
    kind: DocKind
    sha256: str
    size: int
    mtime: float
    pages: int
    chunks: int
    status: DocStatus
    error: str | None = None
    ingested_at: str | None = None
    is_core: bool = False
    stated_title: str | None = None  # the file's own title (PDF metadata), shown or not
    title_by_user: bool = False  # renamed by the user: kept when the file is read again


@dataclass(frozen=True, slots=True)
class FollowedFolder:
    """A folder the library follows: a sync walks it again."""

    path: str
    present: bool  # False when it is missing (moved, or on a drive not mounted)
    documents: int  # indexed documents under it


@dataclass(frozen=True, slots=True)
class DocScope:
    """The documents a search may return: only those in `only` (when given), never those in
    `exclude`. The default scope is the whole library."""

    only: frozenset[str] | None = None
    exclude: frozenset[str] = frozenset()

    @property
    def whole_library(self) -> bool:
        return self.only is None and not self.exclude

    @property
    def included(self) -> frozenset[str] | None:
        """The documents a search may return when the scope names them, else None."""
        return None if self.only is None else self.only - self.exclude

    @property
    def empty(self) -> bool:
        """Nothing can match (every document named in `only` is excluded, or `only` is empty)."""
        return self.included is not None and not self.included

    def allows(self, doc_id: str) -> bool:
        return (self.only is None or doc_id in self.only) and doc_id not in self.exclude

    def excluding(self, doc_ids: Iterable[str]) -> DocScope:
        return DocScope(self.only, self.exclude | frozenset(doc_ids))

    @property
    def rest(self) -> DocScope | None:
        """The library's documents this scope leaves out, or None for the whole library."""
        if self.whole_library:
            return None
        if self.included is not None:
            return DocScope(exclude=self.included)
        return DocScope(only=self.exclude)


EVERYWHERE = DocScope()


@dataclass(frozen=True, slots=True)
class PageRefs:
    """Pages a question names ("on page 14", "the first page", "the last page"), 1-based."""

    numbers: frozenset[int] = frozenset()
    last: bool = False

    def __bool__(self) -> bool:
        return bool(self.numbers) or self.last

    def matches(self, pages: Sequence[int], page_count: int) -> bool:
        named = self.numbers | ({page_count} if self.last else set())
        return any(p in named for p in pages)


@dataclass(frozen=True, slots=True)
class ScoredChunk:
    chunk: Chunk
    score: float
    sources: dict[str, int] = field(default_factory=dict)  # retriever name -> 1-based rank
    match_page: int | None = None  # the page where the query matches best, when known

    @property
    def page(self) -> int | None:
        return self.match_page if self.match_page is not None else self.chunk.page


@dataclass(frozen=True, slots=True)
class SearchResult:
    query: str
    mode: str
    reranker: str
    insufficient_evidence: bool
    results: tuple[ScoredChunk, ...]
    timings_ms: dict[str, float] = field(default_factory=dict)
    focus: DocFocus | None = None  # the documents the question names, searched first
    added_terms: str = ""  # what the keyword search also looked for (a named ratio's lines)


@dataclass(frozen=True, slots=True)
class Passage:
    """A numbered source given to the model."""

    n: int
    chunk: Chunk
    text: str  # possibly widened with neighbours
    score: float
    is_core: bool = False
    neighbours: tuple[Chunk, ...] = ()  # the chunks it was widened with, in reading order
    added_for: str = ""  # why the app added it to what retrieval found ("" when it did not)

    @property
    def members(self) -> tuple[Chunk, ...]:
        """Every chunk whose text the passage holds, in reading order."""
        before = tuple(c for c in self.neighbours if c.ordinal < self.chunk.ordinal)
        after = tuple(c for c in self.neighbours if c.ordinal > self.chunk.ordinal)
        return (*before, self.chunk, *after)


@dataclass(frozen=True, slots=True)
class Evidence:
    """The source sentence(s) that support one answer sentence: where they are and how well they
    support it. `char_span` indexes the chunk's text; `page` and `boxes` place it in a PDF."""

    chunk_id: str
    page: int | None
    char_span: tuple[int, int]
    boxes: tuple[LineBox, ...]
    text: str
    score: float
    sentence: str = ""  # the answer sentence it supports

    def to_record(self) -> dict[str, Any]:
        """JSON-ready values: what `ask --json` prints and the chat store keeps."""
        return {"sentence": self.sentence, "text": self.text, "page": self.page,
                "chunk_id": self.chunk_id, "char_span": list(self.char_span), "score": self.score,
                "bboxes": [[b.page, b.x0, b.y0, b.x1, b.y1] for b in self.boxes]}  # fmt: skip

    @classmethod
    def from_record(cls, r: dict[str, Any]) -> Evidence:
        boxes = tuple(LineBox(int(p), x0, y0, x1, y1) for p, x0, y0, x1, y1 in r["bboxes"])
        span = (int(r["char_span"][0]), int(r["char_span"][1]))
        page = None if r.get("page") is None else int(r["page"])
        return cls(str(r["chunk_id"]), page, span, boxes, str(r["text"]), float(r["score"]),
                   str(r.get("sentence", "")))  # fmt: skip


@dataclass(frozen=True, slots=True)
class Citation:
    n: int
    chunk: Chunk
    support: float
    inferred: bool = False  # no [n] marker: attributed after generation by support
    evidence: tuple[Evidence, ...] = ()  # per cited sentence, best first

    @property
    def page(self) -> int | None:
        """The page of the best evidence (the page that holds the fact), else the chunk's."""
        for ev in self.evidence:
            if ev.page is not None:
                return ev.page
        return self.chunk.page


@dataclass(frozen=True, slots=True)
class Answer:
    question: str
    answer: str
    chat_id: str | None
    citations: tuple[Citation, ...]
    passages: tuple[Passage, ...]
    unsupported_sentences: tuple[str, ...]
    refused: bool
    reranker: str
    gpu_offload: bool
    timings: dict[str, float] = field(default_factory=dict)
    calculations: tuple[CheckedCalculation, ...] = ()  # its "Calculation:" lines, checked
    route: RouteInfo = field(default_factory=RouteInfo.default)  # how it was answered
    focus: DocFocus | None = None  # the documents the question names, searched first
    items: tuple[ListedItem, ...] = ()  # every item of a list or count answer


class Stage(StrEnum):
    """What an answer being prepared is waiting on (reported so that the wait is visible)."""

    SEARCHING = "searching"  # rewriting a follow-up, retrieving and re-ranking
    RESTORING = "restoring"  # loading (or first building) the cached state of the pinned core
    READING = "reading"  # the model evaluates the prompt (prefill)
    WRITING = "writing"  # the first piece of the answer has arrived
    SCANNING = "scanning"  # a list or count reads every passage in scope
    JUDGING = "judging"  # the model decides the candidates that matching could not


_STAGE_TEXT = {
    Stage.SEARCHING: "Searching your documents\u2026",
    Stage.RESTORING: "Loading the pinned documents\u2026",
    Stage.WRITING: "Writing\u2026",
}


@dataclass(frozen=True, slots=True)
class AnswerStage:
    """One step of preparing an answer. `passages` are known once retrieval has ended (the
    answer's own passages, core first); `prefill_done` of `prefill_total` prompt tokens are
    evaluated (a total of 0: the engine cannot tell, as an LLM server cannot); while scanning
    or judging they count passages or candidates, and `note` says so in words."""

    stage: Stage
    passages: tuple[Passage, ...] = ()
    prompt_tokens: int = 0
    prefill_done: int = 0
    prefill_total: int = 0
    note: str = ""

    @property
    def progress(self) -> float | None:
        """The fraction of the prompt evaluated, or None when it is not known."""
        return self.prefill_done / self.prefill_total if self.prefill_total > 0 else None

    def describe(self) -> str:
        """One short line for a person: the GUI's pending answer and the CLI's stderr."""
        if self.note or self.stage is not Stage.READING:
            return self.note or _STAGE_TEXT.get(self.stage, "")
        n = len(self.passages)
        text = f"Reading {n} passage{'' if n == 1 else 's'}"
        text += f" ({self.prompt_tokens:,} tokens)\u2026" if self.prompt_tokens else "\u2026"
        progress = self.progress
        return text if progress is None else f"{text} {progress:.0%}"
