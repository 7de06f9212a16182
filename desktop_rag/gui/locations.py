"""Where a chunk lives on screen: built on a worker because notes need a file read."""

from __future__ import annotations

from pathlib import Path

from desktop_rag.domain import Chunk, DocKind
from desktop_rag.errors import NotFoundError
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


def chunk_location(services: GuiServices, chunk: Chunk) -> Location:
    if chunk.kind is DocKind.PDF:
        return Location(chunk.title, chunk.path, chunk.page or 1, chunk.bboxes)
    if chunk.kind in (DocKind.MARKDOWN, DocKind.TEXT):
        return Location(chunk.title, chunk.path, text=read_text(chunk.path), span=chunk.char_span)
    return _joined_location(services, chunk)


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
