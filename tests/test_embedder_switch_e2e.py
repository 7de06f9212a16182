"""The embedder switch end to end, through the real parts: PDFs ingested with the packaged MiniLM
into Chroma on disk, a switch to a second embedder (a tiny model built here) in a child process
that is killed halfway, a second child that resumes it while this process ingests another PDF and
holds the write lock, and a search thread that checks every answer all along."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from desktop_rag.bootstrap import build_context
from desktop_rag.config import load_settings, save_settings
from desktop_rag.services import Services
from desktop_rag.services.doctor import check_space
from desktop_rag.services.embedder_switch import follow_switch
from desktop_rag.store.documents import Catalog
from desktop_rag.store.spaces import LEGACY_COLLECTION, space_of
from desktop_rag.store.switch_state import active_collection
from desktop_rag.store.vectors import SpaceChangedError, collection_names
from tests.embedder_switch_models import SETTINGS, build_tiny_model, make_unique_pdf

ROOT = Path(__file__).resolve().parents[1]
PAUSE_AT = 48  # three batches of 16


@dataclass
class Searcher:
    """Searches the library over and over from its own context (as the app would while the
    CLI switches); a search whose best hit is not the chunk whose text it asked for, with
    cosine ~1, is a mixed (or empty) result. When the index says the space moved, it follows
    the switch (reopens the embedder and the index on the new space) and goes on."""

    data_dir: Path
    probes: list[tuple[str, str]]
    services: Services
    bad: list[str] = field(default_factory=list)
    seen: dict[str, int] = field(default_factory=dict)
    reopened: int = 0
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        n = 0
        while not self.stop.is_set():
            cid, text = self.probes[n % len(self.probes)]
            n += 1
            try:
                self._check(cid, text)
            except SpaceChangedError:  # as the app does: it follows the switch
                self.reopened += int(follow_switch(self.services.ctx))
            except Exception as exc:  # any other failure is a finding
                self.bad.append(f"{type(exc).__name__}: {exc}")
            time.sleep(0.05)

    def _check(self, cid: str, text: str) -> None:
        ctx = self.services.ctx
        hits = self.services.searching.retriever().dense(text, 3)
        model = ctx.embedder.name.split(" ")[0]
        self.seen[model] = self.seen.get(model, 0) + 1
        if not hits or hits[0][0] != cid or hits[0][1] < 0.99:
            self.bad.append(f"{model}: {cid} -> {hits[:2]}")


def _child(data_dir: Path, model: Path, mode: str, arg: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    script = str(ROOT / "tests" / "embedder_switch_child.py")
    return subprocess.Popen(
        [sys.executable, script, str(data_dir), str(model), mode, arg],
        stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT,
    )


def _lines(child: subprocess.Popen[str]) -> tuple[queue.Queue[str], threading.Thread]:
    """The child's output lines as they come; the pipe is closed at its end (join the thread)."""
    stream = child.stdout
    assert stream is not None
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        with stream:
            for line in stream:
                lines.put(line.strip())

    pumping = threading.Thread(target=pump, daemon=True)
    pumping.start()
    return lines, pumping


def _until(lines: queue.Queue[str], prefix: str, timeout: float = 240.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1.0)
        except queue.Empty:
            continue
        if line.startswith(prefix):
            return line
    raise AssertionError(f"the child never printed {prefix!r}")


@pytest.mark.slow
def test_a_switch_killed_halfway_resumes_and_search_never_mixes_spaces(
    tmp_path: Path, data_dir: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(4):
        make_unique_pdf(docs / f"report-{n}.pdf", pages=6, seed=n)
    save_settings(SETTINGS, data_dir / "config" / "settings.toml")
    tiny = build_tiny_model(tmp_path / "tiny-e2e")
    writer = Services(build_context(str(data_dir)))
    writer.ingest([docs])
    wanted = writer.ctx.catalog.spaces().wanted()
    chunks = writer.ctx.catalog.get_chunks(sorted(wanted))
    probes = [(cid, chunks[cid].text) for cid in sorted(chunks)]
    assert len(probes) >= 2 * PAUSE_AT
    reader = Services(build_context(str(data_dir), overrides={"embedder": writer.ctx.embedder}))
    searcher = Searcher(data_dir, probes, reader)
    thread = threading.Thread(target=searcher.run, daemon=True)
    thread.start()
    try:
        killed = _child(data_dir, tiny, "pause", str(PAUSE_AT))
        lines, pumping = _lines(killed)
        _until(lines, "paused")
        killed.send_signal(signal.SIGKILL)
        killed.wait(timeout=30)
        pumping.join(timeout=30)
        catalog = Catalog(writer.ctx.paths.catalog_db)  # as a restarted process reads it
        pending = catalog.spaces().pending()
        catalog.close()
        assert pending is not None and pending.done == PAUSE_AT and pending.phase == "embedding"
        assert active_collection(writer.ctx.paths.catalog_db) == LEGACY_COLLECTION

        go = tmp_path / "go"
        resumed = _child(data_dir, tiny, "wait", str(go))
        lines, pumping = _lines(resumed)
        assert _until(lines, "resumed") == f"resumed {PAUSE_AT}"
        make_unique_pdf(docs / "late.pdf", pages=2, seed=99)
        writer.ingest([docs / "late.pdf"])  # lands in the old space only: the switch catches up
        with writer.ctx.writer_lock:  # the flip must wait for a writer of another process
            go.touch()
            time.sleep(1.5)
        outcome = json.loads(_until(lines, "outcome ").removeprefix("outcome "))
        assert resumed.wait(timeout=60) == 0
        pumping.join(timeout=30)
        time.sleep(1.0)  # a few searches after the switch
    finally:
        searcher.stop.set()
        thread.join(timeout=30)

    total = len(writer.ctx.catalog.spaces().wanted())
    assert total > len(probes)  # the late PDF's chunks
    assert outcome["status"] == "switched" and outcome["old_deleted"]
    assert outcome["embedded"] == total - PAUSE_AT  # resumed where it was killed
    assert searcher.bad == []
    assert searcher.seen.get("all-minilm-l6-v2", 0) > 0 and searcher.seen.get("tiny-e2e", 0) > 0
    assert searcher.reopened == 1

    after = Services(build_context(str(data_dir)))
    new = space_of(tiny).collection
    assert active_collection(after.ctx.paths.catalog_db) == new
    assert collection_names(after.ctx.paths, after.ctx.settings.store) == [new]
    assert after.ctx.vectors.all_ids() == set(after.ctx.catalog.spaces().wanted())
    assert load_settings(after.ctx.paths.settings_file).models.embedder == str(tiny)
    assert check_space(after.ctx).ok
    for services in (after, reader, writer, searcher.services):
        services.close()
