"""The benchmark runner: discovery, table, JSON, and a failing benchmark's exit code."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from types import ModuleType

import pytest

from bench import run as runner


def test_table_flattens_nested_results() -> None:
    text = runner.table({"demo": {"a": {"b": 1.23456}, "c": "x"}})
    lines = text.splitlines()
    assert lines[0].split() == ["benchmark", "metric", "value"]
    assert lines[2].split() == ["demo", "a.b", "1.235"]
    assert lines[3].split() == ["demo", "c", "x"]


def test_startup_benchmark_runs_quick_and_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    assert runner.main(["startup", "--quick", "--out", str(out)]) == 0
    document = json.loads(out.read_text())
    result = document["results"]["startup"]
    assert result["help"]["median_s"] > 0
    assert result["assembly"]["size_mib"] == 16
    assert document["machine"]["python"]
    assert "startup" in capsys.readouterr().out


def test_failing_benchmark_is_reported_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = ModuleType("bench.bench_broken")

    def run(args: argparse.Namespace) -> dict[str, object]:
        raise RuntimeError("boom")

    broken.run = run  # type: ignore[attr-defined]
    monkeypatch.setattr(runner, "available", lambda: ["broken"])
    monkeypatch.setattr(runner, "load", lambda name: broken)
    out = tmp_path / "r.json"
    assert runner.main(["--out", str(out)]) == 1
    assert json.loads(out.read_text())["results"]["broken"]["error"] == "RuntimeError: boom"


def test_unknown_benchmark_is_a_usage_error() -> None:
    assert runner.main(["no-such-bench"]) == 2
