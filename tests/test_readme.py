"""The README stays a front door, and what it shows still works: its size and line width, the
two Quick start commands, every `desktop-rag` command it shows (parsed by the CLI's own parser),
every benchmark it names, and every file it links."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from desktop_rag.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _outside_code(text: str) -> list[str]:
    lines, inside = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            inside = not inside
        elif not inside:
            lines.append(line)
    return lines


def _commands(prefix: str) -> list[str]:
    """Every command of the README that starts with `prefix`: in code blocks and in `code`."""
    found = re.findall(r"`(" + re.escape(prefix) + r"[^`]*)`", README)
    found += [line.strip() for line in README.splitlines() if line.strip().startswith(prefix)]
    return [c for c in (re.split(r"\s+#|&&", c)[0].strip() for c in found) if "…" not in c]


def test_the_readme_is_short_and_its_lines_fit() -> None:
    assert len(README.splitlines()) <= 300
    long = [line for line in _outside_code(README) if len(line) > 120]
    assert long == []


def test_the_quick_start_is_exactly_two_commands() -> None:
    block = README.split("## Quick start", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert commands == ["./run app", "./run test"]
    assert (ROOT / ".ci" / "run").read_text().strip().endswith("exec ./run test")


@pytest.mark.parametrize("command", sorted(set(_commands("desktop-rag "))))
def test_every_cli_command_shown_parses(command: str) -> None:
    argv = shlex.split(command)[1:]
    argv = [a for a in argv if a != "…"]  # "…" stands for the rest of the command
    args = build_parser().parse_args(argv)
    assert args.command == argv[0]


def test_every_benchmark_shown_exists() -> None:
    names = re.findall(r"\./run bench (\w+)", README)
    names += re.findall(r"python -m bench\.run (\w+)", README)
    assert names
    for name in names:
        assert (ROOT / "bench" / f"bench_{name}.py").exists(), name
    for module in re.findall(r"python -m (bench\.\w+)", README):
        assert (ROOT / (module.replace(".", "/") + ".py")).exists(), module


def test_every_linked_file_exists() -> None:
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    assert links
    for link in links:
        assert (ROOT / link).exists(), link
