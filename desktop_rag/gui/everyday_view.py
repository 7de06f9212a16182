"""Where a cited Word section, slide, sheet row or e-mail is shown: its text, highlighted.

These files have no page images the viewer could draw (rendering a slide or a sheet needs an
Office suite), so the viewer shows the text the library read: the cited slide, sheet or message
whole (the chunks of its page; a Word file, which has no pages, whole), the cited passage lit
lightly and the sentence that supports the answer strongly, scrolled into view, like a note.
The title names the place: "slide 2: Launch plan", "sheet Budget, cells A8:D8", the section.
"""

from __future__ import annotations

from pathlib import Path

from desktop_rag.domain import Chunk, Evidence
from desktop_rag.gui.facade import GuiServices
from desktop_rag.gui.viewer import Location
from desktop_rag.text.places import TEXTUAL, place

SEPARATOR = "\n\n"


def is_everyday(path: str) -> bool:
    """Whether the file is a Word, PowerPoint, Excel or e-mail file (shown as text)."""
    return Path(path).suffix.lower() in TEXTUAL


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
    where = place(chunk, evidence.text if evidence is not None else "")
    title = f"{chunk.title} \u2014 {where}" if where else chunk.title
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
