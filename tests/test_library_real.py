"""The library through real parts: PyMuPDF PDFs, the packaged MiniLM embedder, Chroma and the
catalog on temporary folders, a SIGKILLed child process, and the CLI."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_rag.bootstrap import build_context
from desktop_rag.cli import main
from desktop_rag.config import Settings
from desktop_rag.domain import DocStatus, Outcome
from desktop_rag.domain.fakes import HashEmbedder, WordTokenCounter
from desktop_rag.domain.progress import CancelToken, ProgressEvent
from desktop_rag.domain.protocols import Embedder
from desktop_rag.services import Services
from tests.ingest_docs import KNOWN, NOTE, make_pdf, write_note

ROOT = Path(__file__).resolve().parents[1]


def aged(path: Path) -> Path:
    """As if written a minute ago: a sync leaves files changed a moment ago for later."""
    then = time.time() - 60
    os.utime(path, (then, then))
    return path


@pytest.fixture(scope="session")
def real_embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    from desktop_rag.config.paths import resolve_paths
    from desktop_rag.models import ModelRegistry
    from desktop_rag.retrieval.embedder import load_embedder

    paths = resolve_paths(tmp_path_factory.mktemp("embedder")).ensure()
    embedder = load_embedder(ModelRegistry(paths, Settings()), Settings())
    embedder.embed_documents(["warm up"])  # the first forward pass is slow (one-time set-up)
    return embedder


@pytest.fixture
def real_services(data_dir: Path, real_embedder: Embedder) -> Iterator[Services]:
    ctx = build_context(str(data_dir), settings=Settings(), overrides={"embedder": real_embedder})
    yield Services(ctx)
    ctx.close()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    make_pdf(docs / "report.pdf", pages=4, known_page=2, filler_repeats=12)
    write_note(docs / "vault" / "garden.md", NOTE)
    return docs


def test_known_sentence_is_retrieved_with_page_and_box(
    real_services: Services, folder: Path
) -> None:
    report = real_services.ingest([folder])
    assert {o.outcome for o in report.outcomes} == {Outcome.INDEXED}
    ctx = real_services.ctx
    query = ctx.embedder.embed_query("What is the secret launch code of the purple giraffe?")
    dense = [cid for cid, _ in ctx.vectors.query(query, 3)]
    sparse = [cid for cid, _ in ctx.sparse.search("purple giraffe launch code", 3)]
    assert dense[0] == sparse[0]
    chunk = ctx.catalog.get_chunks([dense[0]])[dense[0]]
    assert KNOWN in chunk.text and chunk.pages == (2,)
    box = next(b for b in chunk.bboxes if 385 < b.y0 < 400)
    assert box.page == 2 and box.x0 == pytest.approx(72, abs=1)
    assert chunk.token_count > 0


def test_no_chunk_is_truncated_by_the_embedder(real_services: Services, folder: Path) -> None:
    make_pdf(folder / "long.pdf", pages=3, known_page=1, filler_repeats=60)
    real_services.ingest([folder])
    emb = real_services.ctx.embedder
    texts = [c.text for d in real_services.list_documents()
             for c in real_services.document_chunks(d.doc_id)]
    assert max(emb.count_word_pieces(texts)) <= emb.max_word_pieces - 2


def test_second_ingest_embeds_nothing_and_stores_agree(
    real_services: Services, folder: Path
) -> None:
    first = real_services.ingest([folder])
    second = real_services.ingest([folder])
    assert first.embedded_chunks > 0 and second.embedded_chunks == 0
    assert {o.outcome for o in second.outcomes} == {Outcome.UNCHANGED}
    report = real_services.check_consistency()
    assert report["consistent"], report
    assert report["vectors"] == report["indexed_chunks"] == report["sparse_rows"]


def test_cancel_stops_a_real_ingestion_quickly(real_services: Services, folder: Path) -> None:
    import threading
    import time

    for i in range(4):
        make_pdf(folder / f"long{i}.pdf", pages=8, known_page=1, filler_repeats=40 + i)
    token = CancelToken()
    cancelled_at: list[float] = []

    def on_progress(event: ProgressEvent) -> None:
        if event.stage == "embed" and not cancelled_at:
            # Cancel from another thread as the GUI does, while the first batch is under way
            # (a delayed timer let a quick machine finish everything before it fired).
            cancelled_at.append(time.perf_counter())
            threading.Thread(target=token.cancel).start()

    from desktop_rag.ingest.embedding import BATCH_CHARS

    began = time.perf_counter()  # the longest batch the pipeline sends (~0.5 s on a quiet PC)
    real_services.ctx.embedder.embed_documents(["Word " * 220] * (BATCH_CHARS // 1100))
    one_batch = time.perf_counter() - began
    report = real_services.ingest([folder], progress=on_progress, cancel=token)
    stopped = time.perf_counter() - cancelled_at[0]
    # The cancel lands when the batch under way ends (a loaded machine makes batches slower).
    assert stopped < 0.5 + 1.5 * one_batch, (stopped, one_batch)
    assert report.count(Outcome.CANCELLED) >= 1
    assert real_services.check_consistency()["consistent"]


def _kill_child_during_ingest(data_dir: Path, folder: Path, after_files: int) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "ingest_child.py"), str(data_dir), str(folder)],
        stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT,
    )
    assert child.stdout is not None
    for line in child.stdout:
        if line.strip() == f"file-done {after_files}" or line.strip() == "finished":
            break
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    child.stdout.close()


@pytest.mark.parametrize("after_files", [1, 3])
def test_a_killed_ingestion_leaves_a_consistent_resumable_library(
    tmp_path: Path, folder: Path, after_files: int
) -> None:
    for i in range(5):
        make_pdf(folder / f"extra{i}.pdf", pages=6, known_page=3, filler_repeats=8 + i)
    data_dir = tmp_path / "killed"
    _kill_child_during_ingest(data_dir, folder, after_files)
    overrides = {"embedder": HashEmbedder(), "token_counter": WordTokenCounter()}
    ctx = build_context(str(data_dir), settings=Settings(), overrides=overrides)
    services = Services(ctx)
    try:
        after_kill = services.check_consistency()
        # Whatever was interrupted, nothing half-done is searchable.
        for key in ("missing_vectors", "missing_sparse", "orphan_sparse"):
            assert after_kill[key] == 0, after_kill
        assert after_kill["documents"]["indexed"] >= after_files
        report = services.ingest([folder])
        assert not report.failed
        docs = services.list_documents()
        assert len(docs) == 7 and {d.status for d in docs} == {DocStatus.INDEXED}
        final = services.check_consistency()
        assert final["consistent"], final
    finally:
        ctx.close()


def test_cli_ingest_list_remove(
    data_dir: Path, folder: Path, real_embedder: Embedder, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import desktop_rag.retrieval.embedder as embedder_module

    monkeypatch.setattr(embedder_module, "load_embedder", lambda *_: real_embedder)
    (folder / "broken.pdf").write_bytes(b"%PDF-1.7 not really")
    base = ["--data-dir", str(data_dir)]
    assert main([*base, "ingest", str(folder), "--json"]) == 1  # one file failed
    out = json.loads(capsys.readouterr().out)
    assert out["totals"] == {"indexed": 2, "failed": 1}
    assert main([*base, "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["documents"]
    assert {d["status"] for d in listed} == {"indexed", "failed"}
    assert all(len(d["sha256"]) == 64 for d in listed)
    assert main([*base, "remove", str(folder / "report.pdf")]) == 0
    assert "removed" in capsys.readouterr().out
    (folder / "broken.pdf").unlink()
    assert main([*base, "ingest", str(folder)]) == 0
    human = capsys.readouterr().out
    assert "indexed   " in human and "unchanged " in human and "removed   " in human


def test_cli_sync_follows_the_folder_through_real_chroma(
    data_dir: Path, folder: Path, real_embedder: Embedder, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import desktop_rag.retrieval.embedder as embedder_module

    monkeypatch.setattr(embedder_module, "load_embedder", lambda *_: real_embedder)
    base = ["--data-dir", str(data_dir)]
    assert main([*base, "ingest", str(folder)]) == 0
    capsys.readouterr()
    aged(write_note(folder / "birds.md", "# Birds\n\nThe kestrel hovers over the verge."))
    (folder / "vault" / "garden.md").unlink()
    assert main([*base, "sync", "--json"]) == 0
    synced = json.loads(capsys.readouterr().out)
    assert synced["totals"] == {"indexed": 1, "unchanged": 1, "removed": 1}
    assert main([*base, "search", "which bird hovers over roads", "--json", "--k", "1"]) == 0
    hits = json.loads(capsys.readouterr().out)["results"]
    assert hits[0]["path"] == str(folder / "birds.md")
    assert main([*base, "folders"]) == 0
    assert capsys.readouterr().out.strip() == f"{folder}  2 documents"
    assert main([*base, "sync"]) == 0
    human = capsys.readouterr().out
    assert human.startswith("Everything is up to date.\n\n2 unchanged in "), human
    aged(write_note(folder / "birds.md", "# Birds\n\nThe heron waits."))
    assert main([*base, "sync"]) == 0
    human = capsys.readouterr().out
    assert human.startswith(f"updated   {folder / 'birds.md'} (1 chunk)\n"), human
    assert main([*base, "unfollow", str(folder)]) == 0
    assert capsys.readouterr().out.startswith(f"removed   {folder}: no longer followed")
    assert main([*base, "folders"]) == 0
    assert capsys.readouterr().out.startswith("No folder is followed")
    assert main([*base, "list", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["documents"]) == 2  # documents kept
    services = Services(build_context(str(data_dir), settings=Settings(),
                                      overrides={"embedder": real_embedder}))
    try:
        assert services.check_consistency()["consistent"]
    finally:
        services.close()
