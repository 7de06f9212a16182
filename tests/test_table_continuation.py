"""A table that goes on over a page break (ingest/table_continuation): the part on the next
page is read with the caption, unit and column labels of the part that began it, through real
PDFs and PyMuPDF's table finder, and through a real library (the table pass, the chunker)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from table_pdfs import CAPTION, continued_table_pdf

from desktop_rag.config import Settings
from desktop_rag.ingest.table_continuation import continued
from desktop_rag.ingest.table_extract import extract_tables
from desktop_rag.ingest.table_model import TableBlock, render_row, render_title, unit_short

MARKETING = "Marketing — 2015: 317,646 | 2014: 293,453 | 2013: 265,232 (in thousands)"


def tables_of(path: Path) -> dict[int, list[TableBlock]]:
    return {page: extract_tables(str(path), page - 1) for page in (1, 2)}


def rendered(block: TableBlock) -> list[str]:
    return [render_row(row, unit_short(block.unit)).text for row in block.rows]


def test_rows_after_a_page_break_get_the_header_caption_and_unit(tmp_path: Path) -> None:
    found = tables_of(continued_table_pdf(tmp_path / "statement.pdf"))
    assert not any(found[2][0].columns)  # the finder sees no header on the second page
    tail = continued(found)[2][0]
    assert tail.columns == found[1][0].columns == ("", "2015", "2014", "2013")
    assert render_title(tail).startswith(f"{CAPTION} (continued) (in thousands")
    assert rendered(tail)[0] == MARKETING
    assert tail.markdown.splitlines()[0] == "|  | 2015 | 2014 | 2013 |"
    assert continued(found)[1] == found[1]  # the part that began it is unchanged


def test_a_repeated_header_keeps_its_labels_and_gets_the_caption(tmp_path: Path) -> None:
    found = tables_of(continued_table_pdf(tmp_path / "again.pdf", repeat_header=True))
    tail = continued(found)[2][0]
    assert tail.columns == found[2][0].columns and rendered(tail)[0] == MARKETING
    assert tail.caption == f"{CAPTION} (continued)"


def test_a_table_lower_on_the_next_page_or_of_another_shape_is_its_own(tmp_path: Path) -> None:
    found = tables_of(continued_table_pdf(tmp_path / "apart.pdf", gap=300.0))
    assert continued(found)[2] == found[2]  # prose or space above it: a table of its own
    head = found[1][0]
    narrower = dataclasses.replace(head, columns=head.columns[:3], caption="", bbox=(0, 50, 1, 60))
    named = dataclasses.replace(head, caption="Other Table", bbox=(0, 50, 1, 60))
    assert continued({1: [head], 2: [narrower]})[2] == [narrower]
    assert continued({1: [head], 2: [named]})[2] == [named]
    assert continued({1: [head], 3: [narrower]})[3] == [narrower]  # not the next page


def test_a_table_over_three_pages_carries_its_header_twice(tmp_path: Path) -> None:
    found = tables_of(continued_table_pdf(tmp_path / "three.pdf"))
    tail = found[2][0]
    chained = continued({1: found[1], 2: [tail], 3: [dataclasses.replace(tail, page=3)]})
    assert rendered(chained[3][0])[0] == MARKETING
    assert chained[3][0].caption == f"{CAPTION} (continued)"


def test_the_library_indexes_the_continued_rows_with_their_years(tmp_path: Path) -> None:
    from desktop_rag.bootstrap import build_context
    from desktop_rag.domain.fakes import FakeChatEngine
    from desktop_rag.services import Services

    pdf = continued_table_pdf(tmp_path / "docs" / "statement.pdf")
    ctx = build_context(str(tmp_path / "lib"), settings=Settings(profile="tiny"),
                        overrides={"engine": FakeChatEngine("-")})  # fmt: skip
    services: Any = Services(ctx)
    try:
        assert not services.ingest([pdf]).failed
        (doc,) = services.list_documents()
        texts = [c.text for c in services.document_chunks(doc.doc_id) if 2 in c.pages]
        assert any(MARKETING in t and t.startswith(f"{CAPTION} (continued)") for t in texts)
        found = services.search("marketing 2014", k=3)
        assert MARKETING in found.results[0].chunk.text
    finally:
        services.close()
