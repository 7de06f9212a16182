"""Citations for answers the model wrote without [n] markers (small models write none): each
factual sentence is attributed after generation to the passage that supports it best."""

from __future__ import annotations

from typing import Any

from answer_helpers import AnswerServices, add_document

from desktop_rag.answering.citations import SUPPORT_THRESHOLD, CitationChecker
from desktop_rag.cli.commands_answer import answer_json
from desktop_rag.domain import Chunk, DocKind, Passage
from desktop_rag.domain.fakes import FakeChatEngine, HashEmbedder

STEEL = "The northern plant produced 420 tonnes of steel in 2019 according to the annual report."
BANANA = "Bananas grow in warm tropical places and are harvested green."
QUESTION = "How much steel did the northern plant produce in 2019?"
UNRELATED = "The castle was painted purple by seventeen wandering musicians last winter."


def _ask(ctx: Any, reply: str) -> Any:
    ctx.provide(engine=FakeChatEngine(reply))
    add_document(ctx, "/lib/steel.pdf", "Steel report", [BANANA, STEEL])
    return AnswerServices(ctx).ask(QUESTION)


def _passage(n: int, text: str) -> Passage:
    chunk = Chunk(f"c{n}", "d", "/a.pdf", "A", DocKind.PDF, text, n, (n,), (0, len(text)))
    return Passage(n, chunk, text, 0.9)


def test_a_copied_sentence_without_markers_gets_an_inferred_citation(fake_context: Any) -> None:
    answer = _ask(fake_context, "The northern plant produced 420 tonnes of steel in 2019.")
    (citation,) = answer.citations
    assert citation.inferred and citation.chunk.page == 2  # the STEEL chunk, page 2
    assert citation.support >= SUPPORT_THRESHOLD
    assert answer.unsupported_sentences == ()
    doc = answer_json(answer)
    assert doc["citations"][0]["inferred"] is True and doc["citations"][0]["text"] == STEEL


def test_an_answer_with_markers_gets_no_inferred_citations(fake_context: Any) -> None:
    answer = _ask(fake_context, f"The plant produced 420 tonnes of steel in 2019 [1]. {UNRELATED}")
    assert [(c.n, c.inferred) for c in answer.citations] == [(1, False)]
    assert answer.unsupported_sentences == (UNRELATED,)


def test_an_unrelated_sentence_gets_no_citation_and_is_flagged(fake_context: Any) -> None:
    answer = _ask(fake_context, UNRELATED)
    assert answer.citations == () and answer.unsupported_sentences == (UNRELATED,)


def test_each_sentence_goes_to_its_own_passage_and_weak_ones_stay_flagged() -> None:
    passages = [_passage(1, STEEL), _passage(2, BANANA)]
    reply = f"Bananas grow in warm tropical places. The plant made 420 tonnes of steel. {UNRELATED}"
    checker = CitationChecker(HashEmbedder())
    sentences = checker.check(reply, passages)
    assert [(s.evidence_n, s.inferred) for s in sentences] == [(2, True), (1, True), (None, False)]
    assert checker.unsupported(sentences) == [UNRELATED]
    assert [(c.n, c.inferred) for c in checker.citations(sentences, passages)] == [
        (1, True),
        (2, True),
    ]


def test_attribution_without_an_embedder_uses_word_overlap() -> None:
    passages = [_passage(1, STEEL)]
    checker = CitationChecker(None)
    sentences = checker.check("It made 420 tonnes of steel.", passages)
    assert sentences[0].evidence_n == 1 and sentences[0].inferred and sentences[0].supported


def test_inferred_citations_render_as_marked_links() -> None:
    from desktop_rag.gui.render import INFERRED_TITLE, TurnView, answer_html, parse_cite_link

    html = answer_html(TurnView("q", "The plant made 420 tonnes of steel.", inferred=(2,)), 3)
    assert '<a href="cite:3:2"' in html and "[2]*</a>" in html and INFERRED_TITLE in html
    assert parse_cite_link("cite:3:2") == (3, 2)
    assert "[2]*" not in answer_html(TurnView("q", "Steel [2].", citations=(2,)), 3)
