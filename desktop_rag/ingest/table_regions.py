"""Which chunks of a document its tables replace, and the chunks that take their place.

The text pass chunked every page as plain lines. Tables change the text of the pages they are
on, and only of those: so only the chunks of those pages are made again, from the pages' text
with each table's rows in place of its lines, and every other chunk keeps its id and its vector
(a citation stored in a chat still opens it). A chunk may run over a page break, so the pages to
read again grow to the pages of every chunk on them, until no chunk crosses their edge; the
chunker then starts and ends there as it did. A chunk made again with the same text keeps its
id too (the prose above a table): only its place on the page may change.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from desktop_rag.domain import Chunk, Document
from desktop_rag.ingest.chunker import ChunkDraft
from desktop_rag.store.table_steps import ChunkSwap

Span = tuple[int, int]  # first and last page (1-based, inclusive)
Redo = Callable[[Span], Sequence[ChunkDraft]]  # the chunks of those pages, tables in


def spans_to_redo(chunks: Sequence[Chunk], pages: Collection[int]) -> list[Span]:
    """The page ranges to chunk again for tables on `pages`: each page, widened to the pages of
    the chunks on it until no chunk crosses a range's edge; ranges that meet are merged."""
    chunk_spans = [(min(c.pages), max(c.pages)) for c in chunks if c.pages]
    ranges = _merged((p, p) for p in pages)
    while True:
        grown = _merged(_widened(span, chunk_spans) for span in ranges)
        if grown == ranges:
            return ranges
        ranges = grown


def _widened(span: Span, chunk_spans: Sequence[Span]) -> Span:
    lo, hi = span
    for a, b in chunk_spans:
        if a <= hi and b >= lo:
            lo, hi = min(lo, a), max(hi, b)
    return lo, hi


def _merged(spans: Iterable[Span]) -> list[Span]:
    out: list[Span] = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


@dataclass(frozen=True, slots=True)
class _Kept:
    """A chunk in the new order: the old one as it was, or a draft under an id."""

    chunk: Chunk | None
    draft: ChunkDraft | None = None
    chunk_id: str = ""


def plan_swap(doc: Document, old: Sequence[Chunk], spans: Sequence[Span], redo: Redo) -> ChunkSwap:
    """The document's chunks with the chunks of `spans` made again by `redo`."""
    items: list[_Kept] = []
    replaced: list[str] = []
    waiting = sorted(spans)
    taken = {c.chunk_id for c in old}  # a new chunk never takes an id in use or just replaced
    for chunk in old:
        first = min(chunk.pages) if chunk.pages else None
        while waiting and first is not None and first > waiting[0][1]:
            items += _redone(doc, waiting.pop(0), old, redo, len(items), taken)
        if waiting and first is not None and waiting[0][0] <= first:
            replaced.append(chunk.chunk_id)  # within the span (by construction, all of it)
            continue
        items.append(_Kept(chunk))
    for span in waiting:
        items += _redone(doc, span, old, redo, len(items), taken)
    return _swap(doc, items, replaced)


def _redone(
    doc: Document, span: Span, old: Sequence[Chunk], redo: Redo, at: int, taken: set[str]
) -> list[_Kept]:
    """The drafts of one span, each under the id of an old chunk of the span with the same
    text, or a new id ("<doc>:t<ordinal>", never one of the text pass's "<doc>:<ordinal>",
    nor one in `taken`: a second pass over a document finds the first one's ids there)."""
    same_text: dict[str, list[str]] = {}
    for chunk in old:
        if chunk.pages and span[0] <= min(chunk.pages) <= span[1]:
            same_text.setdefault(chunk.text, []).append(chunk.chunk_id)
    out: list[_Kept] = []
    for n, draft in enumerate(redo(span), start=at):
        ids = same_text.get(draft.text)
        out.append(_Kept(None, draft, ids.pop(0) if ids else _new_id(doc, n, taken)))
    return out


def _new_id(doc: Document, ordinal: int, taken: set[str]) -> str:
    """"<doc>:t<ordinal>", or with a "-<k>" after it when that id is taken."""
    base = f"{doc.doc_id}:t{ordinal:05d}"
    found = base
    k = 0
    while found in taken:
        k += 1
        found = f"{base}-{k}"
    taken.add(found)
    return found


def _swap(doc: Document, items: Sequence[_Kept], replaced: Sequence[str]) -> ChunkSwap:
    """Ordinals and neighbours in the new order; the rows to write are the drafts'."""
    ids = [item.chunk.chunk_id if item.chunk else item.chunk_id for item in items]
    if len(set(ids)) != len(ids):
        raise ValueError(f"chunk ids of {doc.path} collide after the table pass")
    written = []
    for n, item in enumerate(items):
        if item.draft is not None:
            chunk = draft_chunk(doc, item.draft, ids[n], n)
            written.append(replace(
                chunk, prev_id=ids[n - 1] if n else None,
                next_id=ids[n + 1] if n + 1 < len(ids) else None,
            ))
    return ChunkSwap(doc.doc_id, tuple(ids), tuple(written), tuple(replaced))


def draft_chunk(doc: Document, draft: ChunkDraft, chunk_id: str, ordinal: int) -> Chunk:
    return Chunk(
        chunk_id, doc.doc_id, doc.path, doc.title, doc.kind, draft.text, ordinal, draft.pages,
        draft.char_span, draft.bboxes, draft.heading_path, token_count=draft.token_count,
    )


def pages_with_chunks(chunks: Sequence[Chunk]) -> set[int]:
    return {p for c in chunks for p in c.pages}


def tables_found(found: Mapping[int, Sequence[object]]) -> int:
    return sum(len(tables) for tables in found.values())
