"""Generates small text PDFs with PyMuPDF for the GUI tests (and the bundled smoke sample)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

SAMPLE_PAGES = (
    (
        "Desktop RAG sample: the Lindqvist Observatory",
        "This sample document is bundled with Desktop RAG for its smoke test.",
        "The Lindqvist Observatory stands on a granite ridge above the village of Sarek.",
        "It was founded by the astronomer Maja Lindqvist, who ran it for thirty years.",
        "Visitors reach the ridge by a gravel road that is closed in deep winter.",
    ),
    (
        "Instruments",
        "The main telescope is a reflector with a mirror of 1.2 metres.",
        "The observatory's main telescope was completed in 1987 after six years of work.",
        "A smaller solar telescope was added in 2004 for public viewing days.",
        "Both instruments are maintained by volunteers from the regional astronomy club.",
    ),
)


def make_pdf(path: Path, pages: Sequence[Sequence[str]], fontsize: float = 12) -> Path:
    """One text line per entry, 24 points apart, starting 90 points from the top."""
    import pymupdf

    doc = pymupdf.open()
    for lines in pages:
        page = doc.new_page(width=595, height=842)
        for i, line in enumerate(lines):
            page.insert_text((72, 90 + i * 24), line, fontsize=fontsize)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(str(path))
    doc.close()
    return path


if __name__ == "__main__":
    make_pdf(Path("desktop_rag/gui/resources/sample.pdf"), SAMPLE_PAGES)
