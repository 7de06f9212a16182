"""Every chunk in scope, read from the catalog, and the items in it: its lines and sentences.

A count must see every passage, so the chunks come from the catalog (every chunk of every
indexed document the scope allows, in reading order), not from a search. An item is a line or a
sentence: a register or a log has one item a line, running text one a sentence; a line that
runs on (the next begins in lower case) is one item with it. Each item knows its page and its
place on the page, so that a line a chunk repeats (a table's title atop each part) counts once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from desktop_rag.domain import Chunk, DocScope, DocStatus, Document
from desktop_rag.text.locate import boxes_in, page_of, sentence_spans

_RUNS_ON = re.compile(r"(?<![.!?:;])\n(?=[a-z(])")
MAX_ITEM_CHARS = 600
MAX_FURNITURE_CHARS = 80
_OWN_PAGE = re.compile(r"\bpage\s+(\d{1,5})\b", re.IGNORECASE)


class ChunkSource(Protocol):
    """What the scan reads of the catalog."""

    def documents(self, status: DocStatus | None = None) -> list[Document]: ...

    def chunks_of(self, doc_id: str) -> list[Chunk]: ...


@dataclass(frozen=True, slots=True)
class ItemUnit:
    """One line or sentence of a chunk: `start`/`end` index the chunk's text."""

    chunk: Chunk
    start: int
    end: int
    page: int | None

    @property
    def text(self) -> str:
        return " ".join(self.chunk.text[self.start : self.end].split())

    @property
    def place(self) -> tuple[object, ...]:
        """Where the item is in its document: its first line box and its offset in that line
        (the same line read from two chunks has the same place); else its chunk and offset."""
        boxes = boxes_in(self.chunk, (self.start, self.end))
        if not boxes or boxes[0].start < 0:
            return (self.chunk.chunk_id, self.start)
        b = boxes[0]
        return (self.chunk.doc_id, b.page, round(b.y0), round(b.x0), self.start - b.start)


def documents_in(source: ChunkSource, scope: DocScope) -> list[Document]:
    """The indexed documents `scope` allows, in the catalog's (path) order."""
    return [d for d in source.documents(DocStatus.INDEXED) if scope.allows(d.doc_id)]


def item_spans(text: str) -> list[tuple[int, int]]:
    """The lines and sentences of `text` (a line that runs on joins the next)."""
    joined = _RUNS_ON.sub(" ", text)  # same length: the spans index `text`
    out: list[tuple[int, int]] = []
    for a, b in sentence_spans(joined, ends=".!?"):
        while b - a > MAX_ITEM_CHARS:  # a page of text without one full stop
            out.append((a, a + MAX_ITEM_CHARS))
            a += MAX_ITEM_CHARS
        out.append((a, b))
    return out


def names_its_page(unit: ItemUnit) -> bool:
    """A short line that gives its own page's number ("Expense claims - page 3", "Page 3 of
    40"): a running header or footer, which names what every line of the page is, and is
    none of them."""
    found = _OWN_PAGE.search(unit.text) if len(unit.text) <= MAX_FURNITURE_CHARS else None
    return found is not None and unit.page is not None and int(found.group(1)) == unit.page


def units_of(chunk: Chunk) -> list[ItemUnit]:
    return [ItemUnit(chunk, a, b, page_of(chunk, (a, b))) for a, b in item_spans(chunk.text)]


def distinct(units: Iterable[ItemUnit]) -> list[ItemUnit]:
    """The units without repeats of one place, first seen kept."""
    seen: set[tuple[object, ...]] = set()
    out = []
    for unit in units:
        if unit.place not in seen:
            seen.add(unit.place)
            out.append(unit)
    return out


def scope_units(chunks: Sequence[Chunk]) -> Iterator[ItemUnit]:
    for chunk in chunks:
        yield from units_of(chunk)
