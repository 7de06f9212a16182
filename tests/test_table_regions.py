"""Which chunks the tables of some pages replace, and the ids of the chunks that take their place
(plain data: no PDF, no model)."""

from __future__ import annotations

from dataclasses import replace

from desktop_rag.domain import Chunk, DocKind, DocStatus, Document
from desktop_rag.ingest.chunker import ChunkDraft
from desktop_rag.ingest.table_regions import Span, plan_swap, spans_to_redo
from desktop_rag.store.table_steps import ChunkSwap

DOC = Document("d", "/x/report.pdf", "Report", DocKind.PDF, "s" * 64, 1, 0.0, 9, 6,
               DocStatus.INDEXED)


def chunk(n: int, pages: tuple[int, ...], text: str = "") -> Chunk:
    return Chunk(f"d:{n:05d}", "d", DOC.path, DOC.title, DocKind.PDF, text or f"text {n}", n,
                 pages, (0, 1))


def draft(text: str, page: int) -> ChunkDraft:
    return ChunkDraft(text, (page,), (0, len(text)), (), (), 3, 3)


OLD = [chunk(0, (1,)), chunk(1, (2, 3)), chunk(2, (3,)), chunk(3, (4,)), chunk(4, (6,)),
       chunk(5, (7, 8))]


def test_a_pages_range_grows_to_the_pages_of_the_chunks_on_it() -> None:
    assert spans_to_redo(OLD, {1}) == [(1, 1)]
    assert spans_to_redo(OLD, {3}) == [(2, 3)]  # a chunk runs from page 2 onto 3
    assert spans_to_redo(OLD, {2, 4}) == [(2, 3), (4, 4)]  # no chunk crosses 3|4
    assert spans_to_redo(OLD, {8, 6}) == [(6, 6), (7, 8)]
    assert spans_to_redo(OLD, {5}) == [(5, 5)]  # a page without chunks (read again anyway)


def test_only_the_chunks_of_the_spans_change_and_same_text_keeps_its_id() -> None:
    made: dict[Span, list[ChunkDraft]] = {
        (2, 3): [draft("text 1", 2), draft("Revenues — 2015: 4,180,339", 3)],
        (5, 5): [draft("a table alone on page 5", 5)],
    }
    swap = plan_swap(DOC, OLD, [(2, 3), (5, 5)], lambda span: made[span])
    assert swap.order == ("d:00000", "d:00001", "d:t00002", "d:00003", "d:t00004", "d:00004",
                          "d:00005")
    assert swap.replaced == ("d:00001", "d:00002")
    assert [c.chunk_id for c in swap.written] == ["d:00001", "d:t00002", "d:t00004"]
    assert swap.new_ids == ["d:t00002", "d:t00004"]  # "text 1" keeps its id and its vector
    assert swap.dropped_ids == ["d:00002"]
    assert [c.ordinal for c in swap.written] == [1, 2, 4]
    first = swap.written[0]
    assert (first.prev_id, first.next_id) == ("d:00000", "d:t00002")


def test_a_second_pass_never_gives_a_new_chunk_an_id_in_use_or_just_replaced() -> None:
    """A library catching up (ingest/catch_up.py) reads a document's pages again: a chunk the
    first pass made ("d:t00002") may stay while a new one comes at that ordinal."""
    first = plan_swap(DOC, OLD, [(2, 3)], lambda span: [
        draft("text 1", 2), draft("Revenues — 2015: 4,180,339", 3)])
    after = [replace(c, ordinal=n) for n, c in enumerate(_chunks(first))]
    second = plan_swap(DOC, after, [(1, 1), (6, 6)], lambda span: {
        (1, 1): [draft("text 0", 1), draft("a table on page 1", 1), draft("its second part", 1)],
        (6, 6): [draft("Cost of revenues — 2015: 2,487,193", 6)],
    }[span])
    assert len(set(second.order)) == len(second.order)
    assert "d:t00002" in second.order  # the first pass's table chunk, kept as it was
    fresh = second.new_ids
    assert fresh and not set(fresh) & {c.chunk_id for c in after}
    assert "d:00004" in second.dropped_ids and "d:00004" not in second.order


def _chunks(swap: ChunkSwap) -> list[Chunk]:
    """The document's chunks after a swap (those it kept from OLD, and those it wrote)."""
    written = {c.chunk_id: c for c in swap.written}
    kept = {c.chunk_id: c for c in OLD}
    return [written.get(cid) or kept[cid] for cid in swap.order]
