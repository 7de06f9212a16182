"""Concurrency: while one process ingests (real catalog and Chroma), a second writer gets a clear
"library in use" error, readers in another process keep searching, and nothing deadlocks; in one
process, searches and answers on other threads keep working during an ingestion."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from desktop_rag.bootstrap import build_context
from desktop_rag.config import Settings
from desktop_rag.domain import Outcome
from desktop_rag.domain.errors import LibraryInUseError
from desktop_rag.domain.fakes import FakeChatEngine, HashEmbedder, WordTokenCounter
from desktop_rag.services import Services
from desktop_rag.services.doctor import consistency_check
from tests.ingest_docs import make_pdf, write_note

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
SECOND_WRITER = """
import sys
from desktop_rag.cli import main
raise SystemExit(main(["--data-dir", sys.argv[1], sys.argv[2], sys.argv[3]]))
"""


def fake_services(data_dir: Path, **extra: object) -> Services:
    overrides = {"embedder": HashEmbedder(), "token_counter": WordTokenCounter(), **extra}
    settings = Settings()
    settings = settings.updated({"retrieval.reranker": "none"})
    return Services(build_context(str(data_dir), settings=settings, overrides=overrides))


def make_docs(folder: Path, count: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    write_note(folder / "aardvark.md", "# Aardvark\n\nThe aardvark eats termites at night.")
    for i in range(count):
        make_pdf(folder / f"report{i:02d}.pdf", pages=4, known_page=2, filler_repeats=10)
    return folder


def run_child(
    data_dir: Path, folder: Path, pause: Path | None = None
) -> subprocess.Popen[str]:
    command = [sys.executable, str(ROOT / "tests" / "hardening_child.py"), str(data_dir),
               str(folder)]
    if pause is not None:
        command += ["--pause-file", str(pause)]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=ENV, cwd=ROOT)
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "started"
    return child


def _finish(child: subprocess.Popen[str]) -> list[str]:
    assert child.stdout is not None
    lines = [line.strip() for line in child.stdout]
    assert child.wait(timeout=240) == 0
    child.stdout.close()
    return lines


def test_second_writer_is_refused_and_readers_keep_working(tmp_path: Path) -> None:
    data_dir, folder = tmp_path / "lib", make_docs(tmp_path / "docs", 6)
    assert "finished" in _finish(run_child(data_dir, folder / "aardvark.md"))
    pause = tmp_path / "pause"
    pause.touch()  # the writer holds the lock and waits at its first embedding
    child = run_child(data_dir, folder, pause)
    try:
        _second_writers_are_refused(data_dir, folder, tmp_path)
        reader = fake_services(data_dir)
        searches = 0
        pause.unlink()
        while child.poll() is None or searches == 0:
            result = reader.search("aardvark termites", k=3, mode="hybrid")
            assert result.results and "aardvark" in result.results[0].chunk.text.lower()
            reader.list_documents()
            searches += 1
        assert "finished" in _finish(child)
        assert consistency_check(reader).ok
        assert len(reader.list_documents()) == 7
        reader.close()
    finally:
        pause.unlink(missing_ok=True)
        child.kill()


def _second_writers_are_refused(data_dir: Path, folder: Path, tmp_path: Path) -> None:
    """The CLI in another process, and this process, both get "library in use"."""
    other = write_note(tmp_path / "other" / "x.md", "# Other\n\nSecond writer text.")
    for command, target in (("ingest", other), ("remove", folder / "aardvark.md")):
        result = subprocess.run(
            [sys.executable, "-c", SECOND_WRITER, str(data_dir), command, str(target)],
            capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=120, check=False,
        )
        assert result.returncode == 1, result
        assert "library in use" in (result.stdout + result.stderr).lower(), result
    services = fake_services(data_dir)
    try:
        with pytest.raises(LibraryInUseError, match="in use"):
            services.ingest([other])
    finally:
        services.close()


def test_in_one_process_search_and_ask_run_during_an_ingestion(tmp_path: Path) -> None:
    services = fake_services(tmp_path / "lib", engine=FakeChatEngine("Aardvarks eat termites [1]."))
    folder = make_docs(tmp_path / "docs", 6)
    services.ingest([folder / "aardvark.md"])
    errors: list[BaseException] = []

    def ingest() -> None:
        try:
            services.ingest([folder])
        except BaseException as exc:
            errors.append(exc)

    worker = threading.Thread(target=ingest)
    worker.start()
    answers = 0
    deadline = time.monotonic() + 120
    while worker.is_alive() and time.monotonic() < deadline:
        assert services.search("aardvark termites", k=2).results
        answer = services.ask("What do aardvarks eat?")
        assert {c.n for c in answer.citations} <= {p.n for p in answer.passages}
        answers += 1
        assert _other_writer_refused(services) or not services.ctx.writer_lock.held
    worker.join(timeout=120)
    assert not worker.is_alive() and not errors and answers > 0
    assert services.ingest([folder]).count(Outcome.UNCHANGED) == 7
    assert consistency_check(services).ok
    services.close()


def _other_writer_refused(services: Services) -> bool:
    """Whether a second lock on the library (as another process would take it) is refused."""
    from desktop_rag.store.lock import WriterLock

    try:
        with WriterLock(services.ctx.paths.lock_file):
            return False
    except LibraryInUseError:
        return True


def test_a_reader_opened_before_another_process_ingested_sees_new_vectors(
    tmp_path: Path,
) -> None:
    data_dir, folder = tmp_path / "lib", make_docs(tmp_path / "docs", 2)
    assert "finished" in _finish(run_child(data_dir, folder / "aardvark.md"))
    reader = fake_services(data_dir)
    try:
        assert reader.ctx.vectors.count() == 1
        assert "finished" in _finish(run_child(data_dir, folder))
        vectors = reader.ctx.vectors
        assert vectors.count() == len(vectors.all_ids()) > 1  # the stored rows are visible
        query = reader.ctx.embedder.embed_query("secret launch code of the purple giraffe")
        found = reader.ctx.catalog.get_chunks([cid for cid, _ in vectors.query(query, 3)])
        assert any("giraffe" in c.text for c in found.values())
    finally:
        reader.close()
