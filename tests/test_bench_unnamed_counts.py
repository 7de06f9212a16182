"""The count questions that name no document (bench/unnamed_counts.py) keep their originals'
truth and split, for every seed they were written for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import count_docs
from bench.unnamed_counts import unnamed
from desktop_rag.evaluation.splits import base_id, split_of
from desktop_rag.routes.router import decide


@pytest.mark.parametrize("seed", [61, 73, 89])
def test_each_seed_has_five_rewordings_with_their_originals_truth(
    tmp_path: Path, seed: int
) -> None:
    count_docs.main([str(tmp_path), "--small", "--seed", str(seed)])
    originals = {
        r["id"]: r
        for r in map(json.loads, (tmp_path / "questions.jsonl").read_text().splitlines())
    }
    rows = [json.loads(x) for x in unnamed(tmp_path, seed).read_text().splitlines()]
    assert len(rows) == 5
    for row in rows:
        original = originals[base_id(row["id"])]
        assert (row["count"], row["items"]) == (original["count"], original["items"])
        assert split_of(base_id(row["id"])) == split_of(original["id"])
        words = set(row["question"].lower().rstrip("?").split())
        assert not words & {"log", "notes", "minutes", "register", "reports"}  # no document named
    assert any(decide(r["question"]).rule == "how-many:stated-number" for r in rows)
