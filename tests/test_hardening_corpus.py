"""Malformed and hostile files: each gets an outcome naming it and a reason, the good files in the
same run are all indexed, and the library (real catalog + real Chroma) stays consistent."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_rag.bootstrap import build_context
from desktop_rag.config import Settings
from desktop_rag.domain import IngestReport, Outcome
from desktop_rag.domain.fakes import HashEmbedder, WordTokenCounter
from desktop_rag.ingest.loaders import MAX_MARKUP_DEPTH, markup_depth
from desktop_rag.services import Services
from desktop_rag.services.doctor import consistency_check
from tests.hardening_corpus import GOOD_NOTE_WORD, Expect, build_corpus

ROOT = Path(__file__).resolve().parents[1]


def fake_model_services(data_dir: Path) -> Services:
    """Real catalog and Chroma; hash embedder and word counter instead of the models."""
    overrides = {"embedder": HashEmbedder(), "token_counter": WordTokenCounter()}
    return Services(build_context(str(data_dir), settings=Settings(), overrides=overrides))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Expect]]:
    folder = tmp_path_factory.mktemp("hostile") / "corpus"
    return folder, build_corpus(folder)


@pytest.fixture(scope="module")
def ingested(
    corpus: tuple[Path, dict[str, Expect]], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Services, IngestReport]]:
    services = fake_model_services(tmp_path_factory.mktemp("lib"))
    report = services.ingest([corpus[0]])
    yield services, report
    services.close()


def _by_name(report: IngestReport) -> dict[str, list[object]]:
    found: dict[str, list[object]] = {}
    for outcome in report.outcomes:
        found.setdefault(os.path.basename(outcome.path), []).append(outcome)
    return found


def test_corpus_has_at_least_twenty_bad_files(corpus: tuple[Path, dict[str, Expect]]) -> None:
    _, expected = corpus
    bad = [n for n, e in expected.items() if e.outcomes != {Outcome.INDEXED} or "good" not in n]
    assert len(bad) >= 20


def test_every_file_gets_an_outcome_naming_it_and_a_reason(
    corpus: tuple[Path, dict[str, Expect]], ingested: tuple[Services, IngestReport]
) -> None:
    _, expected = corpus
    by_name = _by_name(ingested[1])
    for name, want in expected.items():
        assert len(by_name.get(name, [])) == 1, (name, sorted(by_name))
        (got,) = by_name[name]
        assert got.outcome in want.outcomes, (name, got)  # type: ignore[attr-defined]
        reason = got.reason or ""  # type: ignore[attr-defined]
        if got.outcome in (Outcome.FAILED, Outcome.SKIPPED):  # type: ignore[attr-defined]
            assert reason, (name, got)
        assert want.code is None or got.code is want.code, (name, got)  # type: ignore[attr-defined]


def test_the_good_files_are_indexed_and_searchable(
    ingested: tuple[Services, IngestReport]
) -> None:
    services, _ = ingested
    sparse = services.ctx.sparse
    for query in (GOOD_NOTE_WORD, "purple giraffe launch code", "Sheet 1999 zebrafinch"):
        assert sparse.search(query, 3), query
    pages = next(d for d in services.list_documents() if d.path.endswith("thousands-of-pages.pdf"))
    assert pages.pages == 2000


def test_doctor_check_reports_a_consistent_library(
    ingested: tuple[Services, IngestReport]
) -> None:
    check = consistency_check(ingested[0])
    assert check.ok, check.detail
    assert check.info["vectors"] == check.info["indexed_chunks"] == check.info["sparse_rows"]


def test_a_second_run_rereads_nothing(
    corpus: tuple[Path, dict[str, Expect]], ingested: tuple[Services, IngestReport]
) -> None:
    services, first = ingested
    second = services.ingest([corpus[0]])
    assert second.embedded_chunks == 0
    assert second.count(Outcome.INDEXED) == 0 and second.count(Outcome.UPDATED) == 0
    assert second.count(Outcome.FAILED) == first.count(Outcome.FAILED)


def test_an_explicit_fifo_does_not_block(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    services = fake_model_services(tmp_path / "lib")
    try:
        start = time.monotonic()
        (outcome,) = services.ingest([fifo]).outcomes
        assert outcome.outcome is Outcome.SKIPPED and time.monotonic() - start < 30
    finally:
        services.close()


def test_markup_depth_counts_nesting_not_void_or_auto_closed_tags() -> None:
    assert markup_depth(b"<html><body><div><p>a<p>b<br/><img src=x></div></body></html>") == 3
    assert markup_depth(b"<div>" * (MAX_MARKUP_DEPTH + 1)) == MAX_MARKUP_DEPTH + 1
    assert markup_depth(b"no tags at all < > <<>>") == 0


UNREADABLE_CHILD = """
import json, os, shutil, sys, tempfile
from desktop_rag.bootstrap import build_context
from desktop_rag.config import Settings
from desktop_rag.services import Services
from desktop_rag.domain.fakes import HashEmbedder, InMemoryVectorIndex, WordTokenCounter

def services(folder):
    fakes = {"embedder": HashEmbedder(), "token_counter": WordTokenCounter(),
             "vectors": InMemoryVectorIndex()}
    return Services(build_context(folder, settings=Settings(), overrides=fakes))

warm = tempfile.mkdtemp()  # imports everything while still root (stdlib sits under /root)
with open(os.path.join(warm, "w.md"), "w") as f:
    f.write("# Warm\\n\\nCaf\\u00e9.")
services(os.path.join(warm, "lib")).ingest([warm])
shutil.rmtree(warm)
os.setgid(65534); os.setuid(65534)
report = services(sys.argv[1]).ingest([sys.argv[2]])
print(json.dumps({os.path.basename(o.path): [o.outcome.value, o.code] for o in report.outcomes}))
"""


def test_a_file_without_read_permission_fails_with_its_reason() -> None:
    """Root reads any file, so as root the ingestion runs in a child that drops to `nobody`."""
    base = Path(tempfile.mkdtemp(prefix="hardening-perm-"))  # /tmp itself, not root's 0700 dir
    try:
        _check_unreadable(base)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _check_unreadable(base: Path) -> None:
    base.chmod(0o777)
    docs = base / "docs"
    docs.mkdir()
    docs.chmod(0o777)
    (docs / "secret.md").write_text("# Secret\n\nNobody may read this.")
    (docs / "secret.md").chmod(0)
    (docs / "open.md").write_text("# Open\n\nEveryone may read this.")
    (docs / "open.md").chmod(0o644)
    lib = base / "lib"
    lib.mkdir()
    lib.chmod(0o777)
    if os.geteuid() == 0:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(lib)}
        result = subprocess.run(
            [sys.executable, "-c", UNREADABLE_CHILD, str(lib), str(docs)], cwd=ROOT, env=env,
            capture_output=True, text=True, timeout=120, check=False,
        )
        assert result.returncode == 0, result.stderr[-3000:]
        outcomes = json.loads(result.stdout.strip().splitlines()[-1])
    else:
        services = fake_model_services(lib)
        report = services.ingest([docs])
        outcomes = {os.path.basename(o.path): [o.outcome.value, o.code.value]
                    for o in report.outcomes}
        services.close()
    assert outcomes["open.md"][0] == "indexed"
    assert outcomes["secret.md"] == ["failed", "unreadable"]
