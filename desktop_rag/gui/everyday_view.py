"""Where a cited Word section, slide, sheet row or e-mail is shown: its text, highlighted.

These files have no page images the viewer could draw (rendering a slide or a sheet needs an
Office suite), so the viewer shows the text the library read: the cited slide, sheet or message
whole (the chunks of its page; a Word file, which has no pages, whole), the cited passage lit
lightly and the sentence that supports the answer strongly, scrolled into view, like a note.
The title names the place: "slide 2: Launch plan", "sheet Budget, cells A8:D8", the section.
"""

from __future__ import annotations

import re
from pathlib import Path

from desktop_rag.domain import Chunk, Evidence
from desktop_rag.gui.facade import GuiServices
from desktop_rag.gui.viewer import Location
from desktop_rag.ingest.office import EVERYDAY_SUFFIXES

SEPARATOR = "\n\n"
_CELLS = re.compile(r"^([A-Z]{1,3}\d+:[A-Z]{1,3}\d+) \u2014 ")


def is_everyday(path: str) -> bool:
    """Whether the file is a Word, PowerPoint, Excel or e-mail file (shown as text)."""
    return Path(path).suffix.lower() in EVERYDAY_SUFFIXES


def everyday_location(
    services: GuiServices, chunk: Chunk, evidence: Evidence | None = None
) -> Location:
    """The cited chunk's page (slide, sheet, message) as text, the evidence highlighted."""
    parts: list[str] = []
    span = context = (0, 0)
    offset = 0
    for other in services.document_chunks(chunk.doc_id):
        if chunk.pages and not set(other.pages) & set(chunk.pages):
            continue
        if other.chunk_id == chunk.chunk_id:
            context = (offset, offset + len(other.text))
            span = _evidence_span(other, evidence, offset) or context
        parts.append(other.text)
        offset += len(other.text) + len(SEPARATOR)
    title = f"{chunk.title} \u2014 {place(chunk, evidence)}"
    strong_only = span == context
    return Location(title, chunk.path, text=SEPARATOR.join(parts), span=span,
                    context_span=None if strong_only else context)  # fmt: skip


def _evidence_span(
    chunk: Chunk, evidence: Evidence | None, offset: int
) -> tuple[int, int] | None:
    if evidence is None or evidence.chunk_id != chunk.chunk_id:
        return None
    start, end = evidence.char_span
    if not 0 <= start < end <= len(chunk.text):
        return None
    return offset + start, offset + end


def place(chunk: Chunk, evidence: Evidence | None = None) -> str:
    """Where in the file the chunk is, in the file's own terms."""
    path = chunk.heading_path
    where = " \u203a ".join(path) if path else ""
    suffix = Path(chunk.path).suffix.lower()
    if suffix in (".pptx", ".pptm") and where:
        return where[0].lower() + where[1:]  # "slide 2: Launch plan"
    if suffix in (".xlsx", ".xlsm") and where:
        cells = _CELLS.match(evidence.text) if evidence is not None else None
        name = where.removeprefix("Sheet ")
        return f"sheet {name}" + (f", cells {cells.group(1)}" if cells else "")
    if where:
        return where
    return f"page {chunk.page}" if chunk.page else "text"
