"""Opens files into LoadedDocuments. The only module that imports PyMuPDF.

PDF and the other formats PyMuPDF reads (EPUB, XPS, FB2, MOBI, CBZ, HTML) are read one page at a
time: each page's text is built from its lines in reading order, every line keeping its box in
PDF points (top-left origin), so a chunk knows its page, character span and line boxes.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from desktop_rag.domain import DocKind
from desktop_rag.ingest.notes import load_markdown, load_text
from desktop_rag.ingest.ocr import OcrConfig
from desktop_rag.ingest.page_text import has_text, page_segments
from desktop_rag.ingest.segments import LoadedDocument, LoadError, Segment

log = logging.getLogger(__name__)

PDF_SUFFIXES = frozenset({".pdf"})
PAGED_SUFFIXES = frozenset({".epub", ".xps", ".oxps", ".fb2", ".mobi", ".cbz", ".html", ".htm",
                            ".xhtml"})
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd"})
TEXT_SUFFIXES = frozenset({".txt", ".text", ".rst", ".org", ".csv", ".log"})
SUPPORTED = PDF_SUFFIXES | PAGED_SUFFIXES | MARKDOWN_SUFFIXES | TEXT_SUFFIXES
_NO_OCR_PREFIX = "no extractable text: looks scanned"
_NO_OCR = f"{_NO_OCR_PREFIX}; OCR is not available"
SCANNED = (
    f"{_NO_OCR} (it needs Tesseract's language data, e.g. the tesseract-ocr-eng package, "
    "and ingest.ocr = auto)"
)
SCANNED_OCR = "no extractable text: looks scanned, and OCR read no text either"
NO_TEXT = "no extractable text: no text layer and no scanned images"
REPAIRED = "the file is damaged (truncated or corrupt) and was repaired; some text may be missing"
MARKUP_SUFFIXES = frozenset({".html", ".htm", ".xhtml", ".fb2"})
MAX_MARKUP_DEPTH = 4000  # MuPDF refuses deeper nesting anyway, after time quadratic in depth
_TAG = re.compile(rb"<(/?)([A-Za-z][\w:.-]*)[^<>]*?(/?)>")
_NOT_NESTING = frozenset(
    b"area base br col embed hr img input link meta source track wbr p li dt dd tr td th option"
    b" colgroup tbody thead tfoot rb rt rp optgroup".split()
)


def failed_for_want_of_ocr(reason: str | None) -> bool:
    """Whether a recorded failure is a scan that OCR could read (older wordings included)."""
    return bool(reason and reason.startswith(_NO_OCR))


def kind_of(path: Path) -> DocKind | None:
    suffix = path.suffix.lower()
    if suffix in PDF_SUFFIXES:
        return DocKind.PDF
    if suffix in PAGED_SUFFIXES:
        return DocKind.OTHER
    if suffix in MARKDOWN_SUFFIXES:
        return DocKind.MARKDOWN
    if suffix in TEXT_SUFFIXES:
        return DocKind.TEXT
    return None


def load(path: Path, ocr: OcrConfig | None = None) -> LoadedDocument:
    """Opens `path`; raises LoadError with a user-facing reason. With `ocr`, pages of a PDF that
    have no text layer but have images are read by OCR."""
    kind = kind_of(path)
    if kind is None:
        raise LoadError(f"unsupported file type '{path.suffix or path.name}'", skip=True)
    if kind is DocKind.MARKDOWN:
        return load_markdown(path)
    if kind is DocKind.TEXT:
        return load_text(path)
    return _load_paged(path, kind, ocr)


def _open(path: Path) -> Any:
    import pymupdf

    try:
        return pymupdf.open(path)  # type: ignore[no-untyped-call]
    except pymupdf.EmptyFileError as exc:
        raise LoadError("empty file (0 bytes)", skip=True) from exc
    except (pymupdf.FileDataError, RuntimeError, ValueError) as exc:
        log.debug("cannot open %s: %s", path, exc)
        raise LoadError(
            "cannot open: the file is corrupt, truncated or not a valid document"
        ) from exc


def markup_depth(data: bytes) -> int:
    """How deep the elements of an HTML/XML file nest (void and auto-closed tags not counted)."""
    depth = deepest = 0
    for match in _TAG.finditer(data):
        closing, name, empty = match.groups()
        if empty or name.lower() in _NOT_NESTING:
            continue
        depth = max(0, depth - 1) if closing else depth + 1
        deepest = max(deepest, depth)
    return deepest


def _check_markup(path: Path) -> None:
    suffix = path.suffix.lower()
    if suffix in MARKUP_SUFFIXES and markup_depth(path.read_bytes()) > MAX_MARKUP_DEPTH:
        raise LoadError(f"cannot open: elements nested more than {MAX_MARKUP_DEPTH} deep")


def _load_paged(path: Path, kind: DocKind, ocr: OcrConfig | None) -> LoadedDocument:
    _check_markup(path)
    doc = _open(path)
    try:
        if doc.needs_pass:
            raise LoadError("password-protected; decrypt it first (OCR/decryption not available)")
        pages = int(doc.page_count)
        if pages == 0:
            raise LoadError("cannot open: no pages (corrupt, truncated or not a valid document)")
        title = _title(doc, path)
    except LoadError:
        doc.close()
        raise
    except Exception as exc:
        doc.close()
        raise LoadError(f"cannot read the document structure: {exc}") from exc
    ocr = ocr if kind is DocKind.PDF else None
    reason = SCANNED if kind is DocKind.PDF else "no extractable text"
    note = REPAIRED if getattr(doc, "is_repaired", False) else None
    loaded = LoadedDocument(kind, title, pages, iter(()), note=note, empty_reason=reason,
                            empty_is_skip=False)
    loaded.segments = _segments(doc, loaded, PageReader(ocr))
    return loaded


def _title(doc: Any, path: Path) -> str:
    meta = doc.metadata or {}
    title = str(meta.get("title") or "").strip()
    junk = ("microsoft word", "untitled", "slide 1")
    if len(title) < 3 or title.lower().startswith(junk) or title.lower().endswith(".pdf"):
        return path.stem
    return title


def _segments(doc: Any, loaded: LoadedDocument, reader: PageReader) -> Iterator[Segment]:
    unreadable = 0
    try:
        for index in range(doc.page_count):
            try:
                page = doc.load_page(index)
                yield from page_segments(reader.page_dict(page), index + 1)
            except LoadError:
                raise
            except Exception as exc:  # one bad page must not lose the document
                log.warning("page %d unreadable: %s", index + 1, exc)
                unreadable += 1
    finally:
        doc.close()
    if reader.ocr is not None:  # shown only if no text came out
        loaded.empty_reason = SCANNED_OCR if reader.ocr_tried else NO_TEXT
    if reader.ocr_error:
        loaded.empty_reason = f"{_NO_OCR_PREFIX}; OCR failed: {reader.ocr_error}"
    if unreadable:  # then it is damage, not a scan
        loaded.empty_reason = f"{unreadable} of {loaded.pages} page(s) unreadable: corrupt document"
    if reader.ocr_pages:
        ocr_note = f"text of {reader.ocr_pages} scanned page(s) read by OCR"
        loaded.note = f"{loaded.note}; {ocr_note}" if loaded.note else ocr_note


class PageReader:
    """A page's text blocks; a page with images but no text layer is read by OCR when on."""

    def __init__(self, ocr: OcrConfig | None) -> None:
        self.ocr = ocr
        self.ocr_tried = self.ocr_pages = 0
        self.ocr_error = ""

    def page_dict(self, page: Any) -> dict[str, Any]:
        import pymupdf

        flags = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES
        found: dict[str, Any] = page.get_text("dict", sort=True, flags=flags)
        if self.ocr is None or has_text(found) or not page.get_images():
            return found
        self.ocr_tried += 1
        try:
            textpage = page.get_textpage_ocr(
                flags=flags, language=self.ocr.language, dpi=self.ocr.dpi, full=True,
                tessdata=str(self.ocr.tessdata),
            )
        except Exception as exc:  # MuPDF errors, e.g. damaged language data: no text then
            log.warning("OCR of page %d failed: %s", page.number + 1, exc)
            self.ocr_error = str(exc).split(": ", 1)[-1]
            return found
        read: dict[str, Any] = page.get_text("dict", sort=True, flags=flags, textpage=textpage)
        self.ocr_pages += int(has_text(read))
        return read
