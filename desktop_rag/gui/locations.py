"""Where a chunk lives on screen: built on a worker because notes need a file read."""

from __future__ import annotations

import re
from pathlib import Path

from desktop_rag.domain import Chunk, DocKind, Evidence
from desktop_rag.domain.errors import NotFoundError
from desktop_rag.gui.everyday_view import everyday_location, is_everyday
from desktop_rag.gui.facade import GuiServices
from desktop_rag.gui.library_model import LibraryRow
from desktop_rag.gui.viewer import Location

SEPARATOR = "\n\n"


def read_text(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise NotFoundError(f"Cannot open {path}: {exc.strerror}",
                            "the file was moved or deleted; re-index the library") from exc


def chunk_location(
    services: GuiServices, chunk: Chunk, evidence: Evidence | None = None
) -> Location:
    """The chunk on screen: its evidence (when given) highlighted strongly, the rest lightly."""
    if chunk.kind is DocKind.PDF:
        if evidence is None or not evidence.boxes:
            return Location(chunk.title, chunk.path, chunk.page or 1, chunk.bboxes)
        page = evidence.page or chunk.page or 1
        return Location(chunk.title, chunk.path, page, evidence.boxes, context=chunk.bboxes)
    if chunk.kind in (DocKind.MARKDOWN, DocKind.TEXT):
        text = read_text(chunk.path)
        strong = _evidence_span(text, chunk.char_span, evidence)
        if strong is None:
            return Location(chunk.title, chunk.path, text=text, span=chunk.char_span)
        return Location(chunk.title, chunk.path, text=text, span=strong,
                        context_span=chunk.char_span)  # fmt: skip
    if is_everyday(chunk.path):
        return everyday_location(services, chunk, evidence)
    return _joined_location(services, chunk)


def _evidence_span(
    text: str, around: tuple[int, int], evidence: Evidence | None
) -> tuple[int, int] | None:
    """Where the evidence sentence is in a note's file, searched from the chunk's start (the
    chunk's text joins the file's lines, so the sentence is matched with flexible spaces)."""
    if evidence is None or not evidence.text.strip():
        return None
    pattern = r"\s+".join(re.escape(w) for w in evidence.text.split())
    found = re.compile(pattern).search(text, max(around[0] - 200, 0))
    return (found.start(), found.end()) if found else None


def _joined_location(services: GuiServices, chunk: Chunk) -> Location:
    """Other formats: the document's chunks joined, the cited one highlighted."""
    parts: list[str] = []
    span = (0, 0)
    offset = 0
    for other in services.document_chunks(chunk.doc_id):
        if other.chunk_id == chunk.chunk_id:
            span = (offset, offset + len(other.text))
        parts.append(other.text)
        offset += len(other.text) + len(SEPARATOR)
    return Location(chunk.title, chunk.path, text=SEPARATOR.join(parts), span=span)


def row_location(services: GuiServices, row: LibraryRow) -> Location:
    """The start of a library document."""
    if row.kind == DocKind.PDF.value:
        return Location(row.title, row.path, 1)
    if row.kind in (DocKind.MARKDOWN.value, DocKind.TEXT.value):
        return Location(row.title, row.path, text=read_text(row.path))
    chunks = services.document_chunks(row.doc_id) if row.doc_id else []
    return Location(row.title, row.path, text=SEPARATOR.join(c.text for c in chunks))
