"""A page's text dict (PyMuPDF's "dict" layout, plain data) as segments with line boxes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from desktop_rag.domain import LineBox
from desktop_rag.ingest.segments import SOFT_HYPHEN, Line, Segment


def has_text(page_dict: dict[str, Any]) -> bool:
    return any(
        span.get("text", "").strip()
        for block in page_dict.get("blocks", ())
        for line in block.get("lines", ())
        for span in line.get("spans", ())
    )


def page_segments(page_dict: dict[str, Any], page_no: int) -> Iterator[Segment]:
    """One segment per text block; offsets index the page text (blocks joined by blank lines,
    lines by newlines); segment text is that slice with newlines as spaces."""
    offset = 0
    for block in page_dict.get("blocks", ()):
        if block.get("type", 0) != 0:
            continue
        texts, lines = _block_lines(block, page_no, offset)
        if not texts:
            continue
        body = "\n".join(texts)
        yield Segment(body.replace("\n", " "), page_no, offset, offset + len(body), tuple(lines))
        offset += len(body) + 2


def _hyphenated(line: str, following: str) -> bool:
    """A word broken across lines: "exam-" then "ple" (the chunker joins them again)."""
    return len(line) > 1 and line[-1] == "-" and line[-2].isalpha() and following[0].islower()


def _block_lines(block: dict[str, Any], page_no: int, offset: int) -> tuple[list[str], list[Line]]:
    texts: list[str] = []
    lines: list[Line] = []
    pos = offset
    for line in block.get("lines", ()):
        text = "".join(span.get("text", "") for span in line.get("spans", ())).strip()
        if not text:
            continue
        x0, y0, x1, y1 = line["bbox"]
        lines.append(Line(pos, pos + len(text), LineBox(page_no, x0, y0, x1, y1)))
        if texts and _hyphenated(texts[-1], text):
            texts[-1] = texts[-1][:-1] + SOFT_HYPHEN  # same length: offsets stay exact
        texts.append(text)
        pos += len(text) + 1
    return texts, lines
