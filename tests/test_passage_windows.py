"""Tighter passages (`retrieval.passage_sentences`): the model is shown each passage's best
sentences with their neighbours; tables stay whole; citations and evidence still use the chunk."""

from __future__ import annotations

from typing import Any

from answer_helpers import AnswerServices, add_document

from desktop_rag.domain import Chunk, DocKind, Passage
from desktop_rag.llm.windows import looks_tabular, tightened
from desktop_rag.testing import FakeChatEngine

FILL = [f"The visitor centre hosts exhibit number {n} about local birds." for n in range(12)]
PUMP = " ".join([*FILL[:6], "The pump's rated flow is 42 litres per minute.", *FILL[6:]])
TABLE = "Revenues — 2015: $4,180,339; 2014: $3,431,434\nCost — 2015: 2,487,193; 2014: 2,201,761\n" \
        "Margin — 2015: 1,693,146; 2014: 1,229,673"  # fmt: skip


def _p(text: str) -> Passage:
    chunk = Chunk("c1", "d1", "/lib/a.pdf", "A", DocKind.PDF, text, 0, (1,), (0, len(text)))
    return Passage(1, chunk, text, 1.0)


def test_a_passage_keeps_its_best_sentence_and_the_sentences_around_it() -> None:
    (tight,) = tightened("What is the rated flow of the pump?", [_p(PUMP)], 1)
    assert "rated flow is 42 litres" in tight.text
    assert FILL[5] in tight.text and FILL[6] in tight.text  # its neighbours
    assert FILL[0] not in tight.text and FILL[11] not in tight.text
    assert tight.text.startswith("… ") and tight.text.endswith(" …")
    assert len(tight.text) < len(PUMP) / 3 and tight.chunk.text == PUMP


def test_tables_short_passages_and_the_setting_off_stay_whole() -> None:
    assert looks_tabular(TABLE) and not looks_tabular(PUMP)
    assert tightened("What were revenues in 2015?", [_p(TABLE)], 1)[0].text == TABLE
    assert tightened("What is the flow?", [_p(FILL[0])], 1)[0].text == FILL[0]
    assert tightened("What is the flow?", [_p(PUMP)], 0)[0].text == PUMP


def test_the_model_reads_the_tight_passage_and_the_citation_keeps_the_chunk(
    fake_context: Any,
) -> None:
    fake_context.update_settings({"retrieval.passage_sentences": 1})
    engine = FakeChatEngine("The pump's rated flow is 42 litres per minute [1].")
    fake_context.provide(engine=engine)
    add_document(fake_context, "/lib/pump.pdf", "Pump manual", [PUMP])
    answer = AnswerServices(fake_context).ask("What is the rated flow of the pump?")
    prompt = engine.prompts[-1][1].content
    assert "rated flow is 42 litres" in prompt and FILL[0] not in prompt
    (citation,) = answer.citations
    assert citation.chunk.text == PUMP and answer.unsupported_sentences == ()
    assert "42 litres" in citation.evidence[0].text
