"""The library facade over fakes (hash embedder, in-memory vectors) and the real catalog."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from desktop_rag.domain import DocStatus, Outcome, Reason
from desktop_rag.domain.errors import LibraryInUseError, NotFoundError
from desktop_rag.domain.fakes import HashEmbedder
from desktop_rag.domain.progress import CancelToken, ProgressEvent
from desktop_rag.ingest.ocr import find_tessdata, ocr_config
from desktop_rag.services import Services
from desktop_rag.store.lock import WriterLock
from tests.ingest_docs import (
    KNOWN,
    NOTE,
    make_encrypted_pdf,
    make_image_scan_pdf,
    make_pdf,
    make_scanned_pdf,
    write_note,
)

needs_tessdata = pytest.mark.skipif(
    find_tessdata("", "eng") is None, reason="no Tesseract English data (tesseract-ocr-eng)"
)


@pytest.fixture
def services(fake_context: object) -> Services:
    return Services(fake_context)  # type: ignore[arg-type]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    make_pdf(docs / "report.pdf", pages=3, known_page=2)
    write_note(docs / "vault" / "garden.md", NOTE)
    write_note(docs / "vault" / ".obsidian" / "config.md", "hidden settings")
    write_note(docs / ".git" / "HEAD.md", "vcs")
    return docs


def outcomes(report: object) -> dict[str, str]:
    return {Path(o.path).name: o.outcome.value for o in report.outcomes}  # type: ignore[attr-defined]


def embedder(services: Services) -> HashEmbedder:
    emb = services.ctx.embedder
    assert isinstance(emb, HashEmbedder)
    return emb


def test_ingest_then_ingest_again_changes_nothing(services: Services, folder: Path) -> None:
    first = services.ingest([folder])
    assert outcomes(first) == {"report.pdf": "indexed", "garden.md": "indexed"}
    texts = embedder(services).embedded_texts
    assert texts > 0 and first.embedded_chunks == texts
    second = services.ingest([folder])
    assert outcomes(second) == {"report.pdf": "unchanged", "garden.md": "unchanged"}
    assert embedder(services).embedded_texts == texts and second.embedded_chunks == 0
    assert [o.chunks for o in first.outcomes] == [o.chunks for o in second.outcomes]
    report = services.check_consistency()
    assert report["consistent"], report


def test_reingesting_unchanged_files_loads_no_model_and_opens_no_vector_store(
    data_dir: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import desktop_rag.retrieval.embedder as embedder_module
    import desktop_rag.store.vectors as vectors_module
    from desktop_rag.bootstrap import build_context
    from desktop_rag.config import Settings
    from desktop_rag.domain.fakes import InMemoryVectorIndex, WordTokenCounter

    opened: list[str] = []
    index = InMemoryVectorIndex()
    monkeypatch.setattr(embedder_module, "load_embedder",
                        lambda *_: opened.append("embedder") or HashEmbedder())
    monkeypatch.setattr(vectors_module, "open_vector_index",
                        lambda *_: opened.append("vectors") or index)

    def fresh() -> Services:
        overrides = {"token_counter": WordTokenCounter()}
        return Services(build_context(str(data_dir), settings=Settings(), overrides=overrides))

    fresh().ingest([folder])
    assert sorted(opened) == ["embedder", "vectors"]
    report = fresh().ingest([folder])
    assert {o.outcome for o in report.outcomes} == {Outcome.UNCHANGED}
    assert sorted(opened) == ["embedder", "vectors"]


def test_known_sentence_is_found_with_its_page(services: Services, folder: Path) -> None:
    services.ingest([folder])
    hits = services.ctx.sparse.search("purple giraffe launch code", 3)
    chunk = services.ctx.catalog.get_chunks([hits[0][0]])[hits[0][0]]
    assert KNOWN in chunk.text and chunk.pages == (2,) and chunk.title == "Test document report"
    garden = next(d for d in services.list_documents() if d.kind.value == "markdown")
    chunks = services.document_chunks(garden.doc_id)
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    assert any(c.heading_path == ("Garden", "Pests") for c in chunks)


def test_touched_but_identical_file_is_unchanged(services: Services, folder: Path) -> None:
    services.ingest([folder])
    os.utime(folder / "report.pdf", (1, 1))
    assert outcomes(services.ingest([folder / "report.pdf"])) == {"report.pdf": "unchanged"}


def test_changed_file_is_updated_reusing_identical_chunks(
    services: Services, folder: Path
) -> None:
    services.ingest([folder])
    before = embedder(services).embedded_texts
    note = folder / "vault" / "garden.md"
    note.write_text(NOTE + "\n## Harvest\n\nPick the zucchini while small.\n", encoding="utf-8")
    report = services.ingest([folder])
    assert outcomes(report)["garden.md"] == "updated"
    assert embedder(services).embedded_texts - before == 1  # only the new section's chunk
    docs = [d for d in services.list_documents() if d.path == str(note)]
    assert len(docs) == 1 and docs[0].status is DocStatus.INDEXED
    assert services.ctx.sparse.search("zucchini", 3)
    assert services.check_consistency()["consistent"]


def test_renamed_file_is_moved_without_embedding(services: Services, folder: Path) -> None:
    services.ingest([folder])
    before = embedder(services).embedded_texts
    (folder / "report.pdf").rename(folder / "renamed.pdf")
    report = services.ingest([folder])
    assert outcomes(report) == {"renamed.pdf": "moved", "garden.md": "unchanged"}
    assert embedder(services).embedded_texts == before
    hit = services.ctx.sparse.search("giraffe", 1)[0][0]
    assert services.ctx.catalog.get_chunks([hit])[hit].path == str(folder / "renamed.pdf")
    assert services.check_consistency()["consistent"]


def test_a_note_named_after_its_file_gets_its_new_name_when_moved(
    services: Services, tmp_path: Path
) -> None:
    old = write_note(tmp_path / "old name.md", "Wombats dig burrows.")
    services.ingest([old])
    old.rename(tmp_path / "wombat facts.md")
    (outcome,) = services.ingest([tmp_path / "wombat facts.md"]).outcomes
    assert outcome.outcome is Outcome.MOVED
    (doc,) = services.list_documents()
    assert doc.title == "wombat facts"
    assert services.ctx.sparse.search("facts", 1)  # the title column is searchable


def test_vanished_file_is_removed_when_its_folder_is_ingested_again(
    services: Services, folder: Path
) -> None:
    services.ingest([folder])
    (folder / "report.pdf").unlink()
    assert outcomes(services.ingest([folder / "vault"])) == {"garden.md": "unchanged"}
    assert len(services.list_documents()) == 2  # a different folder: nothing removed
    report = services.ingest([folder])
    assert outcomes(report) == {"report.pdf": "removed", "garden.md": "unchanged"}
    assert services.ctx.sparse.search("giraffe", 3) == []
    assert services.check_consistency()["consistent"]


def test_duplicate_content_is_skipped(services: Services, folder: Path) -> None:
    shutil.copy(folder / "report.pdf", folder / "copy.pdf")
    report = services.ingest([folder])
    copy = next(o for o in report.outcomes if o.path.endswith("copy.pdf"))
    assert copy.outcome is Outcome.INDEXED  # sorted first, so it is the original here
    dup = next(o for o in report.outcomes if o.path.endswith("report.pdf"))
    assert dup.outcome is Outcome.SKIPPED and dup.code is Reason.DUPLICATE
    assert dup.reason == f"duplicate of {folder / 'copy.pdf'}"


def test_remove_by_path_folder_and_id(services: Services, folder: Path) -> None:
    services.ingest([folder])
    pdf = next(d for d in services.list_documents() if d.kind.value == "pdf")
    removed = services.remove([folder / "report.pdf"])
    assert [(o.outcome, o.doc_id) for o in removed] == [(Outcome.REMOVED, pdf.doc_id)]
    assert services.ctx.sparse.search("giraffe", 3) == []
    assert services.ctx.vectors.count() == len(services.ctx.catalog.chunk_ids([DocStatus.INDEXED]))
    (nothing,) = services.remove([folder / "nothing.pdf"])
    assert (nothing.outcome, nothing.code) == (Outcome.SKIPPED, Reason.NOT_IN_LIBRARY)
    assert services.remove([folder])[0].outcome is Outcome.REMOVED
    assert services.list_documents() == []
    with pytest.raises(NotFoundError):
        services.get_document(pdf.doc_id)


def test_bad_inputs_each_get_an_outcome_and_good_files_are_indexed(
    services: Services, folder: Path
) -> None:
    make_encrypted_pdf(folder / "locked.pdf")
    make_scanned_pdf(folder / "scan.pdf")
    (folder / "random.pdf").write_bytes(os.urandom(4000))
    (folder / "empty.md").write_bytes(b"")
    (folder / "latin.txt").write_bytes("Caf\xe9 cr\xe8me".encode("latin-1"))
    (folder / "image.png").write_bytes(b"\x89PNG....")
    secret = write_note(folder / "secret.md", "no permission")
    secret.chmod(0)
    report = services.ingest([folder, folder / "missing.pdf"])
    by_name = {Path(o.path).name: o for o in report.outcomes}
    ocr_on = ocr_config(services.ctx.settings.ingest) is not None  # a drawing is no scan then
    expect = {
        "locked.pdf": (Outcome.FAILED, Reason.ENCRYPTED),
        "scan.pdf": (Outcome.FAILED, Reason.NO_TEXT if ocr_on else Reason.SCANNED),
        "random.pdf": (Outcome.FAILED, Reason.CORRUPT),
        "empty.md": (Outcome.SKIPPED, Reason.EMPTY),
        "latin.txt": (Outcome.INDEXED, Reason.DECODED),
        "image.png": (Outcome.SKIPPED, Reason.UNSUPPORTED),
        "missing.pdf": (Outcome.FAILED, Reason.NOT_FOUND),
        "report.pdf": (Outcome.INDEXED, Reason.NONE),
        "garden.md": (Outcome.INDEXED, Reason.NONE),
    }
    if os.geteuid() != 0:  # root reads anything
        expect["secret.md"] = (Outcome.FAILED, Reason.UNREADABLE)
    for name, (outcome, code) in expect.items():
        assert (by_name[name].outcome, by_name[name].code) == (outcome, code), by_name[name]
    assert report.failed and services.ctx.sparse.search("giraffe", 1)
    failed = {Path(d.path).name: d.error for d in services.list_documents() if d.error}
    assert "password-protected" in (failed["locked.pdf"] or "")


@needs_tessdata
def test_a_scan_is_indexed_by_ocr_once_ocr_is_on(services: Services, tmp_path: Path) -> None:
    scan = make_image_scan_pdf(tmp_path / "scan.pdf", ["The giraffe enclosure opens at nine."])
    services.ctx.update_settings({"ingest.ocr": "off"})
    (off,) = services.ingest([scan]).outcomes
    assert (off.outcome, off.code) == (Outcome.FAILED, Reason.SCANNED)
    services.ctx.update_settings({"ingest.ocr": "auto"})
    (on,) = services.ingest([scan]).outcomes
    assert (on.outcome, on.code) == (Outcome.INDEXED, Reason.OCR)
    (cid, _), *_ = services.ctx.sparse.search("giraffe enclosure", 1)
    chunk = services.get_chunks([cid])[cid]
    assert chunk.pages == (1,) and chunk.bboxes and "giraffe" in chunk.text


def test_a_2000_page_pdf_is_read_page_by_page(services: Services, tmp_path: Path) -> None:
    import pymupdf

    doc = pymupdf.open()
    for number in range(1, 2001):
        doc.new_page().insert_text((72, 72), f"Page {number} talks about topic {number}.")
    doc.save(tmp_path / "big.pdf")
    doc.close()
    (outcome,) = services.ingest([tmp_path / "big.pdf"]).outcomes
    assert (outcome.outcome, outcome.pages) == (Outcome.INDEXED, 2000)
    chunks = services.document_chunks(outcome.doc_id or "")
    assert all(len(c.pages) <= 2 for c in chunks)
    assert {p for c in chunks for p in c.pages} == set(range(1, 2001))


def test_symlink_loops_are_followed_once(services: Services, folder: Path) -> None:
    (folder / "vault" / "loop").symlink_to(folder, target_is_directory=True)
    report = services.ingest([folder])
    assert len(report.outcomes) == 2
    assert outcomes(report) == {"report.pdf": "indexed", "garden.md": "indexed"}


def test_repair_finishes_interrupted_work_and_fixes_the_vector_store(
    services: Services, folder: Path
) -> None:
    import numpy as np

    from desktop_rag.domain import DocKind, Document

    services.ingest([folder])
    ctx = services.ctx
    pdf = next(d for d in services.list_documents() if d.kind is DocKind.PDF)
    ids = ctx.catalog.chunk_ids_of(pdf.doc_id)
    ctx.vectors.delete(ids[:2])  # lost vectors
    ctx.vectors.upsert(["ghost:00000"], np.ones((1, 64), np.float32), ["ghost"])  # orphan
    chunk = services.document_chunks(pdf.doc_id)[0]
    interrupted = Document("abcdabcdabcdabcd", "/gone.md", "gone", DocKind.MARKDOWN, "ab" * 32,
                           1, 1.0, 0, 1, DocStatus.PENDING)
    moved = [type(chunk)(f"{interrupted.doc_id}:00000", interrupted.doc_id, "/gone.md", "gone",
                         DocKind.MARKDOWN, "interrupted platypus text", 0, (), (0, 5))]
    ctx.catalog.add_pending(interrupted, moved)
    before = services.check_consistency()
    assert not before["consistent"]
    assert (before["missing_vectors"], before["orphan_vectors"]) == (2, 1)
    assert before["documents"]["pending"] == 1
    after = services.check_consistency(repair=True)
    assert after["consistent"], after
    assert after["repaired"] == {"removals_finished": 0, "ingestions_finished": 1,
                                 "orphan_vectors_deleted": 1, "vectors_reembedded": 2}
    assert ctx.sparse.search("platypus", 1)


def test_progress_reports_files_pages_and_chunks(services: Services, folder: Path) -> None:
    events: list[ProgressEvent] = []
    services.ingest([folder], progress=events.append)
    last = [e for e in events if e.stage == "file-done"][-1]
    assert (last.files_done, last.files_total, last.pages_done) == (2, 2, 3)
    assert last.chunks_done == sum(d.chunks for d in services.list_documents())


def test_cancel_stops_and_leaves_a_consistent_library(services: Services, folder: Path) -> None:
    for i in range(5):
        make_pdf(folder / f"extra{i}.pdf", pages=2, known_page=1, filler_repeats=3 + i)
    token = CancelToken()

    def cancel_after_first(event: ProgressEvent) -> None:
        if event.stage == "file-done":
            token.cancel()

    report = services.ingest([folder], progress=cancel_after_first, cancel=token)
    indexed = report.count(Outcome.INDEXED)
    assert indexed >= 1 and report.count(Outcome.CANCELLED) == 7 - indexed >= 3
    assert services.check_consistency()["consistent"]
    again = services.ingest([folder])
    assert again.count(Outcome.INDEXED) == 7 - indexed
    assert again.count(Outcome.UNCHANGED) == indexed


def test_a_second_writer_gets_library_in_use(services: Services, folder: Path) -> None:
    other = WriterLock(services.ctx.paths.lock_file)
    with other, pytest.raises(LibraryInUseError, match="in use"):
        services.ingest([folder])
    assert services.ingest([folder]).count(Outcome.INDEXED) == 2


def test_save_note_writes_and_indexes_it(services: Services) -> None:
    report = services.save_note("Meeting: Q3 plans", "We agreed to ship the quokka feature.")
    (outcome,) = report.outcomes
    assert outcome.outcome is Outcome.INDEXED
    assert Path(outcome.path).name == "meeting-q3-plans.md"
    assert services.ctx.sparse.search("quokka", 1)
    second = services.save_note("Meeting: Q3 plans", "Another note.")
    assert Path(second.outcomes[0].path).name == "meeting-q3-plans-2.md"
