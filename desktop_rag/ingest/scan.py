"""Finds the files to ingest: explicit files, and folders walked recursively.

Hidden files and folders (".name") and version-control folders are skipped; symbolic links are
followed, but a folder already visited (a symlink loop) is never entered twice. Files the user
removed from the library are passed over when a folder walk finds them, not when named.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

from desktop_rag.domain import FileOutcome, Outcome, Reason

SKIP_DIRS = frozenset({"CVS", "_darcs", "__pycache__", "node_modules", "_MTN"})
REMOVED_BY_USER = "removed from the library earlier; add it again to take it back"


@dataclass(frozen=True, slots=True)
class Found:
    path: Path  # absolute, not resolved (a symlink keeps its own name)
    explicit: bool  # named by the user rather than found in a folder


@dataclass(slots=True)
class ScanResult:
    files: list[Found]
    folders: list[Path]
    outcomes: list[FileOutcome]


def absolute(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.abspath(os.path.expanduser(os.fspath(path))))


def scan(
    paths: list[str | os.PathLike[str]], removed: Collection[str] = frozenset(),
    stopping: Callable[[], bool] = lambda: False,
) -> ScanResult:
    """The files at `paths`; a walk ends early once `stopping()` (a cancelled ingestion)."""
    result = ScanResult([], [], [])
    seen: set[Path] = set()
    for raw in paths:
        path = absolute(raw)
        if path.is_dir():
            result.folders.append(path)
            found = [Found(p, False) for p in walk(path, stopping)]
        elif path.exists() or path.is_symlink():
            found = [Found(path, True)]
        else:
            result.outcomes.append(FileOutcome(
                str(path), Outcome.FAILED, "no such file or folder", code=Reason.NOT_FOUND
            ))
            found = []
        for item in found:
            if item.path in seen:
                continue
            seen.add(item.path)
            if not item.explicit and str(item.path) in removed:
                result.outcomes.append(FileOutcome(
                    str(item.path), Outcome.SKIPPED, REMOVED_BY_USER, code=Reason.REMOVED_BY_USER
                ))
            else:
                result.files.append(item)
    return result


def _hidden(name: str) -> bool:
    return name.startswith(".") or name in SKIP_DIRS


def walk(root: Path, stopping: Callable[[], bool] = lambda: False) -> list[Path]:
    """All non-hidden files under `root`, sorted, following symlinks without loops (fewer when
    `stopping()` becomes true on the way)."""
    visited: set[tuple[int, int]] = set()
    files: list[Path] = []
    for folder, dirs, names in os.walk(root, followlinks=True, onerror=None):
        if stopping():
            break
        try:
            st = os.stat(folder)
        except OSError:
            dirs[:] = []
            continue
        if (st.st_dev, st.st_ino) in visited:
            dirs[:] = []
            continue
        visited.add((st.st_dev, st.st_ino))
        dirs[:] = sorted(d for d in dirs if not _hidden(d))
        files.extend(Path(folder) / n for n in sorted(names) if not n.startswith("."))
    return files


def folders_below(roots: list[str], limit: int) -> list[str]:
    """`roots` and the non-hidden folders below them (symlinks followed once), at most `limit`
    in all, shallowest first: what a watcher of those roots watches."""
    found: list[str] = []
    visited: set[tuple[int, int]] = set()
    level = [Path(r) for r in roots]
    while level and len(found) < limit:
        below: list[Path] = []
        for folder in level:
            try:
                st = os.stat(folder)
                if (st.st_dev, st.st_ino) in visited:
                    continue
                visited.add((st.st_dev, st.st_ino))
                below += sorted(e for e in folder.iterdir() if e.is_dir() and not _hidden(e.name))
            except OSError:
                continue
            found.append(str(folder))
        level = below
    return found[:limit]
