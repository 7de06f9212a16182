"""Tables through the real parts (PyMuPDF's table pass in the page workers, the chunker, MiniLM,
Chroma, the catalog): a table's rows are chunked whole, say what each number is, are found by a
question naming a row and a year, and are cited with the boxes of their cells."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from table_pdfs import COLUMNS, TOP, table_bottom, table_pdf

from desktop_rag.config import Settings

REVENUES = "Revenues — 2015: $ 4,180,339 | 2014: $ 3,431,434 | 2013: $ 2,751,375 (in thousands)"
REPLY = "Revenues in 2015 were $ 4,180,339 thousand [1]."


def _services(data_dir: Path, settings: Settings) -> Any:
    from desktop_rag.bootstrap import build_context
    from desktop_rag.domain.fakes import FakeChatEngine
    from desktop_rag.services import Services

    ctx = build_context(str(data_dir), settings=settings,
                        overrides={"engine": FakeChatEngine(REPLY)})  # fmt: skip
    return Services(ctx)


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("docs")
    table_pdf(folder / "plain.pdf", ruled=False)
    table_pdf(folder / "ruled.pdf", ruled=True)
    return folder


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory, docs: Path) -> Iterator[Any]:
    svc = _services(tmp_path_factory.mktemp("lib"), Settings(profile="tiny"))
    assert not svc.ingest([docs]).failed
    yield svc
    svc.close()


def _chunks(services: Any, name: str) -> list[Any]:
    (doc,) = [d for d in services.list_documents() if Path(d.path).name == name]
    chunks: list[Any] = services.document_chunks(doc.doc_id)
    return chunks


@pytest.mark.parametrize("name", ["plain.pdf", "ruled.pdf"])
def test_a_table_is_one_chunk_of_labelled_rows_under_its_caption(services: Any, name: str) -> None:
    chunks = _chunks(services, name)
    tables = [c for c in chunks if REVENUES in c.text]
    assert len(tables) == 1, [c.text for c in chunks]
    lines = tables[0].text.splitlines()
    assert lines[0].startswith("Domestic Streaming Segment") and "thousands" in lines[0]
    assert "Other income (expense) — 2015: (1,577) | 2013: 3,102 (in thousands)" in lines
    prose = [c for c in chunks if c is not tables[0]]
    assert prose and not any("4,180,339" in c.text for c in prose)  # not flattened twice


def test_each_piece_of_a_row_keeps_its_cells_box(services: Any) -> None:
    (table,) = [c for c in _chunks(services, "plain.pdf") if REVENUES in c.text]
    start = table.text.index("2015: $ 4,180,339")
    (box,) = [b for b in table.bboxes if b.start <= start < b.end]
    assert table.text[box.start:box.end] == "2015: $ 4,180,339"
    assert box.x0 <= COLUMNS[0][0] + 4 and COLUMNS[0][1] - 4 <= box.x1  # the whole cell
    assert box.x1 < COLUMNS[1][1] - 4  # and not the next one
    assert box.y0 >= TOP and box.y1 <= table_bottom()


def test_a_question_naming_a_row_and_a_year_finds_the_table(services: Any) -> None:
    top = services.search("Revenues in 2015", k=3).results[0]
    assert REVENUES in top.chunk.text and top.page == 1


def test_the_answer_cites_the_row_with_the_boxes_of_its_cells(services: Any) -> None:
    answer = services.ask("What were revenues in 2015?")
    (citation,) = answer.citations
    (evidence,) = citation.evidence
    assert evidence.text == REVENUES and not answer.unsupported_sentences
    assert len(evidence.boxes) == 4  # the label and its three values
    assert all(b.y0 >= TOP and b.y1 <= table_bottom() for b in evidence.boxes)


def test_with_tables_off_the_numbers_stay_in_the_text(tmp_path: Path, docs: Path) -> None:
    settings = Settings(profile="tiny").updated({"ingest.tables": "off"})
    svc = _services(tmp_path / "lib", settings)
    try:
        assert not svc.ingest([docs / "plain.pdf"]).failed
        texts = [c.text for c in _chunks(svc, "plain.pdf")]
        assert not any(REVENUES in t for t in texts) and any("4,180,339" in t for t in texts)
    finally:
        svc.close()


@pytest.mark.gui
def test_the_viewer_highlights_the_cited_rows_cells(qtbot: Any, services: Any) -> None:
    from test_gui_window import shoot

    from desktop_rag.gui.main_window import MainWindow

    answer = services.ask("What were revenues in 2015?")
    (citation,) = answer.citations
    window = MainWindow(services, interactive=False)
    qtbot.addWidget(window)
    window.resize(1200, 900)
    window.show()
    window.open_chunk(citation.chunk, citation.evidence[0])
    qtbot.waitUntil(lambda: window.viewer.location is not None, timeout=10_000)
    strong = window.viewer.pdf.highlight_rects(1)
    assert len(strong) == 4  # the row's label and its three values, each its own box
    qtbot.wait(1500)  # the page image is rendered in the background
    shoot(window, "22-table-row-highlight")
    assert window.shutdown()
