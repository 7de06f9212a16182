"""OpenDocument text, presentations and spreadsheets (.odt, .odp, .ods) with the standard
library: the only module that reads their XML.

An OpenDocument file is a zip (checked by office_guard like the Office formats) whose
content.xml holds the body; ElementTree's expat refuses entity bombs by itself. The result is
what the Office adapters give: a text's paragraphs under their heading path, lists marked, tables
as labelled rows and footnotes at the end; a presentation's pages one page each, titled "Slide N:
title", notes marked; a spreadsheet's tables one page each, read like an Excel sheet. Repeated
rows and columns (LibreOffice writes a sheet's empty tail as one cell repeated a million times)
are expanded only where they hold a value, and at most MAX_REPEAT times each.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

from desktop_rag.domain import DocKind, Reason
from desktop_rag.ingest.office_guard import guarded, parse_failure
from desktop_rag.ingest.office_text import PageText
from desktop_rag.ingest.office_xlsx import sheet_segments
from desktop_rag.ingest.segments import LoadedDocument, LoadError, Segment
from desktop_rag.store.titles import clean, shown_title

NS = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
    "presentation": "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0",
    "dc": "http://purl.org/dc/elements/1.1/",
}
MAX_REPEAT = 100  # a repeated row or cell with a value is read this many times at most
MAX_ROWS = 1_000_000
MANIFEST = "META-INF/manifest.xml"
ENCRYPTED = "password-protected (an encrypted OpenDocument file); save it without a password first"


def q(name: str) -> str:
    """"text:p" -> "{urn:...:text:1.0}p"."""
    prefix, local = name.split(":")
    return f"{{{NS[prefix]}}}{local}"


def load_odf(path: Path) -> LoadedDocument:
    body, stated = _read(path)
    suffix = path.suffix.lower()
    kind = {".odt": "text", ".odp": "presentation", ".ods": "spreadsheet"}[suffix]
    part = body.find(q(f"office:{kind}"))
    if part is None:
        raise LoadError(Reason.CORRUPT, f"cannot open: no {kind} in the file's content")
    pages = 0 if kind == "text" else len(_pages(part, kind))
    loaded = LoadedDocument(DocKind.OTHER, shown_title(stated, str(path)), pages, iter(()),
                            stated_title=stated)
    loaded.set_empty(loaded.empty_code, "no text")
    reader = {"text": _text_segments, "presentation": _slides, "spreadsheet": _sheets}[kind]
    loaded.segments = guarded(reader(part))
    return loaded


def _read(path: Path) -> tuple[ElementTree.Element, str | None]:
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            manifest = archive.read(MANIFEST) if MANIFEST in names else b""
            if b"encryption-data" in manifest:  # its parts are encrypted: no XML to read
                raise LoadError(Reason.ENCRYPTED, ENCRYPTED)
            content = archive.read("content.xml")
            meta = archive.read("meta.xml") if "meta.xml" in names else b""
        body = ElementTree.fromstring(content).find(q("office:body"))
        title = ElementTree.fromstring(meta).find(f".//{q('dc:title')}") if meta else None
    except LoadError:
        raise
    except Exception as exc:  # zipfile, expat (an entity bomb, broken XML), a missing part
        raise parse_failure(exc) from exc
    if body is None:
        raise LoadError(Reason.CORRUPT, "cannot open: the file's content has no body")
    return body, (clean(title.text) or None) if title is not None else None


def _pages(part: ElementTree.Element, kind: str) -> list[ElementTree.Element]:
    tag = q("draw:page") if kind == "presentation" else q("table:table")
    return part.findall(tag)


def inline_text(element: ElementTree.Element, notes: list[str] | None = None) -> str:
    """An element's text with ODF's spaces, tabs and line breaks; a footnote's body goes to
    `notes` (its mark, a bare number glued to the word before it, is left out)."""
    parts = [element.text or ""]
    for child in element:
        if child.tag == q("text:s"):
            parts.append(" " * int(child.get(q("text:c"), "1") or 1))
        elif child.tag in (q("text:tab"), q("text:line-break")):
            parts.append(" ")
        elif child.tag == q("text:note"):
            body = child.find(q("text:note-body"))
            if notes is not None and body is not None:
                notes.append(" ".join(inline_text(p) for p in body.iter(q("text:p"))))
        else:
            parts.append(inline_text(child, notes))
        parts.append(child.tail or "")
    return "".join(parts)


def _text_segments(part: ElementTree.Element) -> Iterator[Segment]:
    page = PageText(None)
    notes: list[str] = []
    _blocks(part, page, notes, 0)
    for note in notes:
        page.add(f"Footnote: {note}", path=("Footnotes",))
    yield from page


def _blocks(element: ElementTree.Element, page: PageText, notes: list[str], depth: int) -> None:
    for child in element:
        if child.tag == q("text:h"):
            level = int(child.get(q("text:outline-level"), "1") or 1)
            text = " ".join(inline_text(child, notes).split())
            if text:
                page.heading_path = (*page.heading_path[: level - 1], text)
                page.add(text, heading=True)
        elif child.tag == q("text:p"):
            text = inline_text(child, notes)
            page.add(f"\u2022 {text}" if depth and text.strip() else text)
        elif child.tag == q("table:table"):
            title = page.heading_path[-1] if page.heading_path else "Table"
            page.add_table(child.get(q("table:name")) or title, _grid(child))
        elif child.tag in (q("text:list"), q("text:list-item")):
            _blocks(child, page, notes, depth + (child.tag == q("text:list")))
        elif child.tag in (q("text:section"), q("text:soft-page-break"), q("office:forms")):
            _blocks(child, page, notes, depth)


def _grid(table: ElementTree.Element) -> list[list[str]]:
    return [cells for _, cells in _rows(table)]


def _rows(table: ElementTree.Element) -> Iterator[tuple[int, list[str]]]:
    """(row number, cells as text) of a table, repeats expanded where they hold text."""
    number = 0
    for row in table.iter(q("table:table-row")):
        cells = _cells(row)
        repeat = int(row.get(q("table:number-rows-repeated"), "1") or 1)
        if not any(cells):
            number += repeat
            continue
        for _ in range(min(repeat, MAX_REPEAT)):
            number += 1
            if number > MAX_ROWS:
                return
            yield number, cells
        number += max(0, repeat - MAX_REPEAT)


def _cells(row: ElementTree.Element) -> list[str]:
    out: list[str] = []
    for cell in row:
        if cell.tag not in (q("table:table-cell"), q("table:covered-table-cell")):
            continue
        text = " ".join(" ".join(inline_text(p) for p in cell.iter(q("text:p"))).split())
        repeat = int(cell.get(q("table:number-columns-repeated"), "1") or 1)
        out += [text] * (min(repeat, MAX_REPEAT) if text else min(repeat, 16384 - len(out)))
        if len(out) >= 16384:
            break
    while out and not out[-1]:
        out.pop()
    return out


def _slides(part: ElementTree.Element) -> Iterator[Segment]:
    for number, slide in enumerate(part.findall(q("draw:page")), start=1):
        frames = [f for f in slide.iter(q("draw:frame"))
                  if not _in_notes(slide, f)]  # fmt: skip
        title = next((" ".join(inline_text(f).split()) for f in frames
                      if f.get(q("presentation:class")) == "title"), "")
        page = PageText(number, (f"Slide {number}: {title}" if title else f"Slide {number}",))
        page.add(title, heading=True)
        for frame in frames:
            if frame.get(q("presentation:class")) == "title":
                continue
            for table in frame.iter(q("table:table")):
                page.add_table(f"{title or f'Slide {number}'} (table)", _grid(table))
            for paragraph in frame.iter(q("text:p")):
                if not _in_table(frame, paragraph):
                    page.add(inline_text(paragraph))
        notes = slide.find(q("presentation:notes"))
        if notes is not None:
            text = " ".join(" ".join(inline_text(p) for p in notes.iter(q("text:p"))).split())
            if text:
                page.add(f"Speaker notes: {text}")
        yield from page


def _in_notes(slide: ElementTree.Element, frame: ElementTree.Element) -> bool:
    notes = slide.find(q("presentation:notes"))
    return notes is not None and any(f is frame for f in notes.iter(q("draw:frame")))


def _in_table(frame: ElementTree.Element, paragraph: ElementTree.Element) -> bool:
    return any(p is paragraph for t in frame.iter(q("table:table")) for p in t.iter(q("text:p")))


def _sheets(part: ElementTree.Element) -> Iterator[Segment]:
    for number, table in enumerate(part.findall(q("table:table")), start=1):
        yield from sheet_segments(table.get(q("table:name")) or f"Sheet{number}", number,
                                  _rows(table))
