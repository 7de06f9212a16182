"""Structure-aware chunking sized by the embedder's own word pieces.

Segments (paragraphs, headings) are packed greedily up to TARGET word pieces; a paragraph that is
too long is split at sentence boundaries, a sentence that is too long at word boundaries. No chunk
exceeds the embedder's limit (max_word_pieces minus its 2 special tokens), so the embedder sees
all of the text. A heading always starts a chunk and stays with the text after it. A chunk may
span one page break, only when the part before it is small; it then records both pages, and its
char span runs from its start on the first page to its end on the second. The rows of a table
make chunks of their own, one row a line, each chunk opening with the table's title (its caption
and unit), so that every part of a long table still says what its numbers are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

from desktop_rag.domain import LineBox
from desktop_rag.domain.protocols import TokenCounter, WordPieceCounter
from desktop_rag.ingest.segments import SOFT_HYPHEN, Line, Segment, TablePart

TARGET = 200
MAX_TITLE_CHARS = 160  # a table's title, repeated atop each of its chunks
SPECIAL_TOKENS = 2
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+")
_WORD = re.compile(r"\S+")
_BROKEN_WORD = re.compile(SOFT_HYPHEN + r"\s+(?=\w)")


@dataclass(frozen=True, slots=True)
class Piece:
    """A segment or a part of one, with its word-piece count."""

    seg: Segment
    a: int  # offsets into seg.text
    b: int
    wp: int
    title: bool = False  # a table's title, put atop a chunk of its rows

    @property
    def text(self) -> str:
        return self.seg.text[self.a : self.b]


@dataclass(frozen=True, slots=True)
class ChunkDraft:
    text: str
    pages: tuple[int, ...]
    char_span: tuple[int, int]
    bboxes: tuple[LineBox, ...]
    heading_path: tuple[str, ...]
    word_pieces: int
    token_count: int


class Chunker:
    def __init__(
        self, embedder: WordPieceCounter, counter: TokenCounter, target: int = TARGET
    ) -> None:
        self.embedder = embedder
        self.counter = counter
        self._wanted = target

    @cached_property
    def limit(self) -> int:
        """The most word pieces a chunk may have (read lazily: it may load the model)."""
        return self.embedder.max_word_pieces - SPECIAL_TOKENS

    @cached_property
    def target(self) -> int:
        return max(8, min(self._wanted, self.limit))

    def chunk(self, segments: Iterable[Segment]) -> Iterator[ChunkDraft]:
        group: list[Piece] = []
        titles: dict[int, Piece] = {}
        for piece in self._pieces(segments):
            if group and self._breaks(group, piece):
                yield self._draft(group)
                group = []
            if not group and piece.seg.table is not None:
                group.append(self._title(piece.seg, piece.seg.table, titles))
            group.append(piece)
        if group:
            yield self._draft(group)

    def _title(self, row: Segment, table: TablePart, made: dict[int, Piece]) -> Piece:
        """The table's title as the first line of a chunk of its rows (counted once)."""
        if id(table) not in made:
            text = table.title[:MAX_TITLE_CHARS]
            title = Segment(text, row.page, row.start, row.start, table=table)
            made[id(table)] = Piece(title, 0, len(text), self._count([text])[0], title=True)
        return made[id(table)]

    def _count(self, texts: Sequence[str]) -> list[int]:
        return self.embedder.count_word_pieces(list(texts)) if texts else []

    def _pieces(self, segments: Iterable[Segment]) -> Iterator[Piece]:
        batch: list[Segment] = []
        for seg in segments:
            batch.append(seg)
            if len(batch) >= 64:
                yield from self._split_batch(batch)
                batch = []
        yield from self._split_batch(batch)

    def _split_batch(self, batch: list[Segment]) -> Iterator[Piece]:
        for seg, wp in zip(batch, self._count([s.text for s in batch]), strict=True):
            if wp <= self.target:
                yield Piece(seg, 0, len(seg.text), wp)
            else:
                yield from self._split(seg, _spans(seg.text, _SENTENCE_END))

    def _split(self, seg: Segment, spans: list[tuple[int, int]]) -> Iterator[Piece]:
        """Packs the spans (sentences or words) of one segment into pieces <= target."""
        counts = self._count([seg.text[a:b] for a, b in spans])
        start, total, end = -1, 0, 0
        for (a, b), wp in zip(spans, counts, strict=True):
            if wp > self.target:
                if start >= 0:
                    yield Piece(seg, start, end, total)
                start = -1
                yield from self._split_words(seg, a, b)
                continue
            if start >= 0 and total + wp > self.target:
                yield Piece(seg, start, end, total)
                start = -1
            start, total, end = (a, 0, b) if start < 0 else (start, total, b)
            total += wp
        if start >= 0:
            yield Piece(seg, start, end, total)

    def _split_words(self, seg: Segment, a: int, b: int) -> Iterator[Piece]:
        words = [(a + m.start(), a + m.end()) for m in _WORD.finditer(seg.text[a:b])]
        counts = self._count([seg.text[x:y] for x, y in words])
        start, total = words[0][0] if words else a, 0
        last = start
        for (x, y), wp in zip(words, counts, strict=True):
            if total and total + wp > self.target:
                yield Piece(seg, start, last, total)
                start, total = x, 0
            if wp > self.target:  # one giant "word" (a URL, a hash): cut it by characters
                yield from self._split_chars(seg, x, y)
                start, total = y, 0
                continue
            total, last = total + wp, y
        if total:
            yield Piece(seg, start, last, total)

    def _split_chars(self, seg: Segment, a: int, b: int) -> Iterator[Piece]:
        # A word piece covers at least one character, so `target` characters fit in `target`.
        cuts = list(range(a, b, self.target))
        counts = self._count([seg.text[x : min(x + self.target, b)] for x in cuts])
        for x, wp in zip(cuts, counts, strict=True):
            yield Piece(seg, x, min(x + self.target, b), wp)

    def _breaks(self, group: list[Piece], piece: Piece) -> bool:
        if piece.seg.table is not group[-1].seg.table:
            return True
        if all(p.title for p in group):  # a title stays with the rows it names
            return False
        size = sum(p.wp for p in group)  # whitespace between pieces adds no word piece
        if size + piece.wp > self.target:
            return True
        if piece.seg.is_heading and not all(p.seg.is_heading for p in group):
            return True
        if piece.seg.heading_path != group[-1].seg.heading_path and not group[-1].seg.is_heading:
            return True
        if piece.seg.page == group[-1].seg.page:
            return False
        return size >= self.target // 2 or group[0].seg.page != group[-1].seg.page

    def _draft(self, group: list[Piece]) -> ChunkDraft:
        text, boxes = _join(group)
        first, last = group[0], group[-1]
        pages = tuple(sorted({p.seg.page for p in group if p.seg.page is not None}))
        start = first.seg.start if first.a == 0 else first.seg.start + first.a
        end = last.seg.end if last.b == len(last.seg.text) else last.seg.start + last.b
        wp = sum(p.wp for p in group)
        return ChunkDraft(text, pages, (start, end), boxes, last.seg.heading_path, wp,
                          self.counter.count(text))


def _spans(text: str, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    spans, start = [], 0
    for match in pattern.finditer(text):
        if match.start() > start:
            spans.append((start, match.start()))
        start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def _join(group: list[Piece]) -> tuple[str, tuple[LineBox, ...]]:
    """The chunk's text and its line boxes, each with the line's characters in that text."""
    parts, starts, pos = [], [], 0
    for i, piece in enumerate(group):
        if i:
            sep = " " if piece.seg is group[i - 1].seg else "\n"
            parts.append(sep)
            pos += len(sep)
        starts.append(pos)
        parts.append(piece.text)
        pos += len(piece.text)
    raw = "".join(parts)
    text = _BROKEN_WORD.sub("", raw)
    lead = len(text) - len(text.lstrip())
    shift = _Shift(raw, lead)
    boxes = [_placed(line.box, shift(a), shift(b), len(text) - lead)
             for line, a, b in _line_spans(group, starts)]
    return text.strip(), _merged(boxes)


class _Shift:
    """Maps a position in the joined text to the text after rejoined words and stripping."""

    def __init__(self, raw: str, lead: int) -> None:
        self.cuts = [(m.start(), m.end()) for m in _BROKEN_WORD.finditer(raw)]
        self.lead = lead

    def __call__(self, pos: int) -> int:
        removed = sum(min(pos, b) - a for a, b in self.cuts if a < pos)
        return max(pos - removed - self.lead, 0)


def _line_spans(group: list[Piece], starts: list[int]) -> Iterator[tuple[Line, int, int]]:
    """Each line a piece covers, with its span in the joined (raw) text."""
    for piece, at in zip(group, starts, strict=True):
        for line in piece.seg.lines:
            lo = max(line.start - piece.seg.start, piece.a)
            hi = min(line.end - piece.seg.start, piece.b)
            if lo < hi:
                yield line, at + lo - piece.a, at + hi - piece.a


def _placed(box: LineBox, start: int, end: int, length: int) -> LineBox:
    return LineBox(box.page, box.x0, box.y0, box.x1, box.y1, min(start, length), min(end, length))


def _merged(boxes: list[LineBox]) -> tuple[LineBox, ...]:
    """One box per line: a line split between two pieces of one paragraph is one box."""
    out: list[LineBox] = []
    for box in boxes:
        prev = out[-1] if out else None
        if prev is not None and (prev.page, prev.x0, prev.y0, prev.x1, prev.y1) == (
            box.page, box.x0, box.y0, box.x1, box.y1
        ):
            out[-1] = LineBox(box.page, box.x0, box.y0, box.x1, box.y1, prev.start, box.end)
        else:
            out.append(box)
    return tuple(out)
