"""The page that holds the fact, through the real parts (PyMuPDF, chunker, MiniLM, Chroma, catalog):
a chunk that spans a page break is cited, found and highlighted on the page of its evidence."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gui_pdfs import make_pdf

from desktop_rag.cli.commands_answer import answer_json
from desktop_rag.cli.commands_search import search_json

FACT = "The vault access code is zorblax-7731 for the east wing."
PAGES = (
    ("Contents.",),
    (
        "Security notes for the building.",
        FACT,
        "Visitors sign in at the front desk.",
        "The west wing is closed on Sundays.",
    ),
)


@pytest.fixture(scope="module")
def two_pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_pdf(tmp_path_factory.mktemp("docs") / "security.pdf", PAGES)


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory, two_pages: Path) -> Iterator[Any]:
    from desktop_rag.bootstrap import build_context
    from desktop_rag.domain.fakes import FakeChatEngine
    from desktop_rag.services import Services

    engine = FakeChatEngine(f"{FACT} [1]")
    svc = Services(build_context(str(tmp_path_factory.mktemp("lib")), "tiny",
                                 overrides={"engine": engine}))  # fmt: skip
    assert not svc.ingest([two_pages]).failed
    yield svc
    svc.close()


def test_the_chunk_spans_the_page_break(services: Any) -> None:
    (doc,) = services.list_documents()
    chunks = services.document_chunks(doc.doc_id)
    assert chunks[0].pages == (1, 2) and chunks[0].page == 1  # the case that went wrong


def test_search_reports_the_page_where_the_query_matches(services: Any) -> None:
    result = services.search("zorblax-7731")
    top = search_json(result)["results"][0]
    assert top["page"] == 2 and top["pages"] == [1, 2]


def test_ask_cites_the_evidence_page_with_the_sentence_boxed(services: Any) -> None:
    answer = services.ask("What is the vault access code?")
    (citation,) = answer.citations
    assert citation.page == 2 and not answer.unsupported_sentences
    (evidence,) = citation.evidence
    assert evidence.text == FACT and evidence.page == 2
    assert len(evidence.boxes) == 1 and evidence.boxes[0].page == 2  # that line, not the chunk
    cited = answer_json(answer)["citations"][0]
    assert cited["page"] == 2 and cited["evidence"][0]["page"] == 2
    assert len(cited["bboxes"]) == 5  # the whole chunk stays available as before


@pytest.mark.gui
def test_the_viewer_highlights_the_evidence_line_strongly(qtbot: Any, services: Any) -> None:
    from test_gui_window import assert_highlight_covers_line, shoot

    from desktop_rag.gui.main_window import MainWindow

    answer = services.ask("What is the vault access code?")
    (citation,) = answer.citations
    window = MainWindow(services, interactive=False)
    qtbot.addWidget(window)
    window.show()
    window.open_chunk(citation.chunk, citation.evidence[0])
    qtbot.waitUntil(lambda: window.viewer.location is not None, timeout=10_000)
    assert window.viewer.page_box.value() == 2
    pane = window.viewer.pdf
    assert len(pane.highlight_rects(2)) == 1  # the evidence line only
    assert len(pane.context_rects(2)) == 3  # the passage's other lines on page 2, lightly
    assert_highlight_covers_line(qtbot, window, 2)
    strong, light = pane.highlight_rects(2)[0], pane.context_rects(2)
    assert all(abs(r.y - strong.y) > strong.h for r in light)  # a different line each
    shoot(window, "20-evidence-highlight")
    assert window.shutdown()


def test_a_stored_chat_keeps_the_evidence_of_its_citations(services: Any) -> None:
    from desktop_rag.domain import Evidence
    from desktop_rag.gui.chat_controller import stored_evidence

    answer = services.ask("What is the vault access code?")
    history = services.chat_history(answer.chat_id)
    (cited,) = history[-1].citations
    assert cited["page"] == 2 and cited["evidence"][0]["text"] == FACT
    restored = stored_evidence(history)[0][cited["n"]]
    live = answer.citations[0].evidence[0]
    assert isinstance(restored, Evidence) and restored.page == live.page == 2
    assert (restored.text, restored.char_span) == (live.text, live.char_span)
    where = [[(b.page, b.x0, b.y0, b.x1, b.y1) for b in e.boxes] for e in (restored, live)]
    assert where[0] == where[1]


@pytest.mark.gui
def test_a_note_highlights_its_evidence_sentence(qtbot: Any, services: Any, tmp_path: Path) -> None:
    from desktop_rag.gui.main_window import MainWindow

    note = tmp_path / "wing.md"
    wrapped = FACT.replace(" zorblax", "\nzorblax")  # a sentence over two lines of the file
    note.write_text(f"# Wings\n\nThe lobby opens at nine. {wrapped} Lunch is at noon.\n")
    assert not services.ingest([note]).failed
    answer = services.ask("What is the vault access code?", scope=services.scope_of([note]))
    (citation,) = answer.citations
    window = MainWindow(services, interactive=False)
    qtbot.addWidget(window)
    window.open_chunk(citation.chunk, citation.evidence[0])
    qtbot.waitUntil(lambda: window.viewer.location is not None, timeout=10_000)
    strong, light = (s.cursor.selectedText() for s in window.viewer.note.extraSelections())
    assert " ".join(strong.split()) == FACT and "Lunch is at noon." in light
    assert window.shutdown()
