"""Word (.docx, .docm, .dotx) files through python-docx: the only module that imports it.

The body is read in reading order, paragraphs and tables interleaved as in the file (those in
content controls too), the text of text boxes after the paragraph they are anchored in. Each
paragraph keeps its heading path (the section a citation names); list items are marked with a
bullet; a table's rows become labelled lines under the table's caption (or its section's
heading), like a PDF table's. Headers and footers come once at the end, then footnotes,
endnotes and comments, each marked as such. A Word file has no pages of its own (they depend on
the printer), so its segments have none, like a note's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from desktop_rag.domain import DocKind
from desktop_rag.ingest.office_guard import guarded, parse_failure, without_macros
from desktop_rag.ingest.office_text import PageText
from desktop_rag.ingest.segments import LoadedDocument, LoadError, Segment
from desktop_rag.store.titles import clean, shown_title

_HEADING_STYLE = re.compile(r"^heading\s*(\d)$", re.IGNORECASE)
_CAPTION = re.compile(r"^(table|tab\.|figure|fig\.)\s*\d", re.IGNORECASE)
MACRO_SUFFIXES = frozenset({".docm", ".dotm", ".dotx"})
MAX_CONTROL_DEPTH = 20  # content controls inside content controls
EXTRA_PARTS = (("/word/footnotes.xml", "Footnote"), ("/word/endnotes.xml", "Endnote"),
               ("/word/comments.xml", "Comment"))


def load_docx(path: Path) -> LoadedDocument:
    document = _open(path)
    stated = clean(document.core_properties.title) or None
    loaded = LoadedDocument(DocKind.OTHER, shown_title(stated, str(path)), 0, iter(()),
                            stated_title=stated)
    loaded.set_empty(loaded.empty_code, "no text (an empty Word document)")
    loaded.segments = guarded(_segments(document))
    return loaded


def _open(path: Path) -> Any:
    import docx

    source: Any = without_macros(path) if path.suffix.lower() in MACRO_SUFFIXES else str(path)
    try:
        return docx.Document(source)
    except LoadError:
        raise
    except Exception as exc:  # python-docx and lxml raise many kinds on a broken package
        raise parse_failure(exc) from exc


def _segments(document: Any) -> Iterator[Segment]:
    page = PageText(None)
    path: tuple[str, ...] = ()
    last_text = ""
    for block in _blocks(document.element.body, document._body, 0):
        if hasattr(block, "rows"):
            page.add_table(_table_title(last_text, path), _grid(block))
            last_text = ""
            continue
        text = block.text.strip()
        level = _heading_level(block)
        if level and text:
            path = (*path[: level - 1], text)
            page.heading_path = path
            page.add(text, heading=True)
        elif text:
            page.add(f"\u2022 {text}" if _is_list_item(block) else text)
        for boxed in _text_boxes(block):
            page.add(boxed)
        last_text = text or last_text
    yield from page
    yield from _margins(document, page)
    yield from _extras(document, page)


def _blocks(element: Any, parent: Any, depth: int) -> Iterator[Any]:
    """The body's paragraphs and tables in order, those inside content controls (w:sdt: cover
    pages, templates' fields) included, which python-docx's own iteration leaves out."""
    from docx.oxml.ns import qn
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    for child in element.iterchildren():
        if child.tag == qn("w:p"):
            yield Paragraph(child, parent)
        elif child.tag == qn("w:tbl"):
            yield Table(child, parent)
        elif child.tag == qn("w:sdt") and depth < MAX_CONTROL_DEPTH:
            content = child.find(qn("w:sdtContent"))
            if content is not None:
                yield from _blocks(content, parent, depth + 1)


def _text_boxes(paragraph: Any) -> list[str]:
    """The text of the text boxes anchored in a paragraph, each box's paragraph once (a box is
    stored twice, for new and old Word versions)."""
    from docx.oxml.ns import qn

    seen: dict[str, None] = {}
    for box in paragraph._p.iter(qn("w:txbxContent")):
        for inner in box.iter(qn("w:p")):
            text = " ".join("".join(t.text or "" for t in inner.iter(qn("w:t"))).split())
            if text:
                seen.setdefault(text)
    return list(seen)


def _heading_level(paragraph: Any) -> int:
    name = str(getattr(paragraph.style, "name", "") or "")
    if name.lower() == "title":
        return 1
    match = _HEADING_STYLE.match(name)
    return int(match.group(1)) if match else 0


def _is_list_item(paragraph: Any) -> bool:
    name = str(getattr(paragraph.style, "name", "") or "").lower()
    ppr = paragraph._p.pPr
    return name.startswith("list") or (ppr is not None and ppr.numPr is not None)


def _table_title(before: str, path: tuple[str, ...]) -> str:
    """A caption just above the table ("Table 2: Revenue"), else its section's heading."""
    if before and _CAPTION.match(before) and len(before) < 160:
        return before
    return path[-1] if path else "Table"


def _grid(table: Any) -> list[list[str]]:
    """The table's cells row by row; a merged cell counted once in its row."""
    rows = []
    for row in table.rows:
        cells, seen = [], set()
        for cell in row.cells:
            if id(cell._tc) in seen:
                continue
            seen.add(id(cell._tc))
            cells.append(" ".join(cell.text.split()))
        rows.append(cells)
    return rows


def _margins(document: Any, page: PageText) -> Iterator[Segment]:
    """Headers and footers of every section, each distinct text once."""
    start = len(page.segments)
    seen: set[str] = set()
    for section in document.sections:
        for part, name in ((section.header, "Header"), (section.footer, "Footer")):
            text = " ".join(p.text.strip() for p in part.paragraphs if p.text.strip())
            if text and text not in seen:
                seen.add(text)
                page.add(f"{name}: {text}", path=(f"{name}s",))
    yield from page.segments[start:]


def _extras(document: Any, page: PageText) -> Iterator[Segment]:
    """Footnotes, endnotes and comments, read from their parts' XML (python-docx has no API
    for the first two), each note one segment."""
    from docx.oxml import parse_xml
    from docx.oxml.ns import qn

    start = len(page.segments)
    parts = {str(p.partname): p for p in document.part.package.iter_parts()}
    for name, label in EXTRA_PARTS:
        part = parts.get(name)
        if part is None:
            continue
        root = parse_xml(part.blob)
        for note in root:
            text = " ".join("".join(t.text or "" for t in note.iter(qn("w:t"))).split())
            if text:
                page.add(f"{label}: {text}", path=(f"{label}s",))
    yield from page.segments[start:]
