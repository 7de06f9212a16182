"""Sync of followed folders: how long catching up with a folder takes when nothing changed (the
check the app makes at every start) and when a few files changed.

    .venv/bin/python -m bench.run sync [--quick] [--sync-notes 2000]

Data: generated Markdown notes in 20 sub-folders, ingested once with the packaged embedder into
real Chroma. Reported: the first ingestion, a sync with nothing changed (median of 3 runs, and
files checked per second), and a sync after 1% of the notes were edited, 1% added and 1%
deleted, with its outcome counts.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

WORDS = ("river", "delta", "sediment", "pump", "valve", "ledger", "tariff", "orchard", "kiln",
         "sonnet", "glacier", "enzyme", "harbour", "lantern", "quartz", "meadow", "cipher",
         "falcon", "turbine", "mosaic")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sync-notes", type=int, default=2000, help="notes in the folder")


def run(args: argparse.Namespace) -> dict[str, Any]:
    notes = 60 if args.quick else args.sync_notes
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "notes"
        for n in range(notes):
            write_note(folder, n)
        return measure(folder, Path(tmp) / "data", notes, args.profile)


def write_note(folder: Path, n: int, edit: str = "") -> Path:
    path = folder / f"area{n % 20:02d}" / f"note{n:05d}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    words = " ".join(WORDS[(n * 7 + i) % len(WORDS)] for i in range(40))
    path.write_text(f"# Note {n}\n\nEntry {n} records {words}.{edit}\n", encoding="utf-8")
    return path


def measure(folder: Path, data: Path, notes: int, profile: str) -> dict[str, Any]:
    from desktop_rag.bootstrap import build_context
    from desktop_rag.services import Services

    services = Services(build_context(str(data), profile))
    try:
        services.ctx.embedder.embed_query("warm up")
        start = time.perf_counter()
        assert not services.ingest([folder]).failed
        first = time.perf_counter() - start
        idle = [_timed_sync(services)[0] for _ in range(3)]
        few = max(1, notes // 100)
        then = time.time() - 60  # changed a minute ago: a sync leaves fresher files for later
        for n in range(few):
            for path in (write_note(folder, n, edit=" Edited."), write_note(folder, notes + n)):
                os.utime(path, (then, then))
            (folder / f"area{(n + 50) % 20:02d}" / f"note{n + 50:05d}.md").unlink()
        seconds, counts = _timed_sync(services)
    finally:
        services.close()
    return {
        "notes": notes, "first_ingest_s": round(first, 2),
        "sync_unchanged_s": round(statistics.median(idle), 3),
        "sync_unchanged_files_per_s": round(notes / statistics.median(idle)),
        "sync_after_changes_s": round(seconds, 3), "sync_after_changes": counts,
    }


def _timed_sync(services: Any) -> tuple[float, dict[str, int]]:
    start = time.perf_counter()
    report = services.sync()
    seconds = time.perf_counter() - start
    counts: dict[str, int] = {}
    for outcome in report.outcomes:
        counts[outcome.outcome.value] = counts.get(outcome.outcome.value, 0) + 1
    return seconds, counts
