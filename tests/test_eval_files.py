"""An evaluation's input file that is missing, not JSON, or without a field it needs is named in
a one-line error with its line and the reason (no traceback), by every `eval` command."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.cli import main
from desktop_rag.domain.errors import DesktopRagError
from desktop_rag.evaluation.jsonl import read_jsonl


def test_rows_are_read_and_bad_ones_named_with_their_line(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text('{"id": "a", "question": "q"}\n\n{"id": "b", "question": "r"}\n', "utf-8")
    assert [r["id"] for r in read_jsonl(good, "questions", ("id",))] == ["a", "b"]
    cases = {
        "missing.jsonl": None,
        "broken.jsonl": '{"id": "a", "question": "q"}\n{oops\n',
        "list.jsonl": '["a"]\n',
        "short.jsonl": '{"id": "a", "question": "q"}\n{"id": "b"}\n',
        "binary.jsonl": b"\xff\xfe\x00",
    }
    expected = {"missing.jsonl": "No file of questions at", "broken.jsonl": "line 2: not JSON",
                "list.jsonl": "line 1: not a JSON object", "short.jsonl": "line 2: no question",
                "binary.jsonl": "Cannot read"}  # fmt: skip
    for name, content in cases.items():
        path = tmp_path / name
        if isinstance(content, str):
            path.write_text(content, "utf-8")
        elif content is not None:
            path.write_bytes(content)
        with pytest.raises(DesktopRagError) as raised:
            read_jsonl(path, "questions", ("id", "question"))
        assert expected[name] in raised.value.message and str(path) in raised.value.message


@pytest.mark.parametrize(
    "command",
    [["eval", "counts", "{f}", "{d}"], ["eval", "decisions", "{f}"], ["eval", "routes", "{f}"],
     ["eval", "answers", "{f}", "{d}"], ["eval", "pdfqa", "{f}", "{d}"]],
)
def test_every_eval_command_says_which_file_is_bad(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{oops\n", "utf-8")
    here = tmp_path / "here"
    here.mkdir()
    (here / "answers-eval.jsonl").write_text('{"id": "kept"}\n', "utf-8")  # an earlier run's
    monkeypatch.chdir(here)
    args = [a.format(f=bad, d=tmp_path) for a in command]
    assert main(["--data-dir", str(tmp_path / "data"), *args]) != 0
    err = capsys.readouterr().err
    assert f"{bad}, line 1: not JSON" in err and "Traceback" not in err
    assert sorted(p.name for p in here.iterdir()) == ["answers-eval.jsonl"]  # nothing made
    assert "kept" in (here / "answers-eval.jsonl").read_text("utf-8")  # nor emptied
