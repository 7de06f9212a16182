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

from desktop_rag.domain import DocKind, Reason
from desktop_rag.ingest.notes import load_markdown, load_text
from desktop_rag.ingest.ocr import OcrConfig
from desktop_rag.ingest.office import EVERYDAY_SUFFIXES, load_everyday
from desktop_rag.ingest.page_reader import PageReader
from desktop_rag.ingest.page_text import page_segments
from desktop_rag.ingest.page_workers import PageWorkers
from desktop_rag.ingest.pdf_pages import EmptyDocumentError, UnreadableDocumentError, open_pdf
from desktop_rag.ingest.segments import UNSUPPORTED, LoadedDocument, LoadError, Segment
from desktop_rag.store.titles import clean, shown_title

log = logging.getLogger(__name__)

PDF_SUFFIXES = frozenset({".pdf"})
PAGED_SUFFIXES = frozenset({".epub", ".xps", ".oxps", ".fb2", ".mobi", ".cbz", ".html", ".htm",
                            ".xhtml"})
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd"})
TEXT_SUFFIXES = frozenset({".txt", ".text", ".rst", ".org", ".csv", ".log"})
SUPPORTED = (PDF_SUFFIXES | PAGED_SUFFIXES | MARKDOWN_SUFFIXES | TEXT_SUFFIXES
             | EVERYDAY_SUFFIXES)  # fmt: skip
_NO_OCR_PREFIX = "no extractable text: looks scanned"
_NO_OCR = f"{_NO_OCR_PREFIX}; OCR is not available"
SCANNED = (
    f"{_NO_OCR} (it needs Tesseract's language data, e.g. the tesseract-ocr-eng package, "
    "and ingest.ocr = auto)"
)
SCANNED_OCR = "no extractable text: looks scanned, and OCR read no text either"
NO_TEXT = "no extractable text: no text layer and no scanned images"
ENCRYPTED = "password-protected; decrypt it first (OCR/decryption not available)"
NO_PAGES = "cannot open: no pages (corrupt, truncated or not a valid document)"
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
    if suffix in PAGED_SUFFIXES or suffix in EVERYDAY_SUFFIXES:
        return DocKind.OTHER
    if suffix in MARKDOWN_SUFFIXES:
        return DocKind.MARKDOWN
    if suffix in TEXT_SUFFIXES:
        return DocKind.TEXT
    return None


def load(
    path: Path, ocr: OcrConfig | None = None, workers: PageWorkers | None = None,
    tables: bool = False,
) -> LoadedDocument:
    """Opens `path`; raises LoadError with a user-facing reason. With `ocr`, pages of a PDF that
    have no text layer but have images are read by OCR (in `workers` when given); with `tables`,
    the pages of a PDF that look tabular are noted in `table_pages` for the table pass (their
    text comes as plain lines: see ingest/table_pass.py)."""
    kind = kind_of(path)
    if kind is None:
        suffix = path.suffix or path.name
        raise LoadError(Reason.UNSUPPORTED, f"{UNSUPPORTED} '{suffix}'", skip=True)
    if kind is DocKind.MARKDOWN:
        return load_markdown(path)
    if kind is DocKind.TEXT:
        return load_text(path)
    if path.suffix.lower() in EVERYDAY_SUFFIXES:
        return load_everyday(path)
    return _load_paged(path, kind, ocr, workers, tables and kind is DocKind.PDF)


def _open(path: Path) -> Any:
    try:
        return open_pdf(path)
    except EmptyDocumentError as exc:
        raise LoadError(Reason.EMPTY, "empty file (0 bytes)", skip=True) from exc
    except (UnreadableDocumentError, RuntimeError, ValueError) as exc:
        log.debug("cannot open %s: %s", path, exc)
        raise LoadError(
            Reason.CORRUPT, "cannot open: the file is corrupt, truncated or not a valid document"
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
        raise LoadError(
            Reason.TOO_NESTED, f"cannot open: elements nested more than {MAX_MARKUP_DEPTH} deep"
        )


def _load_paged(
    path: Path, kind: DocKind, ocr: OcrConfig | None, workers: PageWorkers | None, tables: bool
) -> LoadedDocument:
    _check_markup(path)
    doc = _open(path)
    pages, title, stated = _read_head(doc, path)
    loaded = LoadedDocument(kind, title, pages, iter(()), empty_is_skip=False, stated_title=stated)
    if kind is DocKind.PDF:
        loaded.set_empty(Reason.SCANNED, SCANNED)
    else:
        ocr = None  # only PDFs are scans
        loaded.set_empty(Reason.NO_TEXT, "no extractable text")
    if getattr(doc, "is_repaired", False):  # PyMuPDF versions without it repair silently
        loaded.add_note(Reason.REPAIRED, REPAIRED)
    loaded.segments = _segments(doc, loaded, PageReader(ocr, workers, path, tables))
    return loaded


def _read_head(doc: Any, path: Path) -> tuple[int, str, str | None]:
    """The page count and titles of an open document; it is closed when they cannot be read."""
    try:
        if doc.needs_pass:
            raise LoadError(Reason.ENCRYPTED, ENCRYPTED)
        pages = int(doc.page_count)
        if pages == 0:
            raise LoadError(Reason.CORRUPT, NO_PAGES)
        return (pages, *_titles(doc, path))
    except LoadError:
        doc.close()
        raise
    except Exception as exc:
        doc.close()
        raise LoadError(Reason.CORRUPT, f"cannot read the document structure: {exc}") from exc


def _titles(doc: Any, path: Path) -> tuple[str, str | None]:
    """The title to show and the one the metadata states (kept searchable when not shown)."""
    stated = clean((doc.metadata or {}).get("title")) or None
    return shown_title(stated, str(path)), stated


def _segments(doc: Any, loaded: LoadedDocument, reader: PageReader) -> Iterator[Segment]:
    try:
        for number, page_dict in reader.read(doc):
            yield from page_segments(page_dict, number)
    finally:
        doc.close()
    loaded.table_pages = tuple(reader.table_pages)
    loaded.reader_mark = reader.mark if loaded.kind is DocKind.PDF else None
    if reader.ocr is not None:  # shown only if no text came out
        loaded.set_empty(Reason.NO_TEXT, SCANNED_OCR if reader.ocr_tried else NO_TEXT)
    if reader.ocr_error:
        loaded.set_empty(Reason.OCR_FAILED, f"{_NO_OCR_PREFIX}; OCR failed: {reader.ocr_error}")
    if reader.unreadable:  # then it is damage, not a scan
        why = f"{reader.unreadable} of {loaded.pages} page(s) unreadable: corrupt document"
        loaded.set_empty(Reason.CORRUPT, why)
    if reader.ocr_pages:
        loaded.add_note(Reason.OCR, f"text of {reader.ocr_pages} scanned page(s) read by OCR")
