"""OCR of scanned pages: which Tesseract language data to use, how large a page is rendered,
(The PyMuPDF calls are in `loaders`; the worker processes in `page_workers`.)

PyMuPDF carries the Tesseract engine inside MuPDF; all it needs is a folder of `*.traineddata`
files (Debian/Ubuntu: `apt install tesseract-ocr-eng`; macOS: `brew install tesseract`; Windows:
the UB Mannheim installer). Nothing is downloaded: without the data, scanned pages are reported
as such, with this hint.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from pathlib import Path

from desktop_rag.config import IngestSettings

HINT = (
    "OCR needs Tesseract's language data: install it (Debian/Ubuntu: apt install "
    "tesseract-ocr-eng; macOS: brew install tesseract) or set ingest.tessdata"
)
_USUAL = (
    "/usr/share/tesseract-ocr/*/tessdata",
    "/usr/share/tessdata",
    "/usr/local/share/tessdata",
    "/opt/homebrew/share/tessdata",
    "/opt/local/share/tessdata",
    "C:/Program Files/Tesseract-OCR/tessdata",
)


@dataclass(frozen=True, slots=True)
class OcrConfig:
    """How pages without a text layer are read: Tesseract with this data folder."""

    tessdata: Path
    language: str = "eng"
    dpi: int = 150
    pictures: bool = False  # also the words inside pictures on pages with text (picture_text)


MAX_OCR_PIXELS = 40_000_000  # about an A0 sheet at 150 dpi; a poster or a bogus page size
MIN_OCR_DPI = 24


def ocr_dpi(width_pt: float, height_pt: float, wanted: int) -> int:
    """The resolution to render a page at for OCR: `wanted`, or less for a page so large that
    its picture would pass MAX_OCR_PIXELS (a page can claim to be metres wide)."""
    inches = max(width_pt, 1.0) * max(height_pt, 1.0) / 72.0**2
    return max(min(wanted, int((MAX_OCR_PIXELS / inches) ** 0.5)), MIN_OCR_DPI)


def _candidates(configured: str) -> list[str]:
    named = [configured, os.environ.get("TESSDATA_PREFIX", "")]
    return [p for p in named if p] + sorted(
        (hit for pattern in _USUAL for hit in glob.glob(pattern)), reverse=True
    )


def find_tessdata(configured: str, language: str) -> Path | None:
    """The first folder holding a `.traineddata` file for every language in `language`."""
    wanted = [lang for lang in language.split("+") if lang]
    for folder in map(Path, _candidates(configured)):
        if wanted and all((folder / f"{lang}.traineddata").is_file() for lang in wanted):
            return folder
    return None


def ocr_config(settings: IngestSettings) -> OcrConfig | None:
    """The OCR to use for this ingestion, or None (switched off, or no language data)."""
    if settings.ocr == "off":
        return None
    folder = find_tessdata(settings.tessdata, settings.ocr_language)
    if folder is None:
        return None
    pictures = settings.picture_text == "auto"
    return OcrConfig(folder, settings.ocr_language, settings.ocr_dpi, pictures)
