"""The document prior: across documents, passages of the document a question is about first."""

from __future__ import annotations

from retrieval_fakes import make_chunks
from test_retrieval_hybrid import build

from desktop_rag.domain import DocScope
from desktop_rag.retrieval.doc_prior import (
    DOCUMENT,
    Ranked,
    document_evidence,
    with_document_prior,
)

# Two watch manuals: the question is about the first one's gallery; the second has one page
# that happens to match the question's words better than any single page of the first.
FIRST = [
    "The gallery of the Falcon shows the photos synced from the phone.",
    "Falcon: swipe left on the face to open the gallery of photos.",
    "Photos in the Falcon gallery are deleted by a long press.",
]
SECOND = [
    "Watch gallery: the Orion watch shows the time on the gallery screenshot of the watch.",
    "The Orion band charges in ninety minutes on its magnetic cradle.",
    "Heart rate readings of the Orion band are stored for thirty days.",
]


def ranked(doc_id: str, scores: list[float]) -> list[Ranked]:
    return [(f"{doc_id}:{i:05d}", s, {"dense": i + 1}) for i, s in enumerate(scores)]


def test_a_documents_evidence_is_the_sum_of_its_best_few_passages() -> None:
    found = ranked("a", [3.0, 1.0, 0.5, 0.4]) + ranked("b", [3.5, -0.2])
    assert document_evidence(found, per_doc=3) == {"a": 4.5, "b": 3.5}
    assert document_evidence(found, per_doc=1) == {"a": 3.0, "b": 3.5}
    assert document_evidence([*ranked("c", [1.0]), ("c:t00007", 2.0, {})], 3) == {"c": 3.0}


def test_several_good_passages_outweigh_one_lucky_passage() -> None:
    found = sorted(ranked("a", [3.0, 2.5, 2.0]) + ranked("b", [3.4, 0.1]), key=lambda r: -r[1])
    assert found[0][0] == "b:00000"
    prior = with_document_prior(found, weight=1.0, per_doc=3)
    assert [r[0] for r in prior] == ["a:00000", "b:00000", "a:00001", "a:00002", "b:00001"]
    assert prior[0][1] == 3.0 + 1.0 and prior[0][2] == {"dense": 1, DOCUMENT: 1}
    assert prior[1][1] == 3.4 + 3.5 / 7.5 and prior[1][2][DOCUMENT] == 2


def test_the_prior_changes_nothing_when_off_or_within_one_document() -> None:
    found = ranked("a", [3.0, 2.0]) + ranked("b", [3.4])
    assert with_document_prior(found, weight=0.0, per_doc=3) == found
    one = ranked("a", [2.0, 1.0])
    assert with_document_prior(one, weight=1.0, per_doc=3) == one


def test_hybrid_search_across_documents_uses_the_prior_and_one_document_does_not() -> None:
    chunks = make_chunks("first", FIRST) + make_chunks("second", SECOND)
    query = "photos in the watch gallery"
    plain = build(chunks).retrieve(query, k=3)
    assert [c.chunk.doc_id for c in plain.candidates] == ["second", "first", "first"]
    prior = build(chunks, doc_weight=3.0).retrieve(query, k=3)
    assert [c.chunk.doc_id for c in prior.candidates] == ["first", "second", "first"]
    assert prior.candidates[0].sources[DOCUMENT] == 1
    assert "doc_prior_ms" in prior.timings_ms
    only_second = DocScope(only=frozenset({"second"}))
    within = build(chunks, doc_weight=3.0).retrieve(query, k=3, scope=only_second)
    assert "doc_prior_ms" not in within.timings_ms
    assert {c.chunk.doc_id for c in within.candidates} == {"second"}
