"""Markdown (heading-aware, front matter stripped) and plain-text (paragraph-aware) loaders.

Offsets index the decoded file text, so a chunk's char span points into the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from desktop_rag.domain import DocKind, Reason
from desktop_rag.ingest.segments import LoadedDocument, Segment, decode_text

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_FRONT_TITLE = re.compile(r"^title:\s*(.+?)\s*$", re.MULTILINE)
_WIKILINK = re.compile(r"!?\[\[([^\[\]|#]*)(?:#[^\[\]|]*)?(?:\|([^\[\]]*))?\]\]")
_MDLINK = re.compile(r"!?\[([^\[\]]*)\]\([^()\s]*(?:\s+\"[^\"]*\")?\)")
_PARAGRAPH = re.compile(r"\S(?:.*?\S)??(?=\s*\n\s*\n|\s*\Z)", re.DOTALL)


def _read(path: Path) -> tuple[str, str | None]:
    return decode_text(path.read_bytes())


def _note_code(note: str | None) -> Reason:
    """Every note of a text file says how it was decoded (it was not UTF-8)."""
    return Reason.NONE if note is None else Reason.DECODED


def load_text(path: Path) -> LoadedDocument:
    text, note = _read(path)
    segments = (
        Segment(" ".join(m.group().split()), None, m.start(), m.end())
        for m in _PARAGRAPH.finditer(text)
    )
    return LoadedDocument(
        DocKind.TEXT, path.stem, 0, iter(segments), note=note, note_code=_note_code(note)
    )


def load_markdown(path: Path) -> LoadedDocument:
    text, note = _read(path)
    title, body_start = _front_matter(text)
    first_h1 = re.search(r"^#[ \t]+(.+?)[ \t#]*$", text[body_start:], re.MULTILINE)
    title = title or (first_h1.group(1).strip() if first_h1 else path.stem)
    return LoadedDocument(
        DocKind.MARKDOWN, title, 0, markdown_segments(text, body_start), note=note,
        note_code=_note_code(note),
    )


def _front_matter(text: str) -> tuple[str | None, int]:
    match = _FRONT.match(text)
    if match is None:
        return None, 0
    found = _FRONT_TITLE.search(match.group(1))
    title = found.group(1).strip().strip("'\"") if found else None
    return title or None, match.end()


def markdown_segments(text: str, start: int = 0) -> Iterator[Segment]:
    """Headings become heading segments; other blocks (paragraphs, lists, fenced code) are split
    on blank lines outside code fences. Each segment carries its heading path."""
    path: tuple[str, ...] = ()
    block: list[tuple[int, str]] = []
    fenced = False
    for pos, line in _lines(text, start):
        heading = None if fenced else _HEADING.match(line)
        if _FENCE.match(line):
            fenced = not fenced
        if heading or (not fenced and not line.strip()):
            yield from _flush(block, path)
            block = []
        if heading:
            level, name = len(heading.group(1)), heading.group(2).strip()
            path = (*path[: level - 1], name)
            yield Segment(name, None, pos, pos + len(line), heading_path=path, is_heading=True)
        elif line.strip() or fenced:
            block.append((pos, line))
    yield from _flush(block, path)


def link_text(text: str) -> str:
    """Links read as their words: [[note|alias]] -> alias, [[note]] -> note, [t](url) -> t."""
    text = _WIKILINK.sub(lambda m: (m.group(2) or m.group(1)).strip(), text)
    return _MDLINK.sub(lambda m: m.group(1), text)


def _lines(text: str, start: int) -> Iterator[tuple[int, str]]:
    pos = start
    for line in text[start:].splitlines(keepends=True):
        yield pos, line.rstrip("\r\n")
        pos += len(line)


def _flush(block: list[tuple[int, str]], path: tuple[str, ...]) -> Iterator[Segment]:
    if not block:
        return
    body = link_text(" ".join(" ".join(line.split()) for _, line in block)).strip()
    if body:
        first, (last_pos, last) = block[0][0], block[-1]
        yield Segment(body, None, first, last_pos + len(last), heading_path=path)
