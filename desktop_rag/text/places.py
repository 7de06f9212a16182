"""How a citation names its place in a file without page geometry: "slide 2: Launch plan",
"sheet Budget, cells A8:D8", a Word section's heading path, an e-mail's heading. Qt-free: the
CLI prints it and the viewer shows it in its title. PDFs and what PyMuPDF reads are named by
their page instead (None here)."""

from __future__ import annotations

import re
from pathlib import Path

from desktop_rag.domain import Chunk

SLIDES = frozenset({".pptx", ".pptm", ".odp"})
SHEETS = frozenset({".xlsx", ".xlsm", ".ods"})
TEXTUAL = SLIDES | SHEETS | frozenset({".docx", ".docm", ".dotx", ".dotm", ".odt", ".eml",
                                       ".mbox"})
_CELLS = re.compile(r"^([A-Z]{1,3}\d+:[A-Z]{1,3}\d+) \u2014 ")


def place(chunk: Chunk, evidence: str = "") -> str | None:
    """Where in the file the chunk (and its evidence line) is, in the file's own terms; None
    for a file named by pages."""
    suffix = Path(chunk.path).suffix.lower()
    if suffix not in TEXTUAL:
        return None
    where = " \u203a ".join(chunk.heading_path)
    if suffix in SLIDES and where:
        return where[0].lower() + where[1:]
    if suffix in SHEETS and where:
        cells = _CELLS.match(evidence)
        name = where.removeprefix("Sheet ")
        return f"sheet {name}" + (f", cells {cells.group(1)}" if cells else "")
    if where:
        return where
    return f"page {chunk.page}" if chunk.page else None
