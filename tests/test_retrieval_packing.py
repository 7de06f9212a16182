"""Context packing: budget, neighbour expansion, overlap removal, lost-in-the-middle order."""

from __future__ import annotations

from retrieval_fakes import MemoryLookup, make_chunks

from desktop_rag.domain import Chunk, ScoredChunk
from desktop_rag.domain.fakes import WordTokenCounter
from desktop_rag.retrieval.packing import Packer, header, join_without_overlap


def words(n: int, tag: str) -> str:
    return " ".join(f"{tag}{i}" for i in range(n))


def scored(chunks: list[Chunk], order: list[int]) -> list[ScoredChunk]:
    return [ScoredChunk(chunks[i], 1.0 / (r + 1)) for r, i in enumerate(order)]


def test_best_passages_sit_at_both_ends_and_are_numbered_in_order() -> None:
    chunks = make_chunks("d", [words(80, f"w{i}x") for i in range(5)])
    packer = Packer(WordTokenCounter(), MemoryLookup(chunks))
    passages = packer.pack(scored(chunks, [0, 1, 2, 3, 4]), budget=10_000, first_n=3)
    assert [p.chunk.ordinal for p in passages] == [0, 2, 4, 3, 1]
    assert [p.n for p in passages] == [3, 4, 5, 6, 7]
    assert passages[0].score == 1.0 and passages[-1].score == 0.5


def test_budget_counts_text_and_labels() -> None:
    counter = WordTokenCounter()
    chunks = make_chunks("d", [words(80, f"w{i}x") for i in range(5)])
    packer = Packer(counter, MemoryLookup(chunks))
    budget = 200
    passages = packer.pack(scored(chunks, [0, 1, 2, 3, 4]), budget=budget)
    used = sum(counter.count(header(p.n, p.chunk)) + counter.count(p.text) for p in passages)
    assert len(passages) == 2 and used <= budget


def test_a_too_long_first_passage_is_truncated_and_later_ones_skipped_not_cut() -> None:
    counter = WordTokenCounter()
    chunks = make_chunks("d", [words(300, "a"), words(500, "b"), words(70, "c")])
    packer = Packer(counter, MemoryLookup(chunks))
    passages = packer.pack(scored(chunks, [0, 1, 2]), budget=200)
    assert [p.chunk.ordinal for p in passages] == [0]
    assert counter.count(passages[0].text) == 200 - counter.count(header(1, chunks[0]))
    second = packer.pack(scored(chunks, [1, 2]), budget=520)
    assert [p.chunk.ordinal for p in second] == [1]  # c0..c69 would not fit after b's 500 words


def test_short_chunks_are_widened_with_neighbours_and_not_repeated() -> None:
    texts = [words(70, "p"), "Short answer: the torque is 45 Nm.", words(70, "n"), words(70, "z")]
    chunks = make_chunks("d", texts)
    packer = Packer(WordTokenCounter(), MemoryLookup(chunks))
    passages = packer.pack(scored(chunks, [1, 0, 2, 3]), budget=10_000)
    first = passages[0]
    assert first.chunk.ordinal == 1
    assert first.text.startswith("p0 ") and "torque is 45 Nm" in first.text
    assert first.text.rstrip().endswith("n69")
    assert [p.chunk.ordinal for p in passages] == [1, 3]  # 0 and 2 are already inside passage 1


def test_neighbours_of_other_documents_are_not_used() -> None:
    chunk = make_chunks("d", ["tiny"])[0]
    lonely = Chunk(**{**{f: getattr(chunk, f) for f in chunk.__slots__}, "next_id": "e:00000"})  # type: ignore[attr-defined]
    other = make_chunks("e", ["from another document"])
    packer = Packer(WordTokenCounter(), MemoryLookup([lonely, *other]))
    assert packer.pack([ScoredChunk(lonely, 1.0)], budget=100)[0].text == "tiny"


def test_overlap_between_adjacent_chunks_is_removed() -> None:
    left = "alpha beta gamma delta epsilon zeta eta theta"
    right = "epsilon zeta eta theta iota kappa"
    assert (
        join_without_overlap(left, right)
        == "alpha beta gamma delta epsilon zeta eta theta iota kappa"
    )
    assert join_without_overlap("one two", "three four") == "one two\nthree four"


def test_duplicate_text_from_another_document_is_dropped() -> None:
    a = make_chunks("a", [words(80, "same")])
    b = make_chunks("b", [words(80, "same")])
    packer = Packer(WordTokenCounter(), MemoryLookup(a + b))
    passages = packer.pack([ScoredChunk(a[0], 1.0), ScoredChunk(b[0], 0.9)], budget=10_000)
    assert len(passages) == 1
