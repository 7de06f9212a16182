"""bench.premise_check over a real catalog on disk: which questions the premise check refuses,
per split, and the rewordings whose decision differs from their original's."""

from __future__ import annotations

from pathlib import Path

from bench.premise_check import decisions, report
from desktop_rag.evaluation.splits import split_of
from desktop_rag.store.documents import Catalog
from tests.test_store_catalog import chunks, doc


def test_refusals_are_counted_by_split_and_rewording(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite3")
    catalog.add_pending(doc("crisis", "/docs/crisis.pdf"),
                        chunks("crisis", ["Germanwings and Lufthansa posted statements."]))
    catalog.finalize("crisis")
    questions = [
        {"id": "q-boeing", "doc": "crisis.pdf", "answer": "Not answerable",
         "question": "How many Tweets did Boeing post?"},
        {"id": "q-lufthansa", "doc": "crisis.pdf", "answer": "3",
         "question": "How many statements did Lufthansa post?"},
        {"id": "q-missing-doc", "doc": "other.pdf", "answer": "1",
         "question": "What did Lufthansa post?"},
    ]
    rewordings = [dict(questions[0], id="q-boeing~r1", original="q-boeing",
                       question="how many tweets did boeing post?")]  # small letters: no name
    refused = decisions(catalog, questions + rewordings)
    assert refused == {"q-boeing": ["Tweets", "Boeing"], "q-lufthansa": [],
                       "q-missing-doc": ["Lufthansa"], "q-boeing~r1": []}
    table = report(questions, rewordings, refused, "all")
    side = split_of("q-boeing")
    assert table[side]["unanswerable refused"] == "1 of 1"
    assert table[side]["decision changed"] == 1
    catalog.close()
