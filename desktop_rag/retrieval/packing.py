"""Context packing for the answer step.

Candidates are taken best first while they fit a tiktoken budget. A short chunk is widened with
its neighbours (prev/next ids) so the model sees a whole thought; a candidate already inside an
earlier passage is dropped and text shared by adjacent chunks is not repeated. The chosen passages
are then ordered so that the strongest sit at the start and the end of the context, where models
use them best ("lost in the middle", Liu et al. 2023), and numbered in that order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from desktop_rag.domain import Chunk, Passage, ScoredChunk
from desktop_rag.domain.protocols import ChunkLookup, TokenCounter

SHORT_CHUNK_TOKENS = 60  # widen chunks shorter than this with their neighbours
MAX_OVERLAP_CHARS = 400


@dataclass(slots=True)
class _Draft:
    chunk: Chunk
    score: float
    text: str
    members: tuple[str, ...]  # chunk ids whose text the passage holds
    neighbours: tuple[Chunk, ...] = ()


def header(n: int, chunk: Chunk) -> str:
    """The label each passage carries in the prompt; counted against the budget."""
    page = f", page {chunk.page}" if chunk.page is not None else ""
    return f"[{n}] {chunk.title}{page}\n"


def join_without_overlap(left: str, right: str) -> str:
    """Concatenates two adjacent chunk texts, dropping a repeated overlap between them."""
    limit = min(len(left), len(right), MAX_OVERLAP_CHARS)
    for size in range(limit, 19, -1):
        if left.endswith(right[:size]):
            return left + right[size:]
    return f"{left}\n{right}"


def lost_in_the_middle(items: Sequence[_Draft]) -> list[_Draft]:
    """Rank 1 first, rank 2 last, rank 3 second, rank 4 second to last, and so on."""
    front: list[_Draft] = []
    back: list[_Draft] = []
    for i, item in enumerate(items):
        (front if i % 2 == 0 else back).append(item)
    return front + back[::-1]


class Packer:
    def __init__(
        self, counter: TokenCounter, lookup: ChunkLookup, short_tokens: int = SHORT_CHUNK_TOKENS
    ) -> None:
        self.counter = counter
        self.lookup = lookup
        self.short_tokens = short_tokens

    def pack(self, results: Sequence[ScoredChunk], budget: int, first_n: int = 1) -> list[Passage]:
        chosen: list[_Draft] = []
        covered: set[str] = set()
        used = 0
        for item in results:
            if item.chunk.chunk_id in covered:
                continue
            n = first_n + len(chosen)
            draft = self._fit(self._draft(item, covered), budget - used, n, first=not chosen)
            if draft is None or any(draft.chunk.text in d.text for d in chosen):
                continue
            chosen.append(draft)
            covered.update(draft.members)
            used += self._cost(draft.text, n, draft.chunk)
        ordered = lost_in_the_middle(chosen)
        return [
            Passage(first_n + i, d.chunk, d.text, d.score, neighbours=d.neighbours)
            for i, d in enumerate(ordered)
        ]

    def _cost(self, text: str, n: int, chunk: Chunk) -> int:
        return self.counter.count(header(n, chunk)) + self.counter.count(text)

    def _draft(self, item: ScoredChunk, covered: set[str]) -> _Draft:
        chunk = item.chunk
        draft = _Draft(chunk, item.score, chunk.text, (chunk.chunk_id,))
        if self.counter.count(chunk.text) >= self.short_tokens:
            return draft
        wanted = [i for i in (chunk.prev_id, chunk.next_id) if i and i not in covered]
        found = self.lookup.get_chunks(wanted) if wanted else {}
        prev = found.get(chunk.prev_id or "")
        nxt = found.get(chunk.next_id or "")
        if prev is not None and prev.doc_id == chunk.doc_id:
            draft.text = join_without_overlap(prev.text, draft.text)
            draft.members += (prev.chunk_id,)
            draft.neighbours += (prev,)
        if nxt is not None and nxt.doc_id == chunk.doc_id:
            draft.text = join_without_overlap(draft.text, nxt.text)
            draft.members += (nxt.chunk_id,)
            draft.neighbours += (nxt,)
        return draft

    def _fit(self, draft: _Draft, room: int, n: int, first: bool) -> _Draft | None:
        """The draft if it fits `room`; else the bare chunk; else, for the first, a truncation."""
        if self._cost(draft.text, n, draft.chunk) <= room:
            return draft
        bare = _Draft(draft.chunk, draft.score, draft.chunk.text, (draft.chunk.chunk_id,))
        if self._cost(bare.text, n, bare.chunk) <= room:
            return bare
        left = room - self.counter.count(header(n, bare.chunk))
        if not first or left < 1:
            return None
        bare.text = self.counter.truncate(bare.text, left)
        return bare
