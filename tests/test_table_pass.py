"""Text first, tables after, through the real parts (PyMuPDF and its layout model in the page
workers, MiniLM, Chroma and the catalog on disk): a PDF with a table is searchable from its text
as soon as the text pass returns, and its table rows are searchable once the table pass is done;
a process that stops before or during the table pass leaves it queued for the next run, and a
table pass that fails leaves the text as it was."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from table_pdfs import prose_pdf, table_pdf

from desktop_rag.bootstrap import build_context
from desktop_rag.cli import main
from desktop_rag.config import Settings
from desktop_rag.domain import Chunk, Document
from desktop_rag.domain.progress import CancelToken
from desktop_rag.domain.protocols import Embedder
from desktop_rag.services import Services
from desktop_rag.store import vectors as vectors_module
from desktop_rag.store.table_steps import TableSteps
from desktop_rag.store.vector_snapshot import SnapshotVectorIndex

REVENUES = "Revenues — 2015: $ 4,180,339 | 2014: $ 3,431,434 | 2013: $ 2,751,375 (in thousands)"
SETTINGS = Settings(profile="tiny").updated({"ingest.ocr_processes": 1})


class Crash(BaseException):
    """The process dying at that point (nothing after it runs, no handler sees it)."""


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    from desktop_rag.config.paths import resolve_paths
    from desktop_rag.models import ModelRegistry
    from desktop_rag.retrieval.embedder import load_embedder

    paths = resolve_paths(tmp_path_factory.mktemp("embedder")).ensure()
    return load_embedder(ModelRegistry(paths, SETTINGS), SETTINGS)


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("docs")
    table_pdf(folder / "table.pdf", ruled=False)
    prose_pdf(folder / "prose.pdf", columns=1)
    return folder


def open_library(data_dir: Path, embedder: Embedder) -> Services:
    """The library as a new process opens it."""
    ctx = build_context(str(data_dir), settings=SETTINGS, overrides={"embedder": embedder})
    return Services(ctx)


@pytest.fixture
def library(tmp_path: Path, embedder: Embedder) -> Iterator[Services]:
    services = open_library(tmp_path / "lib", embedder)
    yield services
    services.close()


def document(services: Services, name: str) -> Document:
    (doc,) = [d for d in services.list_documents() if Path(d.path).name == name]
    return doc


def chunks_of(services: Services, name: str) -> list[Chunk]:
    return services.document_chunks(document(services, name).doc_id)


def has_rows(services: Services) -> bool:
    return any(REVENUES in c.text for c in chunks_of(services, "table.pdf"))


def consistent(services: Services) -> bool:
    report = services.check_consistency()
    return bool(report["consistent"]) and not report["orphan_vectors"]


def test_the_text_is_searchable_at_once_and_the_table_rows_after_the_table_pass(
    library: Services, docs: Path
) -> None:
    report = library.ingest([docs], tables_now=False)
    assert not report.failed
    doc = document(library, "table.pdf")
    assert library.tables_pending() == {doc.doc_id: 1}  # the prose PDF has no tabular page
    before = chunks_of(library, "table.pdf")
    assert not has_rows(library) and any("4,180,339" in c.text for c in before)
    found = library.search("Domestic Streaming Segment revenues 2015", k=3).results
    assert found and found[0].chunk.doc_id == doc.doc_id  # searchable from its text already
    assert consistent(library)
    key = str(library.ctx.paths.chroma_dir.resolve())

    tables = library.enrich_tables()

    vectors = library.ctx.vectors
    assert isinstance(vectors, SnapshotVectorIndex)
    assert vectors.current() is not None  # the copy caught up: reads left Chroma at once
    assert key not in vectors_module._clients  # and it let Chroma's index go
    assert (tables.documents, tables.pages, tables.tables, tables.left) == (1, 1, 1, 0)
    assert not tables.failures and library.tables_pending() == {}
    after = chunks_of(library, "table.pdf")
    (rows,) = [c for c in after if REVENUES in c.text]
    assert rows.text.splitlines()[0].startswith("Domestic Streaming Segment")
    assert library.search("Revenues in 2015", k=3).results[0].chunk.chunk_id == rows.chunk_id
    assert {c.chunk_id for c in before} & {c.chunk_id for c in after}  # untouched ids stay
    assert rows.chunk_id not in {c.chunk_id for c in before}
    assert [c.ordinal for c in after] == list(range(len(after)))
    assert [c.prev_id for c in after[1:]] == [c.chunk_id for c in after[:-1]]
    assert [c.next_id for c in after[:-1]] == [c.chunk_id for c in after[1:]]
    assert document(library, "table.pdf").chunks == len(after)
    gone = {c.chunk_id for c in before} - {c.chunk_id for c in after}
    assert gone and library.get_chunks(sorted(gone)) == {}  # a stored citation finds nothing
    assert consistent(library)
    assert library.enrich_tables().documents == 0  # nothing left: done once


def test_a_process_that_exits_before_the_table_pass_leaves_it_for_the_next_sync(
    tmp_path: Path, docs: Path, embedder: Embedder
) -> None:
    first = open_library(tmp_path / "lib", embedder)
    first.ingest([docs / "table.pdf"], tables_now=False)
    first.close()
    second = open_library(tmp_path / "lib", embedder)
    try:
        assert second.tables_pending()
        second.sync()  # the table pass follows the text pass, and finishes the queue
        assert has_rows(second) and not second.tables_pending() and consistent(second)
    finally:
        second.close()


def test_a_crash_before_the_swap_leaves_the_text_and_the_next_run_finishes(
    library: Services, docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library.ingest([docs / "table.pdf"], tables_now=False)
    before = chunks_of(library, "table.pdf")

    def crash(_steps: TableSteps, _swap: Any) -> None:
        raise Crash()

    with monkeypatch.context() as patched:
        patched.setattr(TableSteps, "swap", crash)  # new vectors written, chunks not swapped
        with pytest.raises(Crash):
            library.enrich_tables()
    assert chunks_of(library, "table.pdf") == before and library.tables_pending()
    assert library.ctx.catalog.tables().outbox()  # the new vectors no chunk owns yet
    assert not any(REVENUES in r.chunk.text for r in library.search("Revenues 2015").results)
    assert consistent(library)  # interrupted work, not a disagreement

    assert library.enrich_tables().tables == 1
    assert has_rows(library) and not library.ctx.catalog.tables().outbox()
    assert consistent(library)


def test_a_crash_after_the_swap_leaves_old_vectors_that_the_next_run_deletes(
    library: Services, docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library.ingest([docs / "table.pdf"], tables_now=False)
    vectors = library.ctx.vectors

    def crash(_ids: Any) -> None:
        raise Crash()

    with monkeypatch.context() as patched:
        patched.setattr(vectors, "delete", crash)  # swap committed, old vectors still there
        with pytest.raises(Crash):
            library.enrich_tables()
    assert has_rows(library)  # the swap was committed
    stale = library.ctx.catalog.tables().outbox()
    assert stale and set(stale) <= vectors.all_ids() and consistent(library)
    library.ingest([docs / "table.pdf"])  # any next run finishes the work first
    assert not library.ctx.catalog.tables().outbox() and not set(stale) & vectors.all_ids()
    assert vectors.all_ids() == {c.chunk_id for c in chunks_of(library, "table.pdf")}


def test_a_table_pass_that_fails_keeps_the_text_and_says_which_file(
    library: Services, docs: Path, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    import desktop_rag.ingest.table_pass as table_pass

    library.ingest([docs / "table.pdf"], tables_now=False)
    before = chunks_of(library, "table.pdf")

    def broken(*_args: Any) -> None:
        raise ValueError("the layout went wrong")

    monkeypatch.setattr(table_pass, "plan_swap", broken)
    with caplog.at_level(logging.ERROR, "desktop_rag.ingest.table_pass"):
        report = library.enrich_tables()
    (failure,) = report.failures
    assert "table.pdf" in failure and "the layout went wrong" in failure
    assert "table.pdf" in caplog.text and "its text stays searchable" in caplog.text
    assert chunks_of(library, "table.pdf") == before and not library.tables_pending()
    assert library.search("Domestic Streaming Segment revenues").results
    assert consistent(library)


def test_a_page_whose_tables_cannot_be_read_keeps_its_text_and_is_named(
    library: Services, docs: Path, caplog: pytest.LogCaptureFixture
) -> None:
    library.ingest([docs / "table.pdf"], tables_now=False)
    doc = document(library, "table.pdf")
    with library.ctx.catalog._tx() as conn:  # a page the file does not have, as if damaged
        conn.execute("UPDATE table_queue SET pages = ? WHERE doc_id = ?",
                     (json.dumps([1, 9]), doc.doc_id))
    with caplog.at_level(logging.WARNING, "desktop_rag.ingest.table_pass"):
        report = library.enrich_tables()
    assert "table.pdf, page 9 could not be read" in caplog.text
    assert report.tables == 1 and not report.failures and has_rows(library)


def test_a_cancelled_or_changed_document_stays_queued(
    library: Services, docs: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy.pdf"
    copy.write_bytes((docs / "table.pdf").read_bytes())
    library.ingest([copy], tables_now=False)
    token = CancelToken()
    token.cancel()
    assert library.enrich_tables(cancel=token).left == 1
    copy.write_bytes(copy.read_bytes() + b"\n% changed\n")  # not the indexed file any more
    os.utime(copy, (1, 1))
    report = library.enrich_tables()
    assert (report.documents, report.left) == (0, 1) and not has_rows_named(library, "copy.pdf")


def has_rows_named(services: Services, name: str) -> bool:
    return any(REVENUES in c.text for c in chunks_of(services, name))


def test_the_cli_reads_the_tables_before_it_exits_unless_told_later(
    tmp_path: Path, docs: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import desktop_rag.retrieval.embedder as embedder_module

    monkeypatch.setattr(embedder_module, "load_embedder", lambda *_: embedder)
    base = ["--data-dir", str(tmp_path / "lib"), "--profile", "tiny"]
    assert main([*base, "ingest", str(docs / "table.pdf"), "--json", "--tables-later"]) == 0
    later = json.loads(capsys.readouterr().out)
    assert later["totals"] == {"indexed": 1} and later["tables"]["left"] == 1
    assert main([*base, "list"]) == 0
    assert "tables pending: 1 page (read by the next ingest or sync)" in capsys.readouterr().out
    assert main([*base, "sync"]) == 0
    out = capsys.readouterr()
    assert "tables: 1 candidate page in 1 document\u2026" in out.err
    assert "tables: 1 table in 1 document" in out.err
    assert "Everything is up to date." in out.out
    library = open_library(tmp_path / "lib", embedder)
    try:
        assert has_rows(library) and not library.tables_pending()
    finally:
        library.close()
