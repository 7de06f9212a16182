"""Chunker: word-piece limits, structure, pages and spans (fast; fake embedder)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_rag.domain import LineBox
from desktop_rag.domain.fakes import HashEmbedder, WordTokenCounter
from desktop_rag.ingest.chunker import Chunker
from desktop_rag.ingest.notes import markdown_segments
from desktop_rag.ingest.segments import SOFT_HYPHEN, Line, Segment

WORD = re.compile(r"\w+")


def chunker(limit: int = 64, target: int = 40) -> Chunker:
    return Chunker(HashEmbedder(max_word_pieces=limit), WordTokenCounter(), target=target)


def para(text: str, page: int | None = 1, start: int = 0) -> Segment:
    return Segment(text, page, start, start + len(text))


def test_short_paragraphs_are_packed_together_up_to_the_target() -> None:
    segs = [para(f"paragraph {i} has five words", start=i * 40) for i in range(20)]
    drafts = list(chunker(target=40).chunk(segs))
    assert all(d.word_pieces <= 40 for d in drafts)
    assert len(drafts) == 3  # 20 x 5 word pieces, at most 40 per chunk
    assert drafts[0].text.startswith("paragraph 0 has five words\nparagraph 1")


def test_a_long_paragraph_is_split_at_sentences_and_never_exceeds_the_limit() -> None:
    text = " ".join(f"Sentence number {i} says something short." for i in range(50))
    drafts = list(chunker(limit=32, target=20).chunk([para(text)]))
    counts = HashEmbedder().count_word_pieces([d.text for d in drafts])
    assert max(counts) <= 30
    assert all(d.text.endswith(".") for d in drafts)  # cut at sentence ends
    assert " ".join(d.text for d in drafts) == text


def test_a_giant_word_is_cut_by_characters() -> None:
    drafts = list(chunker(limit=12, target=10).chunk([para("x" * 500)]))
    assert "".join(d.text for d in drafts) == "x" * 500


def test_headings_start_chunks_and_stay_with_their_text() -> None:
    text = "# A\n\nalpha text\n\n## B\n\nbeta text\n\n## C\n\ngamma text\n"
    drafts = list(chunker().chunk(markdown_segments(text)))
    assert [d.text for d in drafts] == ["A\nalpha text", "B\nbeta text", "C\ngamma text"]
    assert [d.heading_path for d in drafts] == [("A",), ("A", "B"), ("A", "C")]
    assert drafts[1].char_span == (text.index("## B"), text.index("beta text") + 9)


def test_pages_are_recorded_and_big_chunks_do_not_cross_pages() -> None:
    big = " ".join(["word"] * 30)
    segs = [para(big, page=1), para("tail", page=1, start=200), para(big, page=2)]
    drafts = list(chunker(target=40).chunk(segs))
    assert [d.pages for d in drafts] == [(1,), (2,)]
    small = [para("tiny start", page=1), para("continues on the next page", page=2)]
    (joined,) = chunker(target=40).chunk(small)
    assert joined.pages == (1, 2)


def test_line_boxes_follow_the_sentences_of_a_split_paragraph() -> None:
    first, second = "One two three four five six.", "Seven eight nine ten eleven twelve."
    text = f"{first} {second}"
    box1, box2 = LineBox(1, 0, 0, 100, 10), LineBox(1, 0, 12, 100, 22)
    lines = (Line(0, len(first), box1), Line(len(first) + 1, len(text), box2))
    seg = Segment(text, 1, 0, len(text), lines)
    drafts = list(chunker(limit=9, target=7).chunk([seg]))
    assert [[_where(b) for b in d.bboxes] for d in drafts] == [[_where(box1)], [_where(box2)]]
    assert drafts[1].char_span == (len(first) + 1, len(text))
    assert [d.text[b.start : b.end] for d in drafts for b in d.bboxes] == [first, second]


def _where(box: LineBox) -> tuple[float, ...]:
    return (box.page, box.x0, box.y0, box.x1, box.y1)


def test_each_line_box_knows_its_characters_across_pages_and_rejoined_words() -> None:
    """A sentence of a chunk can be placed on its own page and lines (the citation's page)."""
    one = "A short first page."
    body = "The answer is zorblax-7731 on the second page, exam" + SOFT_HYPHEN + "\nple here."
    box = [LineBox(1, 0, 0, 90, 10), LineBox(2, 0, 0, 200, 10), LineBox(2, 0, 12, 60, 22)]
    cut = body.index("\n")
    segs = [
        Segment(one, 1, 0, len(one), (Line(0, len(one), box[0]),)),
        Segment(body.replace("\n", " "), 2, 0, len(body),
                (Line(0, cut, box[1]), Line(cut + 1, len(body), box[2]))),
    ]  # fmt: skip
    (draft,) = chunker(target=40).chunk(segs)
    assert draft.pages == (1, 2) and "example here." in draft.text
    placed = [draft.text[b.start : b.end] for b in draft.bboxes]
    assert placed == [one, "The answer is zorblax-7731 on the second page, exam", "ple here."]
    assert [b.page for b in draft.bboxes] == [1, 2, 2]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from("ab .\n!é"), max_size=300), max_size=8))
def test_every_word_is_kept_in_order_and_no_chunk_exceeds_the_limit(texts: list[str]) -> None:
    segs = [para(t, start=i * 1000) for i, t in enumerate(texts) if t.strip()]
    drafts = list(chunker(limit=16, target=12).chunk(segs))
    counts = HashEmbedder().count_word_pieces([d.text for d in drafts])
    assert all(c <= 14 for c in counts)
    words = [w for s in segs for w in WORD.findall(s.text)]
    assert [w for d in drafts for w in WORD.findall(d.text)] == words


def test_embedding_batches_bound_texts_and_characters() -> None:
    from desktop_rag.ingest.embedding import BATCH, BATCH_CHARS, batches

    texts = ["x" * 10] * 40 + ["y" * 1000] * 40 + ["z" * (BATCH_CHARS + 5)]
    windows = list(batches(texts))
    assert [len(texts[w]) for w in windows][:2] == [BATCH, 8 + 17]  # 80 + 17,000 characters
    assert all(sum(map(len, texts[w])) <= BATCH_CHARS for w in windows[:-1])
    assert len(texts[windows[-1]]) == 1  # an over-long text still goes, alone
    assert sum(len(texts[w]) for w in windows) == len(texts)
