"""Where a span of a chunk's text lies on the page: its page and its line boxes.

Chunks indexed since line boxes record their characters in the chunk's text are placed exactly;
older chunks (boxes without offsets) are placed by spreading the text over the boxes in
proportion to their widths, which is close for running text. Notes have no pages or boxes.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from desktop_rag.domain import Chunk, LineBox

_BOUNDARY = re.compile(r"(?<=[.!?;])[\"')\]]*\s+|\s*\n\s*")
_ABBREVIATION = re.compile(
    r"\b(?:[A-Za-z]|e\.g|i\.e|etc|fig|figs|no|nos|vs|approx|ca|mr|mrs|ms|dr|st|jan|feb|mar|apr|"
    r"jun|jul|aug|sep|sept|oct|nov|dec|inc|ltd|co|corp|vol|pp|eq|sec|ch|art)\.$",
    re.IGNORECASE,
)
_LIST_NUMBER = re.compile(r"^\W*\d{1,2}\.$")
# "24.10.", "03.04.": a day and month written with dots, two digits each (not "2.5.", "1.25.")
_DOTTED_DATE = re.compile(r"(?<![\d.])(?:0[1-9]|[12]\d|3[01])\.(?:0[1-9]|1[0-2])\.$")
_TERM = re.compile(r"[^\W_]+", re.UNICODE)


def boxes_with_offsets(chunk: Chunk) -> tuple[LineBox, ...]:
    """The chunk's boxes, each with its span in the chunk text (estimated when unknown)."""
    boxes = chunk.bboxes
    if not boxes or all(b.start >= 0 for b in boxes):
        return boxes
    widths = [max(b.x1 - b.x0, 1.0) for b in boxes]
    scale = len(chunk.text) / sum(widths)
    out, at = [], 0.0
    for box, width in zip(boxes, widths, strict=True):
        start, at = round(at), at + width * scale
        out.append(LineBox(box.page, box.x0, box.y0, box.x1, box.y1, start, round(at)))
    return tuple(out)


def boxes_in(chunk: Chunk, span: tuple[int, int]) -> tuple[LineBox, ...]:
    """The line boxes that hold characters of `span` (chunk-text offsets)."""
    start, end = span
    return tuple(b for b in boxes_with_offsets(chunk) if b.start < end and b.end > start)


def page_of(chunk: Chunk, span: tuple[int, int]) -> int | None:
    """The page holding most of `span`; the chunk's first page when nothing places it."""
    return majority_page(boxes_in(chunk, span), span) or chunk.page


def majority_page(boxes: Sequence[LineBox], span: tuple[int, int]) -> int | None:
    counts: Counter[int] = Counter()
    for b in boxes:
        counts[b.page] += min(b.end, span[1]) - max(b.start, span[0])
    return max(counts, key=lambda page: (counts[page], -page)) if counts else None


def sentence_spans(text: str, ends: str = ".!?;") -> list[tuple[int, int]]:
    """Sentences and lines of `text` as (start, end), without surrounding whitespace; a period
    after an initial, a common abbreviation, a list number or a date written "24.10." does not
    end a sentence."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        before = text[start : m.start()].rstrip()
        if "\n" not in m.group(0) and (not before or before[-1] not in ends
                                       or _ABBREVIATION.search(before)
                                       or _LIST_NUMBER.match(before)
                                       or _DOTTED_DATE.search(before)):
            continue
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return [_trimmed(text, a, b) for a, b in spans if text[a:b].strip()]


def _trimmed(text: str, a: int, b: int) -> tuple[int, int]:
    piece = text[a:b]
    return a + len(piece) - len(piece.lstrip()), b - (len(piece) - len(piece.rstrip()))


def matching_page(chunk: Chunk, query: str, ignore: frozenset[str] = frozenset()) -> int | None:
    """The page of the chunk's sentence that holds most of the query's terms (the first such
    sentence on a tie): a chunk that spans a page break is shown where the query matches."""
    if len(set(chunk.pages)) < 2:
        return chunk.page
    terms = {t for t in _terms(query) if t not in ignore and len(t) > 1}
    best, best_span = 0, (0, len(chunk.text))
    for a, b in sentence_spans(chunk.text):
        found = len(terms & set(_terms(chunk.text[a:b])))
        if found > best:
            best, best_span = found, (a, b)
    return page_of(chunk, best_span) if best else chunk.page


def _terms(text: str) -> list[str]:
    return [t.lower() for t in _TERM.findall(text)]
