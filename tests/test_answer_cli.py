"""`ask` and `core` through the CLI with every real part (tiny profile): a generated PDF is
ingested, pinned, cached, and questions are answered with citations to its pages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from gui_pdfs import SAMPLE_PAGES, make_pdf

from desktop_rag.cli import main


def _run(capsys: Any, *argv: str) -> tuple[int, Any]:
    code, out, _ = _run_err(capsys, *argv)
    return code, out


def _run_err(capsys: Any, *argv: str) -> tuple[int, Any, str]:
    """Also what went to stderr (the stages of an answer)."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, (json.loads(out) if "--json" in argv else out), err


@pytest.fixture
def library(tmp_path: Path, capsys: Any) -> tuple[str, Path]:
    data = str(tmp_path / "lib")
    pdf = make_pdf(tmp_path / "docs" / "observatory.pdf", SAMPLE_PAGES)
    notes = make_pdf(
        tmp_path / "docs" / "bakery.pdf",
        [
            (
                "The Sarek bakery",
                "The bakery in Sarek sells rye bread and cinnamon buns.",
                "It opens at six in the morning and closes at two in the afternoon.",
            )
        ],
    )
    code, _ = _run(
        capsys, "--data-dir", data, "--profile", "tiny", "ingest", str(pdf), str(notes), "--json"
    )
    assert code == 0
    return data, pdf


def test_ask_json_contract_and_chat_follow_up(library: tuple[str, Path], capsys: Any) -> None:
    data, pdf = library
    code, doc = _run(
        capsys,
        "--data-dir",
        data,
        "--profile",
        "tiny",
        "ask",
        "When was the main telescope of the observatory completed?",
        "--json",
    )
    assert code == 0 and doc["answer"] and doc["chat_id"]
    assert doc["gpu_offload"] is False and isinstance(doc["refused"], bool)
    for c in doc["citations"]:
        assert c["path"] == str(pdf) and c["page"] in (1, 2) and c["text"]
    assert doc["timings"]["prompt_tokens"] > 0
    code, follow = _run(
        capsys,
        "--data-dir",
        data,
        "--profile",
        "tiny",
        "ask",
        "and the solar one?",
        "--chat",
        doc["chat_id"],
        "--json",
    )
    assert code == 0 and follow["chat_id"] == doc["chat_id"]


def test_core_commands_and_cached_answers(library: tuple[str, Path], capsys: Any) -> None:
    data, pdf = library
    code, status = _run(
        capsys, "--data-dir", data, "--profile", "tiny", "core", "add", str(pdf), "--json"
    )
    assert code == 0 and status["state"] == "missing"
    assert status["documents"][0]["path"] == str(pdf) and status["total_tokens"] > 100
    assert status["budget"] > status["total_tokens"]
    code, built = _run(capsys, "--data-dir", data, "--profile", "tiny", "core", "build", "--json")
    assert code == 0 and built["state"] == "ready" and built["cache_bytes"] > 0
    code, doc, err = _run_err(
        capsys,
        "--data-dir",
        data,
        "--profile",
        "tiny",
        "ask",
        "What does the bakery in Sarek sell?",
        "--json",
    )
    assert code == 0 and doc["timings"]["cached_tokens"] > 100
    assert "Loading the pinned documents\u2026\nReading " in err
    code, listed = _run(capsys, "--data-dir", data, "--profile", "tiny", "core", "list", "--json")
    assert listed["state"] == "ready"


def test_ask_streams_for_humans(library: tuple[str, Path], capsys: Any) -> None:
    data, _ = library
    code, out = _run(
        capsys,
        "--data-dir",
        data,
        "--profile",
        "tiny",
        "ask",
        "Who founded the Lindqvist Observatory?",
    )
    assert code == 0 and out.strip()


def test_ask_about_one_document_cites_only_it(library: tuple[str, Path], capsys: Any) -> None:
    data, pdf = library
    bakery = pdf.parent / "bakery.pdf"
    question = "What time does the Sarek bakery open in the morning?"
    argv = ["--data-dir", data, "--profile", "tiny", "ask", question, "--json"]
    code, doc = _run(capsys, *argv, "--doc", str(bakery))
    assert code == 0 and doc["answer"]
    assert doc["citations"] and {c["path"] for c in doc["citations"]} == {str(bakery)}
    elsewhere = [*argv[:4], "ask", "When was the main telescope completed?", "--json"]
    code, doc = _run(capsys, *elsewhere, "--doc", str(bakery))  # the answer is in the other one
    assert code == 0 and all(c["path"] == str(bakery) for c in doc["citations"])
    assert doc["refused"] or "1987" not in doc["answer"]
    code, _ = _run(capsys, *argv[:-1], "--doc", str(pdf.parent / "missing.pdf"))
    assert code == 1


def test_ask_prints_its_stages_to_stderr_only(library: tuple[str, Path], capsys: Any) -> None:
    data, _ = library
    argv = ["--data-dir", data, "--profile", "tiny", "ask", "Who founded the observatory?"]
    code, doc, err = _run_err(capsys, *argv, "--json")
    assert code == 0 and doc["answer"]  # stdout is the JSON document alone
    lines = err.splitlines()
    assert lines[0] == "Searching your documents\u2026" and "\r" not in err  # not a terminal
    assert lines[1].startswith("Reading ") and lines[1].endswith(" tokens)\u2026")
    assert lines[2] == "Writing\u2026"
    code, out, err = _run_err(capsys, *argv)
    assert code == 0 and "Searching" not in out and "Writing\u2026" in err
