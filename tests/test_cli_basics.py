"""`desktop-rag --help` is fast and light; usage errors exit 2."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop_rag.cli import build_parser, main

HEAVY = ("torch", "chromadb", "llama_cpp", "pymupdf", "fitz", "sentence_transformers", "PySide6",
         "numpy", "onnxruntime", "desktop_rag.services")
CONTRACT_COMMANDS = ("doctor", "ingest", "sync", "folders", "unfollow", "list", "remove",
                     "rename", "search", "ask", "core", "eval")
CONTRACT_INVOCATIONS = [
    ["--data-dir", "D", "--profile", "tiny", "doctor", "--json"],
    ["doctor", "--check"],
    ["ingest", "a.pdf", "b.md", "--json"],
    ["list", "--json"],
    ["sync", "--json"],
    ["folders", "--json"],
    ["unfollow", "d1", "d2", "--json"],
    ["remove", "a.pdf", "--json"],
    ["rename", "a.pdf", "A new title", "--json"],
    ["search", "q", "--k", "3", "--mode", "bm25", "--rerank", "cross-encoder", "--json"],
    ["search", "q", "--mode", "dense", "--rerank", "llm"],
    ["search", "q", "--mode", "hybrid", "--rerank", "auto"],
    ["search", "q", "--rerank", "none"],
    ["ask", "why?", "--k", "4", "--chat", "c1", "--json"],
    ["core", "add", "a.pdf", "b.pdf"],
    ["core", "remove", "a.pdf"],
    ["core", "list", "--json"],
    ["core", "build", "--json"],
    ["eval", "beir", "DIR", "--json"],
    ["eval", "pdfqa", "q.jsonl", "DOCS", "--json"],
]
CLI = str(Path(sys.executable).parent / "desktop-rag")


def test_help_answers_fast_and_lists_the_contract_commands() -> None:
    start = time.perf_counter()
    result = subprocess.run([CLI, "--help"], capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    assert result.returncode == 0
    for command in CONTRACT_COMMANDS:
        assert command in result.stdout
    assert elapsed < 1.5, f"--help took {elapsed:.2f} s"


def test_help_imports_no_heavy_library() -> None:
    code = (
        "import sys\n"
        "from desktop_rag.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize("argv", CONTRACT_INVOCATIONS, ids=" ".join)
def test_contract_invocations_parse(argv: list[str]) -> None:
    args = build_parser().parse_args(argv)
    assert callable(args.func)


@pytest.mark.parametrize(
    "argv",
    [["no-such-command"], ["search"], ["--profile", "huge", "list"], ["doctor", "--bogus"], []],
)
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert "usage:" in capsys.readouterr().err


def test_usage_error_exit_code_from_the_installed_script() -> None:
    result = subprocess.run([CLI, "frobnicate"], capture_output=True, text=True, check=False)
    assert result.returncode == 2
    assert result.stdout == ""


def test_version() -> None:
    result = subprocess.run([CLI, "--version"], capture_output=True, text=True, check=False)
    assert result.stdout.strip() == "desktop-rag 0.1.0"


def test_invalid_settings_file_is_a_configuration_error(tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "settings.toml").write_text("[llm]\ncontext_size = 10\n")
    result = subprocess.run(
        [CLI, "--data-dir", str(tmp_path), "doctor"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 2
    assert "llm.context_size" in result.stderr and "512" in result.stderr


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path: Path) -> None:
    """`desktop-rag list | head -1`: the closed pipe is exit 141, not a traceback."""
    script = Path(sys.executable).with_name("desktop-rag")
    proc = subprocess.Popen(
        [str(script), "--data-dir", str(tmp_path), "folders"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before the command writes a byte
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 141
    assert "Traceback" not in err and "BrokenPipe" not in err, err


def test_files_of_unread_types_are_summed_up_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from desktop_rag.cli.commands_library import _print_outcomes
    from desktop_rag.domain import FileOutcome, Outcome, Reason

    unsupported = Reason.UNSUPPORTED
    outcomes = [FileOutcome(f"/p/fig{n}.png", Outcome.SKIPPED, "unsupported file type '.png'",
                            code=unsupported) for n in range(3)]
    outcomes += [FileOutcome("/p/data.XLSX", Outcome.SKIPPED, "unsupported file type '.XLSX'",
                             code=unsupported),
                 FileOutcome("/p/new.pdf", Outcome.INDEXED, None, "d1", 2, 3),
                 FileOutcome("/p/empty.md", Outcome.SKIPPED, "empty file (0 bytes)",
                             code=Reason.EMPTY)]
    _print_outcomes(outcomes)
    assert capsys.readouterr().out.splitlines() == [
        "indexed   /p/new.pdf (2 pages, 3 chunks)",
        "skipped   /p/empty.md: empty file (0 bytes)",
        "skipped   4 files of types the library does not read: .png (3), .xlsx (1)",
    ]


def test_rename_gives_a_document_the_users_title(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from desktop_rag.config.paths import resolve_paths
    from desktop_rag.domain import Chunk, DocKind, DocStatus, Document
    from desktop_rag.store.documents import Catalog

    pdf = str(tmp_path / "NETFLIX_2015_10K.pdf")
    catalog = Catalog(resolve_paths(tmp_path).catalog_db)
    catalog.add_pending(
        Document("d1", pdf, "NETFLIX 2015 10K", DocKind.PDF, "s" * 64, 1, 0.0, 1, 1,
                 DocStatus.PENDING, stated_title="0001065280-16-000047"),
        [Chunk("d1:00000", "d1", pdf, "NETFLIX 2015 10K", DocKind.PDF, "Streaming.", 0, (1,),
               (0, 10))],
    )
    catalog.finalize("d1")
    catalog.close()
    data = ["--data-dir", str(tmp_path)]
    assert main([*data, "rename", pdf, "Netflix annual report 2015"]) == 0
    assert capsys.readouterr().out == f'renamed   {pdf}: now titled "Netflix annual report 2015"\n'
    assert main([*data, "list"]) == 0
    assert "title: Netflix annual report 2015 (1 page" in capsys.readouterr().out
    missing = str(tmp_path / "nowhere.pdf")
    assert main([*data, "rename", missing, "X"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and f"error: {missing} is not in the library" in captured.err
