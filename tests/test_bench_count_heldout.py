"""The held-out count sets are generated as their docstrings say: every question's gold count
is the number of lines carrying its key, and every original has its rewording."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import (
    count_docs_heldout,
    count_docs_heldout2,
    count_docs_heldout3,
    count_docs_heldout4,
    count_docs_heldout5,
)


@pytest.mark.parametrize(
    "module",
    [count_docs_heldout, count_docs_heldout2, count_docs_heldout3, count_docs_heldout4,
     count_docs_heldout5],
)
def test_held_out_set_is_complete(module: object, tmp_path: Path) -> None:
    questions = module.build(tmp_path, small=True)  # type: ignore[attr-defined]
    originals = [q for q in questions if "~" not in q.id]
    assert {f"{q.id}~r1" for q in originals} == {q.id for q in questions if "~" in q.id}
    assert all(q.count == len(q.items) == len(q.pages) > 0 for q in questions)
    rows = [json.loads(line) for line in (tmp_path / "questions.jsonl").read_text().splitlines()]
    assert len(rows) == len(questions)
    names = {q.doc for q in questions}
    assert all((tmp_path / "documents" / name).is_file() for name in names)


def test_minority_head_in_delivery_log(tmp_path: Path) -> None:
    """The delivery log states "delivery" in only some of its unsuccessful drop-offs."""
    questions = count_docs_heldout2.build(tmp_path)
    failed = next(q for q in questions if q.id == "deliveries-1-q1")
    saying = [t for t in failed.items if "deliver" in t.lower()]
    assert 0 < len(saying) < failed.count
