"""The ruled-grid cue of the table pass (ingest/table_rules.py): a table of words in a ruled grid,
whose cells sit too close for the text cues, goes to the table pass and comes back as rows;
a chart's gridlines, a diagram's boxes and underlines do not; through real PDFs (PyMuPDF), and
the real library (the table pass in its workers, MiniLM, Chroma and the catalog on disk)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from desktop_rag.bootstrap import build_context
from desktop_rag.config import Settings
from desktop_rag.ingest.pdf_pages import open_pdf, page_text
from desktop_rag.ingest.table_detect import looks_tabular
from desktop_rag.ingest.table_rules import may_hold_table, rule, ruled_grid
from desktop_rag.services import Services

BUTTONS = (
    ("Operation", "Function"),
    ("Press", "Lock or unlock the screen"),
    ("Press and hold", "Wake up the voice assistant"),
    ("Press twice", "Open the workout list"),
    ("Swipe up", "Switch between screens"),
    ("Swipe down", "Finish the workout"),
)
LEFT, SPLIT, RIGHT, TOP, ROW = 72.0, 170.0, 400.0, 120.0, 20.0


def new_page(path: Path, draw: Callable[[Any], None]) -> Path:
    import pymupdf

    doc = pymupdf.open()  # type: ignore[no-untyped-call]
    page = doc.new_page(width=612, height=792)
    page.insert_text((LEFT, 90), "Button functions during a workout", fontsize=12)
    draw(page)
    doc.save(str(path))
    doc.close()
    return path


def button_table(page: Any) -> None:
    """Two columns of words, 6 pt from the rule between them: no wide gap in any line."""
    for n, (operation, function) in enumerate(BUTTONS):
        baseline = TOP + n * ROW + 14
        page.insert_text((LEFT + 4, baseline), operation, fontsize=10)
        page.insert_text((SPLIT + 6, baseline), function, fontsize=10)
    bottom = TOP + len(BUTTONS) * ROW
    for n in range(len(BUTTONS) + 1):
        page.draw_line((LEFT, TOP + n * ROW), (RIGHT, TOP + n * ROW), width=0.5)
    for x in (LEFT, SPLIT, RIGHT):
        page.draw_line((x, TOP), (x, bottom), width=0.5)


def chart_gridlines(page: Any) -> None:
    """A bar chart: horizontal gridlines, one axis, filled bars (rectangles, not rules)."""
    for n in range(8):
        page.draw_line((LEFT, 150 + n * 30), (RIGHT, 150 + n * 30), width=0.3)
    page.draw_line((LEFT, 150), (LEFT, 360), width=0.8)
    for n in range(6):
        page.draw_rect((LEFT + 20 + n * 50, 250 - n * 15, LEFT + 50 + n * 50, 360), fill=(0, 0, 1))
    page.insert_text((LEFT, 380), "Visitors per month, 2015", fontsize=10)


def boxed_diagram(page: Any) -> None:
    """Boxes joined by arrows, a caption underlined."""
    for n in range(6):
        page.draw_rect((LEFT + n * 70, 200, LEFT + n * 70 + 50, 240), width=0.8)
        page.insert_text((LEFT + n * 70 + 5, 225), f"Step {n + 1}", fontsize=9)
        page.draw_line((LEFT + n * 70 + 50, 220), (LEFT + n * 70 + 70, 220), width=0.8)
    page.draw_line((LEFT, 262), (LEFT + 200, 262), width=0.5)
    page.insert_text((LEFT, 260), "Figure 2: the pipeline", fontsize=9)


def cues(path: Path) -> tuple[bool, bool, bool]:
    with open_pdf(path) as pdf:
        page = pdf.load_page(0)
        text = page_text(page)
        return looks_tabular(text), ruled_grid(page), may_hold_table(page, text)


def test_a_ruled_table_of_words_is_found_by_its_rules_alone(tmp_path: Path) -> None:
    assert cues(new_page(tmp_path / "t.pdf", button_table)) == (False, True, True)


@pytest.mark.parametrize("draw", [chart_gridlines, boxed_diagram])
def test_gridlines_one_way_boxes_and_underlines_are_no_grid(
    tmp_path: Path, draw: Callable[[Any], None]
) -> None:
    assert cues(new_page(tmp_path / "f.pdf", draw)) == (False, False, False)


def test_a_grid_without_text_is_left_to_ocr(tmp_path: Path) -> None:
    import pymupdf

    doc = pymupdf.open()  # type: ignore[no-untyped-call]
    page = doc.new_page(width=612, height=792)
    for n in range(7):
        page.draw_line((72, 100 + n * 20), (400, 100 + n * 20))
        page.draw_line((72 + n * 50, 100), (72 + n * 50, 220))
    assert ruled_grid(page) and not may_hold_table(page, page_text(page))
    doc.close()


@pytest.mark.parametrize(("item", "expected"), [
    (("l", (10.0, 50.0), (200.0, 50.3)), (1, 0)),  # across
    (("l", (10.0, 50.0), (10.4, 70.0)), (0, 1)),  # down
    (("l", (10.0, 50.0), (25.0, 50.0)), (0, 0)),  # an underline of a short word
    (("l", (10.0, 50.0), (10.0, 55.0)), (0, 0)),  # a tick
    (("l", (10.0, 50.0), (200.0, 90.0)), (0, 0)),  # a slanted line
    (("re", (10.0, 50.0, 300.0, 51.0), 1), (1, 0)),  # a rule drawn as a thin rectangle
    (("re", (10.0, 50.0, 11.5, 90.0), 1), (0, 1)),
    (("re", (10.0, 50.0, 300.0, 90.0), 1), (0, 0)),  # a box
    (("c", (0.0, 0.0), (1.0, 1.0), (2.0, 2.0), (3.0, 3.0)), (0, 0)),  # a curve
])  # fmt: skip
def test_a_rule_is_a_long_thin_straight_line_either_way(
    item: tuple[Any, ...], expected: tuple[int, int]
) -> None:
    assert rule(item) == expected


def test_the_table_pass_reads_the_ruled_table_into_rows(tmp_path: Path) -> None:
    path = new_page(tmp_path / "manual.pdf", button_table)
    settings = Settings(profile="tiny").updated(
        {"ingest.ocr_processes": 1, "ingest.picture_text": "off"}
    )
    services = Services(build_context(str(tmp_path / "lib"), settings=settings))
    try:
        services.ingest([path], tables_now=False)
        (doc,) = services.list_documents()
        assert services.tables_pending() == {doc.doc_id: 1}
        assert services.enrich_tables().tables == 1
        text = "\n".join(c.text for c in services.document_chunks(doc.doc_id))
        assert "Press and hold — Function: Wake up the voice assistant" in text, text
    finally:
        services.close()
