"""The Chroma-at-scale benchmark runs end to end at a small size: a filled collection and its
copy made once and kept, then new processes that write through the app's vector store, and the
same writes through a Chroma server on the folder."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from bench import bench_chroma_scale
from bench.bench_scale import MMLB, REPORT


def test_the_quick_run_fills_once_and_measures_both_modes(tmp_path: Path) -> None:
    args = argparse.Namespace(quick=True, chroma_dir=str(tmp_path), chroma_runs=1,
                              chroma_server=True)
    result = bench_chroma_scale.run(args)
    assert result["vectors"] == 5_000
    assert json.loads((tmp_path / "chroma-5000" / "filled.json").read_text()) == result["fill"]
    for mode in ("released", "kept"):
        steps = result[mode]
        assert {"first_query_s", "add_s", "refresh_s", "query_s", "remove_s"} <= set(steps)
        assert steps["add_own_mb"] > 0
    server = result["server"]
    assert server["add_s"] > 0 and server["remove_s"] > 0 and server["server_own_mb"] > 0
    index = bench_chroma_scale.store(tmp_path / "chroma-5000")
    assert index.current() is not None and index.count() == 5_000  # the adds were removed
    again = bench_chroma_scale.run(argparse.Namespace(**{**vars(args), "chroma_server": False}))
    assert again["fill"] == result["fill"]  # kept, not made again


@pytest.mark.slow
@pytest.mark.skipif(not (MMLB / REPORT).exists(), reason="the MMLongBench 10-K is not here")
def test_the_report_is_added_and_removed_in_the_filled_and_an_empty_folder(tmp_path: Path) -> None:
    """--chroma-report: the 50-page report through the real ingest, in new processes."""
    folder = tmp_path / "chroma-5000"
    bench_chroma_scale.fill(folder, 5_000)
    result = bench_chroma_scale.add_report(folder, 1)
    assert set(result) == {"empty", "filled"}
    for name in result:
        assert result[name]["add_s"] > 0 and len(result[name]["add_runs_s"]) == 1
    assert bench_chroma_scale.store(folder).count() == 5_000  # removed again
