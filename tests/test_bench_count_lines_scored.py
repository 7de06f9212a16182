"""bench/count_lines_scored.py: the candidate rules compared offline on kept judge scores, over
a register ingested for real (PDF, catalog, Chroma, MiniLM); the scores here are made up."""

from __future__ import annotations

import random
from pathlib import Path

from bench.count_docs import questions_of, write_pdf
from bench.count_docs_fresh import helpdesk
from bench.count_lines_scored import _library, _norm, _units, compare


def test_records_reach_the_items_no_word_of_the_question_finds(tmp_path: Path) -> None:
    draft = helpdesk(random.Random(5), True)
    (tmp_path / "docs").mkdir()
    write_pdf(tmp_path / "docs" / draft.name, draft)
    services, ids = _library(tmp_path / "docs", tmp_path / "lib")
    lines = [u.text for u in _units(services, ids[draft.name])]
    services.close()
    (q,) = [q for q in questions_of(draft) if "printing" in q.question]
    truth = [_norm(x) in {_norm(i) for i in q.items} for x in lines]
    # a judge that is always right: what it is shown decides the count
    row = {"id": q.id, "doc": q.doc, "question": q.question, "lines": lines, "truth": truth,
           "p_yes": [0.9 if t else 0.1 for t in truth]}  # fmt: skip
    report = compare([row], tmp_path / "lib")
    assert report["records"]["all"] == {"questions": 1, "exact": 1, "recall": 1.0,
                                        "precision": 1.0}  # fmt: skip
    assert report["without"]["all"]["recall"] < 1.0  # "toner empty" shares no word with it
