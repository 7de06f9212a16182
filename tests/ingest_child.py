"""Child process for the kill test: ingests a folder slowly (real catalog and Chroma, a hash
embedder that sleeps per batch) and prints a line per finished file."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence

from desktop_rag.bootstrap import build_context
from desktop_rag.config import Settings
from desktop_rag.domain.fakes import HashEmbedder, WordTokenCounter
from desktop_rag.domain.progress import ProgressEvent
from desktop_rag.domain.protocols import Vector
from desktop_rag.services import Services


class SlowHashEmbedder(HashEmbedder):
    def embed_documents(self, texts: Sequence[str]) -> Vector:
        time.sleep(0.02 * len(texts))
        return super().embed_documents(texts)


def report(event: ProgressEvent) -> None:
    if event.stage == "file-done":
        print(f"file-done {event.files_done}", flush=True)


def main(data_dir: str, folder: str) -> None:
    overrides = {"embedder": SlowHashEmbedder(), "token_counter": WordTokenCounter()}
    services = Services(build_context(data_dir, settings=Settings(), overrides=overrides))
    print("started", flush=True)
    services.ingest([folder], progress=report)
    print("finished", flush=True)
    services.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
