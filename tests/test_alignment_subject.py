"""A source sentence's document title counts for the names a sentence states: a table row of
Netflix's 10-K supports "Netflix's domestic streaming revenue in 2015 was $4,180,339 thousand"
though the row never says "Netflix", while a name found nowhere is still flagged."""

from __future__ import annotations

from desktop_rag.answering.alignment import Aligner, units
from desktop_rag.answering.claims import Claim
from desktop_rag.domain import Chunk, DocKind, Passage
from desktop_rag.domain.fakes import HashEmbedder

TABLE = ("Domestic Streaming Segment (in thousands, except per share data)\n"
         "Revenues — 2015: $ 4,180,339 | 2014: $ 3,431,434 | 2013: $ 2,751,375 (in thousands)\n"
         "Cost of revenues — 2015: 2,487,193 | 2014: 2,201,761 (in thousands)")  # fmt: skip


def passage(title: str) -> Passage:
    chunk = Chunk("d:1", "d", "/docs/NETFLIX_2015_10K.pdf", title, DocKind.PDF, TABLE, 0, (21,),
                  (0, len(TABLE)))  # fmt: skip
    return Passage(1, chunk, TABLE, 1.0)


def supported(sentence: str, title: str) -> tuple[bool, str | None]:
    pool = units([passage(title)])
    match = Aligner(HashEmbedder()).align([sentence], [pool])[0]
    return match.supported, match.conflict


def test_the_documents_title_holds_the_name_a_table_leaves_unsaid() -> None:
    answer = "The domestic streaming revenue of Netflix in 2015 was $4,180,339 thousand."
    assert supported(answer, "NETFLIX 2015 10K") == (True, None)
    ok, why = supported(answer, "Annual report 2015")
    assert not ok and why is not None and "netflix" in why


def test_a_name_in_neither_the_row_nor_the_title_is_still_flagged() -> None:
    ok, why = supported("The domestic streaming revenue of Hulu in 2015 was $4,180,339 thousand.",
                        "NETFLIX 2015 10K")  # fmt: skip
    assert not ok and why is not None and "hulu" in why
    ok, why = supported("The streaming revenue of Netflix in 2015 was $4,180,999 thousand.",
                        "NETFLIX 2015 10K")  # fmt: skip
    assert not ok and why is not None and "4180999" in why  # numbers never come from the title


def test_a_claim_without_a_subject_has_no_subject_names() -> None:
    assert Claim("Revenues rose.").subject_names == frozenset()
    assert Claim("x", "NETFLIX 2015 10K").subject_names == {"netflix", "2015", "10k"}
