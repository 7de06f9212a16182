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
        "The village below has a bakery, a small school and a museum of local history.",
        "Farmers in the valley grow barley and potatoes and keep sheep on the hillsides.",
        "The ridge is known for clear skies, dry air and very little light pollution.",
        "In summer the observatory hosts a week of lectures for students and amateurs.",
        "Guided tours start at the visitor centre next to the car park every Saturday.",
    ),
    (
        "Instruments",
        "The main telescope is a reflector with a mirror of 1.2 metres in diameter.",
        "The observatory's main telescope was completed in 1987 after six years of work.",
        "A smaller solar telescope was added in 2004 for public viewing days.",
        "Both instruments are maintained by volunteers from the regional astronomy club.",
        "The dome of the main telescope rotates on twelve steel wheels driven by a motor.",
        "A spectrograph attached to the reflector splits starlight into its colours.",
        "Cameras cooled to minus eighty degrees record faint galaxies and nebulae.",
        "The control room sits below the dome and is heated during observing nights.",
        "Observers book telescope time through the club's online calendar each season.",
        "Calibration frames are taken at dusk and dawn to correct the camera images.",
        "The mirror is cleaned every spring and recoated with aluminium every ten years.",
        "A weather station on the roof closes the dome automatically when it rains.",
        "Data from each night are copied to the archive and to a university server.",
        "The solar telescope uses a special filter that makes it safe to look at the sun.",
    ),
)


def make_pdf(path: Path, pages: Sequence[Sequence[str]], fontsize: float = 11) -> Path:
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
