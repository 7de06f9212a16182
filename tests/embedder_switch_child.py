"""Child process of the switch kill test: runs `switch_embedder` on a library (real catalog,
Chroma and models) in batches of 16 and prints a line per progress event.

`pause N`: once N chunks are done it prints `paused` and sleeps, for the parent to kill it.
`wait FILE`: at its first event it prints `resumed <done>` and waits until FILE exists (the
parent ingests meanwhile), then goes on."""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from pathlib import Path

from desktop_rag.bootstrap import build_context
from desktop_rag.domain.progress import ProgressEvent
from desktop_rag.services import embedder_switch_run
from desktop_rag.services.embedder_switch import switch_embedder


def main(data_dir: str, model_dir: str, mode: str, arg: str) -> None:
    run = embedder_switch_run  # batches of exactly 16: the parent kills it after three
    run.FIRST_BATCH = run.MIN_BATCH = run.MAX_BATCH = 16
    ctx = build_context(data_dir)
    waited: list[bool] = []

    def progress(event: ProgressEvent) -> None:
        print(f"done {event.done} {event.total}", flush=True)
        if mode == "pause" and event.done >= int(arg):
            print("paused", flush=True)
            time.sleep(3600)
        if mode == "wait" and not waited:
            waited.append(True)
            print(f"resumed {event.done}", flush=True)
            while not Path(arg).exists():
                time.sleep(0.05)

    outcome = switch_embedder(ctx, model_dir, "tiny", progress)
    print("outcome " + json.dumps(dataclasses.asdict(outcome)), flush=True)
    ctx.close()


if __name__ == "__main__":
    main(*sys.argv[1:5])
