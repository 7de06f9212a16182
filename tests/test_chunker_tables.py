"""Table rows in the chunker: chunks of their own, one row a line, each under the table's title,
and the boxes of the row's cells kept with the characters they cover (fast; fake embedder)."""

from __future__ import annotations

from desktop_rag.domain import LineBox
from desktop_rag.domain.fakes import HashEmbedder, WordTokenCounter
from desktop_rag.ingest.chunker import Chunker
from desktop_rag.ingest.segments import Line, Segment, TablePart

TITLE = "Segment results (in thousands)"


def chunker(target: int = 40) -> Chunker:
    return Chunker(HashEmbedder(max_word_pieces=64), WordTokenCounter(), target=target)


def rows(part: TablePart, count: int, start: int = 100) -> list[Segment]:
    out = []
    for i in range(count):
        label, value = f"Line item {i}", f"2015: {1000 + i}"
        text = f"{label} — {value}"
        at = start + i * 40
        value_at = at + len(label) + 3
        y = 20.0 * i
        lines = (Line(at, at + len(label), LineBox(1, 10, y, 90, y + 9)),
                 Line(value_at, value_at + len(value), LineBox(1, 300, y, 380, y + 9)))
        out.append(Segment(text, 1, at, at + len(text), lines, table=part))
    return out


def test_rows_make_their_own_chunks_each_opening_with_the_title() -> None:
    part = TablePart(TITLE)
    before = Segment("A paragraph before the table.", 1, 0, 29)
    after = Segment("A paragraph after it.", 1, 2000, 2021)
    drafts = list(chunker(target=40).chunk([before, *rows(part, 12), after]))
    assert drafts[0].text == "A paragraph before the table."
    assert drafts[-1].text == "A paragraph after it."
    tables = drafts[1:-1]
    assert len(tables) > 1  # 12 rows do not fit in 40 word pieces
    assert all(d.text.splitlines()[0] == TITLE for d in tables)
    body = [line for d in tables for line in d.text.splitlines()[1:]]
    assert body == [f"Line item {i} — 2015: {1000 + i}" for i in range(12)]  # no row cut


def test_each_cell_box_covers_its_characters_in_the_chunk() -> None:
    (draft,) = chunker(target=60).chunk(rows(TablePart(TITLE), 2))
    for box in draft.bboxes:
        piece = draft.text[box.start:box.end]
        assert piece.startswith("Line item") if box.x0 == 10 else piece.startswith("2015: ")


def test_two_tables_never_share_a_chunk() -> None:
    first, second = TablePart("First table"), TablePart("Second table")
    drafts = list(chunker(target=60).chunk([*rows(first, 2), *rows(second, 2, start=900)]))
    assert [d.text.splitlines()[0] for d in drafts] == ["First table", "Second table"]
