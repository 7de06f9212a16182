"""Test documents generated on the fly with PyMuPDF (known text at known pages and positions)."""

from __future__ import annotations

from pathlib import Path

import pymupdf

FILLER = (
    "Renewable energy sources such as wind and solar power are growing quickly around the world. "
    "Grid operators balance supply and demand every second of the day. "
)
KNOWN = "The secret launch code of the purple giraffe is hidden on page two."


def make_pdf(path: Path, pages: int = 3, known_page: int = 2, filler_repeats: int = 6) -> Path:
    """A PDF whose page `known_page` holds KNOWN at (72, 400) (baseline), filler elsewhere."""
    doc = pymupdf.open()
    for number in range(1, pages + 1):
        page = doc.new_page(width=595, height=842)
        page.insert_textbox(pymupdf.Rect(72, 72, 523, 380), FILLER * filler_repeats, fontsize=10)
        if number == known_page:
            page.insert_text((72, 400), KNOWN, fontsize=11)
    doc.set_metadata({"title": f"Test document {path.stem}"})
    doc.save(path)
    doc.close()
    return path


def make_encrypted_pdf(path: Path) -> Path:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Top secret text behind a password.")
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="pw", owner_pw="owner")
    doc.close()
    return path


def make_scanned_pdf(path: Path) -> Path:
    """Pages with only a drawn picture (no text layer), like a scan."""
    doc = pymupdf.open()
    for _ in range(2):
        page = doc.new_page()
        page.draw_rect(pymupdf.Rect(50, 50, 300, 300), color=(0, 0, 0), fill=(0.5, 0.5, 0.5))
    doc.save(path)
    doc.close()
    return path


def make_image_scan_pdf(path: Path, lines: list[str], zoom: float = 2.0) -> Path:
    """A real scan's structure: each page is one picture of typed text, with no text layer.
    Line n is typed at y = 100 + 40 n points, x = 72."""
    typed = pymupdf.open()
    page = typed.new_page()
    for n, line in enumerate(lines):
        page.insert_text((72, 100 + 40 * n), line, fontsize=14)
    picture = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom))
    scan = pymupdf.open()
    scan.new_page(width=page.rect.width, height=page.rect.height).insert_image(
        page.rect, pixmap=picture
    )
    scan.save(path)
    scan.close()
    typed.close()
    return path


def make_truncated_pdf(path: Path, source: Path) -> Path:
    data = source.read_bytes()
    path.write_bytes(data[: len(data) // 3])
    return path


def write_note(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


NOTE = """---
title: Garden notes
tags: [plants]
---
# Garden

Tomatoes need full sun and regular watering.

## Pests

Aphids gather under the leaves of the bean plants in early summer.

### Remedies

Ladybirds eat aphids; a soap spray also helps.
"""


def text_pdfs(folder: Path, pages_by_name: dict[str, list[str]]) -> Path:
    """A folder of PDFs, one line of text at the top of each page (the evaluation tests)."""
    folder.mkdir()
    for name, pages in pages_by_name.items():
        doc = pymupdf.open()
        for text in pages:
            doc.new_page().insert_text((72, 72), text, fontsize=11)
        doc.save(folder / name)
        doc.close()
    return folder
