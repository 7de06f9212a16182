"""The sources list says which passages the app added to what retrieval found (a statement a
ratio needs), instead of showing them with a rank score of 0."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop_rag.domain import Chunk, DocKind, Passage
from desktop_rag.gui.sources_panel import SourcesPanel


def _passage(n: int, score: float, added_for: str = "") -> Passage:
    text = "Total current assets — 2021: 26,291 (in millions)"
    chunk = Chunk(f"c{n}", "d", "/nike.pdf", "NIKE 10-K", DocKind.PDF, text, n, (61,), (0, 9))
    return Passage(n, chunk, text, score, added_for=added_for)


def test_an_added_statement_is_named_and_has_no_score(qtbot: QtBot) -> None:
    panel = SourcesPanel()
    qtbot.addWidget(panel)
    panel.show_passages([_passage(1, 1.837), _passage(2, 0.0, "a line the ratio needs")])
    first, second = panel.topLevelItem(0), panel.topLevelItem(1)
    assert (first.text(1), first.text(3)) == ("NIKE 10-K", "1.837")
    assert (second.text(1), second.text(3)) == ("NIKE 10-K (added: a line the ratio needs)", "—")
