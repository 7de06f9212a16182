"""The comparison set: reports whose two years' figures are known, each stated once in its PDF,
and questions whose gold is both values (scored as a List by `eval answers`)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from bench.compare_docs import build
from desktop_rag.evaluation.answer_scoring import score_answer
from desktop_rag.ingest.pdf_pages import open_pdf
from desktop_rag.routes.router import decide


def test_each_question_names_two_years_whose_values_are_in_their_reports(tmp_path: Path) -> None:
    questions = build(tmp_path, seed=5)
    written = (tmp_path / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(questions) == 12 and json.loads(written[0]) == questions[0]
    for q in questions:
        assert decide(q["question"]).route == "compare"
        first, second = ast.literal_eval(q["answer"])
        reports = [tmp_path / "documents" / q["doc"],
                   tmp_path / "documents" / q["doc"].replace("2019", "2021")]  # fmt: skip
        for value, path in zip((first, second), reports, strict=True):
            doc = open_pdf(path)
            text = " ".join(page.get_text() for page in doc)
            doc.close()
            assert value in text
        both = f"It was {first} in 2019 [1] and {second} in 2021 [2]."
        assert score_answer(q["answer"], "List", both, False).correct
        assert not score_answer(q["answer"], "List", f"It was {first} [1].", False).correct
