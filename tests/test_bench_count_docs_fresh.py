"""The count sets in fresh vocabulary (bench/count_docs_fresh.py, bench/count_docs_more.py): each
truth is the lines of its PDF that hold the item, and a rewording keeps its original's truth."""

from __future__ import annotations

import json
from pathlib import Path

from bench import count_docs_fresh
from desktop_rag.evaluation.splits import base_id, split_of


def test_truth_is_on_the_pdf_pages_and_rewordings_keep_it(tmp_path: Path) -> None:
    import pymupdf

    count_docs_fresh.main([str(tmp_path), "--small", "--seed", "5"])
    rows = [json.loads(x) for x in (tmp_path / "questions.jsonl").read_text().splitlines()]
    originals = {r["id"]: r for r in rows if "~" not in r["id"]}
    assert len(rows) == 2 * len(originals) == 14
    for row in rows:
        original = originals[base_id(row["id"])]
        assert (row["count"], row["items"], row["pages"]) == (
            original["count"], original["items"], original["pages"],
        )  # fmt: skip
        assert split_of(base_id(row["id"])) == split_of(original["id"])
        assert row["count"] == len(row["items"]) > 0
        with pymupdf.open(tmp_path / "documents" / row["doc"]) as pdf:
            for page, item in zip(row["pages"], row["items"], strict=True):
                assert item in pdf[page - 1].get_text().replace("\n", " ")
    assert {split_of(r["id"]) for r in rows} == {"dev", "test"}


def test_a_seed_gives_the_same_set(tmp_path: Path) -> None:
    one = count_docs_fresh.build(tmp_path / "a", seed=9, small=True)
    two = count_docs_fresh.build(tmp_path / "b", seed=9, small=True)
    assert one == two


def test_the_confirmation_set_keeps_its_truth_on_the_pages(tmp_path: Path) -> None:
    import pymupdf

    from bench import count_docs_more

    rows = count_docs_more.build(tmp_path, seed=4, small=True)
    assert len(rows) == 10 and all(r.count == len(r.items) > 0 for r in rows)
    for row in rows:
        with pymupdf.open(tmp_path / "documents" / row.doc) as pdf:
            for page, item in zip(row.pages, row.items, strict=True):
                assert item in pdf[page - 1].get_text().replace("\n", " ")
