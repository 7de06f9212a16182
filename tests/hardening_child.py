"""Child process for the hardening tests and bench/bench_faults.py: ingests folders into a library
and prints `started`, `file-done N` and `finished` lines.

    python tests/hardening_child.py DATA_DIR FOLDER... [--embedder hash|real] [--delay S]
                                                        [--pause-file PATH]

`--delay` sleeps that many seconds per embedded text (a slow embedder widens the window for a
kill); while `--pause-file` exists every embedding call waits, so a test can hold the writer
lock open for as long as it needs.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop_rag.bootstrap import build_context
from desktop_rag.config import Settings
from desktop_rag.domain.fakes import HashEmbedder, WordTokenCounter
from desktop_rag.domain.progress import ProgressEvent
from desktop_rag.domain.protocols import Embedder, Vector
from desktop_rag.services import Services


class GatedEmbedder:
    """Wraps an embedder: optional delay per text, and a wait while the pause file exists."""

    def __init__(self, inner: Embedder, delay: float, pause_file: str | None) -> None:
        self.inner = inner
        self.delay = delay
        self.pause_file = pause_file
        self.name = getattr(inner, "name", "gated")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def embed_documents(self, texts: Sequence[str]) -> Vector:
        while self.pause_file and os.path.exists(self.pause_file):
            time.sleep(0.05)
        time.sleep(self.delay * len(texts))
        return self.inner.embed_documents(texts)


def report(event: ProgressEvent) -> None:
    if event.stage == "file-done":
        print(f"file-done {event.files_done}", flush=True)


def build(args: argparse.Namespace) -> Services:
    overrides: dict[str, Any] = {}
    if args.embedder == "hash":
        overrides = {"embedder": HashEmbedder(), "token_counter": WordTokenCounter()}
    services = Services(build_context(args.data_dir, settings=Settings(), overrides=overrides))
    inner = services.ctx.embedder
    services.ctx.provide(embedder=GatedEmbedder(inner, args.delay, args.pause_file))
    return services


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("data_dir")
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--embedder", choices=("hash", "real"), default="hash")
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--pause-file")
    args = parser.parse_args()
    services = build(args)
    services.ctx.embedder.embed_query("warm up")  # load the model before `started`
    print("started", flush=True)
    services.ingest(args.folders, progress=report)
    print("finished", flush=True)
    services.close()


if __name__ == "__main__":
    main()
