"""A sentence that only points at the sources states nothing to check, so it is never flagged
as unsupported; a sentence that also states something is checked as before."""

from __future__ import annotations

import pytest

from desktop_rag.answering.citations import CitationChecker, states_facts, strip_markers
from desktop_rag.domain import Chunk, DocKind, Passage
from desktop_rag.domain.fakes import HashEmbedder


@pytest.mark.parametrize("sentence", [
    "This can be found in the table provided in source.",
    "This information can be found in the Domestic Streaming Segment table on page 21.",
    "It is shown in the table on page 4.",
    "The answer is found in source 2.",
    "The figure is given in the table provided in source 5.",
])  # fmt: skip
def test_pointers_at_the_sources_state_no_fact(sentence: str) -> None:
    assert not states_facts(sentence)


@pytest.mark.parametrize("sentence", [
    "These results are shown in Table 3 and exceed the baseline by 4 points.",
    "The revenue was reported in the annual report of 2015 as 4 billion.",
    "This is found in Nairobi, the capital of Kenya and its largest city.",
])  # fmt: skip
def test_sentences_that_also_state_something_are_checked(sentence: str) -> None:
    assert states_facts(sentence)


def test_the_pointer_after_a_right_answer_is_not_flagged() -> None:
    text = "Revenues — 2015: $ 4,180,339 | 2014: $ 3,431,434 (in thousands)"
    chunk = Chunk("d:1", "d", "/docs/n.pdf", "NETFLIX 2015 10K", DocKind.PDF, text, 0, (21,),
                  (0, len(text)))  # fmt: skip
    answer = ("Revenues in 2015 were $ 4,180,339 thousand [1]. "
              "This can be found in the table provided in source [1].")  # fmt: skip
    sentences = CitationChecker(HashEmbedder()).check(answer, [Passage(1, chunk, text, 1.0)])
    assert CitationChecker.unsupported(sentences) == []


@pytest.mark.parametrize(
    ("sentence", "bare"),
    [
        ("There were 4 trains that ran late: [1], [2], [3], and [4].",
         "There were 4 trains that ran late."),
        ("Revenue rose [1] and costs fell [2].", "Revenue rose and costs fell."),
        ("The cases: 3 [1], 5 [2] and 7 [3].", "The cases: 3, 5 and 7."),
        ("Steel [1, 2].", "Steel."),
    ],
)  # fmt: skip
def test_a_flagged_sentence_is_shown_without_its_list_of_markers(sentence: str, bare: str) -> None:
    """The CLI and the chat pane show a flagged sentence without its markers: a list of them
    leaves no ",,, and." behind."""
    assert strip_markers(sentence) == bare
