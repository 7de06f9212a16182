"""GUI building blocks: rendering, page geometry, progress text, adapters, viewer panes."""

from __future__ import annotations

from pathlib import Path

import pytest
from gui_pdfs import SAMPLE_PAGES, make_pdf

from desktop_rag.domain import DocKind, DocStatus, Document, FileOutcome, LineBox, Outcome
from desktop_rag.domain.progress import ProgressEvent
from desktop_rag.gui.chat_controller import chat_pairs, turn_views
from desktop_rag.gui.core_panel import STATE_TEXT, CorePanel
from desktop_rag.gui.geometry import Layout, Rect, box_to_view, fit_width_zoom, page_rects
from desktop_rag.gui.library_model import merge_rows
from desktop_rag.gui.progress_bar import describe_progress, format_eta, fraction
from desktop_rag.gui.render import (
    TurnView,
    answer_html,
    cited_numbers,
    link_citations,
    parse_cite_link,
)


def test_citation_markers_become_links() -> None:
    body = link_citations("<p>Built in 1987 [2] and moved [1, 3].</p>", turn=4)
    assert '[<a href="cite:4:2">2</a>]' in body
    assert '[<a href="cite:4:1">1</a>, <a href="cite:4:3">3</a>]' in body
    assert parse_cite_link("cite:4:3") == (4, 3)
    assert parse_cite_link("https://example.org") is None
    assert cited_numbers("a [2] b [1, 2] c [3]") == (2, 1, 3)


def test_answer_markdown_is_rendered_without_raw_html() -> None:
    html = answer_html(TurnView("q", "**Bold** <script>x</script> [1]"))
    assert "<strong>Bold</strong>" in html
    assert "<script>" not in html
    assert 'href="cite:0:1"' in html


def test_unsupported_sentences_and_refusals_are_marked() -> None:
    html = answer_html(TurnView("q", "Fine [1]. Made up claim.", unsupported=("Made up claim.",)))
    assert 'title="Not supported by the cited sources">Made up claim.</span>' in html
    assert "1 sentence not supported" in html
    refused = answer_html(TurnView("q", "The documents do not say.", refused=True))
    assert "Not answered from your documents" in refused


# Latin-1 and the few symbols of WGL4, the set every common UI font (Segoe UI, Arial, DejaVu,
# Noto, Cantarell) draws; emoji and dingbats (\u26d4, \u2713, \u2715) show as empty boxes.
FONT_SAFE = frozenset(map(chr, range(0x20, 0x7F))) | frozenset(map(chr, range(0xA0, 0x100))) | (
    frozenset("\n\t\u2013\u2014\u2018\u2019\u201c\u201d\u2022\u2026\u2039\u203a\u2212\u25b2\u25bc")
)


def test_gui_strings_use_only_glyphs_every_font_has() -> None:
    import ast

    import desktop_rag.gui

    shown = [answer_html(TurnView("q", "No.", refused=True)),
             answer_html(TurnView("q", "Fine [1]. Made up.", unsupported=("Made up.",))),
             answer_html(TurnView("q", "Still typing", streaming=True))]
    assert "Not answered from your documents" in shown[0]
    for source in sorted(Path(desktop_rag.gui.__file__).parent.glob("*.py")):
        shown += [node.value for node in ast.walk(ast.parse(source.read_text(encoding="utf-8")))
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    odd = {f"U+{ord(c):04X}" for text in shown for c in text if c not in FONT_SAFE}
    assert not odd, odd


def test_streaming_text_is_escaped_plain_text() -> None:
    html = answer_html(TurnView("q", "a <b> **c**", streaming=True))
    assert "&lt;b&gt;" in html and "**c**" in html


def test_page_layout_matches_qpdfview_rules() -> None:
    layout = Layout(margins=(6, 6, 6, 6), spacing=3, resolution=96 / 72, zoom=1.0)
    rects = page_rects([(595, 842), (595, 842)], layout, viewport_width=1000)
    assert rects[0] == Rect((1000 - 793) // 2, 6, 793, 1123)
    assert rects[1].y == 6 + 1123 + 3
    box = box_to_view((72, 90, 300, 105), rects[1], (595, 842))
    assert box.x == pytest.approx(rects[1].x + 72 * 793 / 595)
    assert box.y == pytest.approx(rects[1].y + 90 * 1123 / 842)  # no y flip: both top-left
    assert box.h == pytest.approx(15 * 1123 / 842)
    assert fit_width_zoom(595, 805, layout) == pytest.approx(793 / (595 * 96 / 72))


def test_progress_text_and_fraction() -> None:
    event = ProgressEvent("embed", 5, 10, files_done=1, files_total=4, pages_done=1, eta_s=75)
    expected = "Embed \u00b7 file 2 of 4 \u00b7 1 page \u00b7 about 1 min 15 s left"
    assert describe_progress(event) == expected
    assert fraction(event) == (150, 400)
    assert format_eta(3700) == "1 h 01 min"


def test_library_rows_merge_failures_not_in_catalog() -> None:
    doc = Document("d1", "/a.pdf", "A", DocKind.PDF, "s", 1, 0.0, 2, 5, DocStatus.INDEXED)
    failures = [FileOutcome("/a.pdf", Outcome.FAILED, "old"),
                FileOutcome("/bad.pdf", Outcome.FAILED, "damaged")]
    rows = merge_rows([doc], failures)
    assert [(r.title, r.status, r.error) for r in rows] == [
        ("A", "indexed", None), ("bad.pdf", "failed", "damaged")]


def test_a_note_has_no_page_count_in_the_library() -> None:
    from desktop_rag.gui.library_model import _display

    note = Document("n1", "/n.md", "N", DocKind.MARKDOWN, "s", 1, 0.0, 0, 1, DocStatus.INDEXED)
    pdf = Document("p1", "/p.pdf", "P", DocKind.PDF, "s", 1, 0.0, 12, 30, DocStatus.INDEXED)
    note_row, pdf_row = merge_rows([note, pdf], [])
    assert [_display(note_row, c) for c in range(4)] == ["N", "markdown", "\u2013", "1"]
    assert _display(pdf_row, 2) == "12"


def test_a_document_whose_file_is_missing_says_so() -> None:
    from desktop_rag.gui.library_model import _display

    doc = Document("p1", "/usb/p.pdf", "P", DocKind.PDF, "s", 1, 0.0, 12, 30, DocStatus.INDEXED)
    (there,) = merge_rows([doc], [])
    (gone,) = merge_rows([doc], [], frozenset({"/usb/p.pdf"}))
    assert (_display(there, 4), _display(gone, 4)) == ("indexed", "indexed, file missing")


def test_chats_are_read_from_the_facade_records() -> None:
    from desktop_rag.store.chats import ChatSummary, ChatTurn

    summary = ChatSummary("c1", "First", "t", "t", 2)
    assert chat_pairs([summary]) == [("c1", "First")]
    turns = [ChatTurn("user", "Q?", "t"), ChatTurn("assistant", "No idea.", "t", refused=True)]
    assert turn_views(turns) == [TurnView("Q?", "No idea.", refused=True)]


@pytest.mark.gui
def test_core_panel_shows_the_core_status(qtbot) -> None:
    from desktop_rag.services.core import CoreDoc, CoreState, CoreStatus

    panel = CorePanel()
    qtbot.addWidget(panel)
    assert panel.state_label.text() == "Cache: no documents pinned"
    assert not panel.rebuild_button.isEnabled()
    panel.show_status(CoreStatus((CoreDoc("d", "/a.pdf", "A", 1200),), 1200, 5000,
                                 CoreState.STALE))
    assert panel.docs.item(0).text() == "A \u2014 1,200 tokens"
    assert (panel.usage.value(), panel.usage.maximum()) == (1200, 5000)
    assert "stale" in panel.state_label.text() and panel.rebuild_button.isEnabled()
    panel.show_status(CoreStatus((CoreDoc("d", "/a.pdf", "A", 6000),), 6000, 5000,
                                 CoreState.BUILDING))
    assert "c62828" in panel.usage.styleSheet()  # over the budget: red
    assert not panel.rebuild_button.isEnabled()


def test_every_core_state_has_its_text() -> None:
    from desktop_rag.services.core import CoreState

    assert set(STATE_TEXT) == set(CoreState)


@pytest.mark.gui
def test_settings_dialog_builds_new_settings_and_leaves_the_shown_ones(qtbot) -> None:
    from dataclasses import FrozenInstanceError

    from desktop_rag.config import Settings
    from desktop_rag.gui.settings_dialog import SettingsDialog

    shown = Settings()
    dialog = SettingsDialog(shown, "/data")
    qtbot.addWidget(dialog)
    dialog.top_k.setValue(9)
    dialog.context_size.setValue(4096)
    dialog.watch_folders.setChecked(False)
    new = dialog.edited()
    assert (new.retrieval.top_k, new.llm.context_size, new.ingest.watch_folders) == (
        9, 4096, False)
    assert shown == Settings() and new is not shown  # the shown settings are untouched
    assert new.store == shown.store and new.retrieval.fusion == shown.retrieval.fusion
    with pytest.raises(FrozenInstanceError):
        new.retrieval.top_k = 3  # type: ignore[misc]


@pytest.mark.gui
def test_note_is_shown_with_its_span_highlighted(qtbot, tmp_path: Path) -> None:
    from desktop_rag.gui.viewer import Location, ViewerPanel

    text = "# Title\n\n" + "filler line\n" * 80 + "The cited passage is here.\n" + "tail\n" * 40
    start = text.index("The cited")
    panel = ViewerPanel()
    qtbot.addWidget(panel)
    panel.resize(500, 400)
    panel.show()
    panel.open_location(Location("note", str(tmp_path / "n.md"), text=text,
                                 span=(start, start + len("The cited passage is here."))))
    assert panel.note.highlighted_text() == "The cited passage is here."
    assert panel.note.verticalScrollBar().value() > 0  # scrolled down to the span
    assert panel.find_text("tail") and panel.note.textCursor().selectedText() == "tail"


@pytest.mark.gui
def test_pdf_find_moves_to_the_match(qtbot, tmp_path: Path) -> None:
    from desktop_rag.gui.viewer import Location, ViewerPanel

    pdf = make_pdf(tmp_path / "s.pdf", SAMPLE_PAGES)
    panel = ViewerPanel()
    qtbot.addWidget(panel)
    panel.resize(600, 500)
    panel.show()
    panel.open_location(Location("s", str(pdf), 1, (LineBox(1, 72, 78, 300, 93),)))
    top = panel.pdf.verticalScrollBar().value()
    qtbot.waitUntil(lambda: panel.find_text("spectrograph"), timeout=5000)
    assert panel.pdf.verticalScrollBar().value() > top  # page 2 is further down
    assert not panel.find_text("no such words anywhere")


def test_restored_answers_link_every_citation() -> None:
    from desktop_rag.store.chats import ChatTurn

    def cite(n: int, inferred: bool = False) -> dict[str, object]:
        return {"n": n, "chunk_id": f"d:{n}", "inferred": inferred}

    turns = [
        ChatTurn("user", "Q?", "t"),
        ChatTurn("assistant", "Steel rose [1, 3].", "t", citations=[cite(1), cite(2), cite(3)]),
        ChatTurn("user", "Q2?", "t"),
        ChatTurn("assistant", "Iron fell.", "t", citations=[cite(4, inferred=True)]),
    ]
    views = turn_views(turns)
    assert [(v.citations, v.inferred) for v in views] == [((1, 2, 3), (2,)), ((4,), (4,))]
