"""A date is the same date in other words: the support check does not flag "January 5, 2022"
against a source's "01/05/2022" (issue 38: a right date answer was flagged), nor the other way
round, and still flags another month."""

from __future__ import annotations

import pytest

from desktop_rag.answering.citations import CitationChecker
from desktop_rag.answering.claims import Claim
from desktop_rag.domain import Chunk, DocKind, Passage
from desktop_rag.domain.fakes import HashEmbedder


@pytest.mark.parametrize(("said", "source"), [
    ("The lease was signed on January 5, 2022.", "Lease signed 01/05/2022 by both parties."),
    ("The lease was signed on 5 Jan 2022.", "Lease signed 05/01/2022 by both parties."),
    ("The lease was signed on 01/05/2022.", "The lease was signed on January 5, 2022."),
    ("The lease was signed on 2022-05-01.", "Lease signed 01.05.2022 by both parties."),
])  # fmt: skip
def test_one_date_in_other_words_is_no_conflict(said: str, source: str) -> None:
    assert Claim(said).conflicts(Claim(source)) is None


def test_another_month_or_day_is_still_a_conflict() -> None:
    source = Claim("Lease signed 01/05/2022 by both parties.")
    assert Claim("The lease was signed on March 5, 2022.").conflicts(source) is not None
    assert Claim("The lease was signed on January 7, 2022.").conflicts(source) is not None
    in_a_table = Claim("Revenue 5 7 2022")  # no month named: a month's number is not offered
    assert Claim("In January revenue was 5 in 2022.").conflicts(in_a_table) is not None


def test_a_right_date_answer_is_supported_through_the_checker() -> None:
    text = "Lease agreement. Signed 01/05/2022 by the tenant and the landlord."
    chunk = Chunk("d:1", "d", "/docs/lease.pdf", "Lease", DocKind.PDF, text, 0, (2,),
                  (0, len(text)))  # fmt: skip
    answer = "The lease was signed by the tenant and the landlord on January 5, 2022 [1]."
    sentences = CitationChecker(HashEmbedder()).check(answer, [Passage(1, chunk, text, 1.0)])
    assert CitationChecker.unsupported(sentences) == []
