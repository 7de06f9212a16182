"""The table-reading benchmark (bench/bench_table_pages.py) reads the candidate pages in the page
workers with the stand-ins and with PyMuPDF's own helpers, and tells two runs apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import bench_table_pages
from tests.table_pdfs import statements_pdf, table_pdf

pytest.importorskip("pymupdf")


def test_own_and_stand_in_helpers_read_the_same_tables(tmp_path: Path) -> None:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    table_pdf(folder / "plain.pdf", ruled=False)
    statements_pdf(folder / "statements.pdf")
    runs = {}
    for own in (False, True):
        result = bench_table_pages.measure(folder, processes=1, limit=0, own=own)
        assert result["pages"] >= 2 and result["pages_with_tables"] >= 2
        assert result["own_helpers"] is own
        runs[own] = tmp_path / f"{own}.json"
        runs[own].write_text(json.dumps(result), encoding="utf-8")
    assert bench_table_pages.compare(runs[False], runs[True]) == 0
    changed = json.loads(runs[True].read_text(encoding="utf-8"))
    changed["found"][next(iter(changed["found"]))] = "([], [])"
    runs[True].write_text(json.dumps(changed), encoding="utf-8")
    assert bench_table_pages.compare(runs[False], runs[True]) == 1
