"""Faults: SIGKILL during ingestion at random points, a full disk (a real size-limited tmpfs when
the test may mount one, else an injected ENOSPC), and partial files left by a killed core build.
After each fault the library opens, `doctor --check` reports it consistent once the next run has
finished the interrupted work, and no previously ingested document is lost."""

from __future__ import annotations

import errno
import os
import random
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_rag.bootstrap import build_context
from desktop_rag.config import Settings
from desktop_rag.domain import DocStatus
from desktop_rag.domain.errors import StoreError
from desktop_rag.domain.fakes import HashEmbedder, WordTokenCounter
from desktop_rag.services import Services
from desktop_rag.services.doctor import consistency_check
from tests.ingest_docs import make_pdf, write_note

ROOT = Path(__file__).resolve().parents[1]


def open_services(data_dir: Path) -> Services:
    overrides = {"embedder": HashEmbedder(), "token_counter": WordTokenCounter()}
    return Services(build_context(str(data_dir), settings=Settings(), overrides=overrides))


def child_ingest(data_dir: Path, folder: Path, kill_after_s: float | None) -> str:
    """Ingests `folder` in a child (real catalog and Chroma, a slow hash embedder); SIGKILLs it
    `kill_after_s` seconds after it started. Returns the child's last line."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "ingest_child.py"), str(data_dir), str(folder)],
        stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT,
    )
    assert child.stdout is not None
    last = child.stdout.readline().strip()
    assert last == "started", last
    if kill_after_s is not None:
        timer = threading.Timer(kill_after_s, child.send_signal, (signal.SIGKILL,))
        timer.start()
    for line in child.stdout:
        last = line.strip()
    child.wait(timeout=300)
    child.stdout.close()
    return last


def make_folder(folder: Path, count: int, start: int = 0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(start, start + count):
        make_pdf(folder / f"doc{i:02d}.pdf", pages=3, known_page=2, filler_repeats=4 + i % 5)
        text = f"# Note {i}\n\nThe note number {i} mentions ibex{i}."
        write_note(folder / f"note{i:02d}.md", text)
    return folder


def assert_consistent_after_next_run(services: Services, folder: Path) -> None:
    report = services.ingest([folder])
    assert not report.failed, report.failed
    check = consistency_check(services)
    assert check.ok, check.detail
    assert {d.status for d in services.list_documents()} == {DocStatus.INDEXED}


@pytest.mark.parametrize("seed", [1, 2])
def test_sigkill_at_a_random_point_loses_nothing_and_resumes(tmp_path: Path, seed: int) -> None:
    data_dir, folder = tmp_path / "lib", make_folder(tmp_path / "docs", 3)
    assert child_ingest(data_dir, folder, None) == "finished"
    make_folder(folder, 4, start=3)
    child_ingest(data_dir, folder, random.Random(seed).uniform(0.3, 2.5))
    services = open_services(data_dir)
    try:
        after_kill = services.check_consistency()
        for key in ("missing_vectors", "missing_sparse", "orphan_sparse"):
            assert after_kill[key] == 0, after_kill
        docs = services.list_documents()
        indexed = {Path(d.path).name for d in docs if d.status is DocStatus.INDEXED}
        assert {f"doc{i:02d}.pdf" for i in range(3)} <= indexed
        assert_consistent_after_next_run(services, folder)
        assert len(services.list_documents()) == 14
    finally:
        services.close()


# ---- disk full -----------------------------------------------------------------------------
@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path | None]:
    """A 4 MiB tmpfs (None when this process may not mount one)."""
    mount = tmp_path / "small"
    mount.mkdir()
    if os.geteuid() != 0:
        yield None
        return
    result = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], capture_output=True,
        check=False,
    )
    if result.returncode != 0:
        yield None
        return
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _wordy_notes(folder: Path, count: int) -> Path:
    rng = random.Random(folder.name)
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        words = " ".join(f"w{rng.randrange(10**9)}" for _ in range(25_000))
        write_note(folder / f"big{i:02d}.md", f"# Big {i}\n\n{words}\n")
    return folder


def _fill_until_store_error(services: Services, folder: Path) -> StoreError:
    with pytest.raises(StoreError) as raised:
        for i in range(40):
            services.ingest([_wordy_notes(folder / f"batch{i}", 2)])
    return raised.value


def test_disk_full_gives_a_clear_error_and_corrupts_nothing(
    tmp_path: Path, small_disk: Path | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    data_dir = small_disk or tmp_path / "lib"
    services = open_services(data_dir)
    try:
        first = make_folder(tmp_path / "first", 2)
        services.ingest([first])
        before = {d.doc_id for d in services.list_documents()}
        if small_disk is None:
            _inject_enospc(services, monkeypatch)
        error = _fill_until_store_error(services, tmp_path / "more")
        assert "disk space" in error.hint, error
    finally:
        services.close()
    if small_disk is not None:  # make room, as the user would
        subprocess.run(["mount", "-o", "remount,size=200m", str(small_disk)], check=True)
    else:
        monkeypatch.undo()
    reopened = open_services(data_dir)
    try:
        assert before <= {d.doc_id for d in reopened.list_documents()
                          if d.status is DocStatus.INDEXED}
        integrity = reopened.ctx.catalog._rows("PRAGMA integrity_check")
        assert integrity == [("ok",)]
        assert reopened.ctx.sparse.search("ibex1", 1)
        assert_consistent_after_next_run(reopened, first)
    finally:
        reopened.close()


def _inject_enospc(services: Services, monkeypatch: pytest.MonkeyPatch) -> None:
    """No mount allowed: the vector store's writes fail the way a full disk makes them fail."""
    collection: Any = services.ctx.vectors._col  # type: ignore[attr-defined]

    def full(*_: object, **__: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(collection, "upsert", full)


# ---- partial core cache files --------------------------------------------------------------
def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_partial_core_cache_files_from_a_killed_build_are_ignored_and_cleaned(
    data_dir: Path, tiny_chat_engine: Any
) -> None:
    from answer_helpers import AnswerServices, add_document

    settings = Settings(profile="tiny")
    settings = settings.updated({"llm.context_size": 4096, "llm.max_tokens": 16})
    overrides = {"embedder": HashEmbedder(), "token_counter": WordTokenCounter(),
                 "engine": tiny_chat_engine}
    ctx = build_context(str(data_dir), settings=settings, overrides=overrides)
    try:
        add_document(ctx, "/lib/handbook.pdf", "Handbook", ["Staff get 30 vacation days a year."])
        services = AnswerServices(ctx)
        services.core_add(["/lib/handbook.pdf"])
        folder = ctx.paths.core_cache_dir
        folder.mkdir(parents=True, exist_ok=True)
        dead = _dead_pid()
        (folder / "core.building").write_text(str(dead))  # the killed builder's marker
        partial = folder / f"core-{'0' * 24}.tmp{dead}"
        partial.write_bytes(os.urandom(4096))  # its half-written state file
        orphan = folder / f"core-{'1' * 24}.state"
        orphan.write_bytes(os.urandom(4096))  # a state whose sidecar was never written
        assert services.core_status().state in ("missing", "stale")
        answer = services.ask("How many vacation days do staff get?")
        assert answer.timings["core_build_ms"] > 0
        assert services.core_status().state == "ready"
        assert not partial.exists() and not orphan.exists()
    finally:
        ctx.release("engine")
        ctx.close()
