"""Followed folders and sync: the library keeps up with the folders the user added, over fakes
(hash embedder, in-memory vectors) and the real catalog; one run through the CLI and real
Chroma is in test_library_real.py."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from desktop_rag.domain import FollowedFolder, Outcome, Reason
from desktop_rag.domain.progress import CancelToken, ProgressEvent
from desktop_rag.services import Services
from desktop_rag.services import library as library_module
from desktop_rag.services.library import FOLDER_EMPTY, FOLDER_MISSING
from desktop_rag.store.followed import is_within
from tests.ingest_docs import NOTE, make_pdf, write_note


@pytest.fixture(autouse=True)
def no_settling(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written by a test are synced at once (the wait for fresh files is tested alone)."""
    monkeypatch.setattr(library_module, "SYNC_SETTLE_S", 0.0)


@pytest.fixture
def services(fake_context: object) -> Services:
    return Services(fake_context)  # type: ignore[arg-type]


@pytest.fixture
def papers(tmp_path: Path) -> Path:
    docs = tmp_path / "papers"
    docs.mkdir()
    make_pdf(docs / "report.pdf", pages=2, known_page=1)
    write_note(docs / "notes" / "garden.md", NOTE)
    return docs


def by_name(report: object) -> dict[str, tuple[str, Reason]]:
    return {Path(o.path).name: (o.outcome.value, o.code)  # type: ignore[attr-defined]
            for o in report.outcomes}  # type: ignore[attr-defined]


def names(services: Services) -> set[str]:
    return {Path(d.path).name for d in services.list_documents()}


def test_is_within_compares_whole_path_parts() -> None:
    assert is_within("/a/b/c.pdf", "/a/b") and is_within("/a/b", "/a/b/")
    assert not is_within("/a/bc.pdf", "/a/b") and not is_within("/a", "/a/b")


def test_an_ingested_folder_is_followed_and_a_sync_picks_up_new_changed_and_gone_files(
    services: Services, papers: Path
) -> None:
    services.ingest([papers])
    assert services.followed_folders() == [FollowedFolder(str(papers), True, 2)]
    write_note(papers / "new.md", "# New\n\nThe heron nests in the reeds by the lake.")
    write_note(papers / "notes" / "garden.md", "# Garden\n\nNow it is about tomatoes only.")
    (papers / "report.pdf").unlink()
    report = services.sync()
    assert by_name(report) == {
        "new.md": ("indexed", Reason.NONE), "garden.md": ("updated", Reason.NONE),
        "report.pdf": ("removed", Reason.FILE_GONE),
    }
    assert names(services) == {"new.md", "garden.md"}
    assert [h.chunk.path for h in services.search("heron nests", k=1).results] == [
        str(papers / "new.md")
    ]
    assert {o.outcome for o in services.sync().outcomes} == {Outcome.UNCHANGED}


def test_a_subfolder_of_a_followed_folder_adds_nothing_and_a_parent_folds_it_in(
    services: Services, papers: Path
) -> None:
    services.ingest([papers / "notes"])
    services.ingest([papers / "notes"])
    assert [f.path for f in services.followed_folders()] == [str(papers / "notes")]
    services.ingest([papers])
    services.ingest([papers / "notes"])
    assert [f.path for f in services.followed_folders()] == [str(papers)]


def test_a_file_removed_from_a_followed_folder_stays_out_until_added_again(
    services: Services, papers: Path
) -> None:
    services.ingest([papers])
    services.remove([papers / "report.pdf"])
    report = services.sync()
    assert by_name(report)["report.pdf"] == ("skipped", Reason.REMOVED_BY_USER)
    assert names(services) == {"garden.md"}
    assert by_name(services.ingest([papers]))["report.pdf"] == ("indexed", Reason.NONE)
    assert names(services) == {"garden.md", "report.pdf"}
    services.remove([papers / "report.pdf"])
    services.ingest([papers / "report.pdf"])  # the file itself, too
    assert by_name(services.sync())["report.pdf"][0] == "unchanged"


def test_removing_a_followed_folder_unfollows_it_and_forgets_its_removals(
    services: Services, papers: Path
) -> None:
    services.ingest([papers])
    services.remove([papers / "report.pdf"])
    outcomes = {(Path(o.path).name, o.outcome, o.code) for o in services.remove([papers])}
    assert ("papers", Outcome.REMOVED, Reason.UNFOLLOWED) in outcomes
    assert services.followed_folders() == [] and services.list_documents() == []
    assert services.ctx.catalog.followed().removed_files() == set()
    assert services.sync().outcomes == ()


def test_unfollowing_a_folder_keeps_its_documents_and_stops_its_sync(
    services: Services, papers: Path
) -> None:
    services.ingest([papers])
    outcomes = services.unfollow([papers, papers.parent / "never-followed"])
    assert [(Path(o.path).name, o.outcome, o.code) for o in outcomes] == [
        ("papers", Outcome.REMOVED, Reason.UNFOLLOWED),
        ("never-followed", Outcome.SKIPPED, Reason.NOT_FOLLOWED)]
    assert services.followed_folders() == []
    assert names(services) == {"report.pdf", "garden.md"}
    write_note(papers / "later.md", "# Later\n\nNot followed any more.")
    (papers / "report.pdf").unlink()
    report = by_name(services.sync())
    assert "later.md" not in report and report["report.pdf"] == ("skipped", Reason.FILE_MISSING)
    assert names(services) == {"report.pdf", "garden.md"}


def test_a_missing_followed_folder_keeps_its_documents(
    services: Services, papers: Path, tmp_path: Path
) -> None:
    services.ingest([papers])
    unmounted = tmp_path / "elsewhere"
    papers.rename(unmounted)  # as if its drive were not mounted
    report = services.sync()
    assert [(o.path, o.outcome, o.code, o.reason) for o in report.outcomes] == [
        (str(papers), Outcome.SKIPPED, Reason.FOLDER_MISSING, FOLDER_MISSING)
    ]
    assert names(services) == {"report.pdf", "garden.md"}
    assert services.followed_folders() == [FollowedFolder(str(papers), False, 2)]
    unmounted.rename(papers)
    assert {o.outcome for o in services.sync().outcomes} == {Outcome.UNCHANGED}


def test_an_emptied_followed_folder_keeps_its_documents(
    services: Services, papers: Path, tmp_path: Path
) -> None:
    """An unmounted drive leaves its mount point behind as an empty folder."""
    services.ingest([papers])
    aside = tmp_path / "aside"
    aside.mkdir()
    for entry in list(papers.iterdir()):
        entry.rename(aside / entry.name)
    report = services.sync()
    assert [(o.path, o.outcome, o.code, o.reason) for o in report.outcomes] == [
        (str(papers), Outcome.SKIPPED, Reason.FOLDER_EMPTY, FOLDER_EMPTY)
    ]
    assert names(services) == {"report.pdf", "garden.md"}
    for entry in list(aside.iterdir()):
        entry.rename(papers / entry.name)
    assert {o.outcome for o in services.sync().outcomes} == {Outcome.UNCHANGED}
    shutil.rmtree(papers / "notes")
    assert by_name(services.sync())["garden.md"][0] == "removed"  # not empty: a real deletion


def test_a_file_still_being_written_waits_for_the_next_sync(
    services: Services, papers: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(library_module, "SYNC_SETTLE_S", 2.0)
    services.ingest([papers])
    fresh = write_note(papers / "download.md", "# Download\n\nHalf of it so far")
    assert by_name(services.sync())["download.md"] == ("skipped", Reason.BEING_WRITTEN)
    assert "download.md" not in names(services)
    os.utime(fresh, (time.time() - 10, time.time() - 10))  # the copy has ended
    assert by_name(services.sync())["download.md"] == ("indexed", Reason.NONE)
    newer = write_note(papers / "typed.md", "# Typed\n\nSaved just now.")
    assert by_name(services.ingest([newer]))["typed.md"] == ("indexed", Reason.NONE)  # at once


def test_an_unreadable_followed_folder_keeps_its_documents(
    services: Services, papers: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(Root reads any folder, so the refusal is simulated.)"""
    services.ingest([papers])
    real_scandir = os.scandir

    def refusing(path: str) -> object:
        if str(path) == str(papers):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(library_module.os, "scandir", refusing)
    report = services.sync()
    assert [(o.outcome, o.reason) for o in report.outcomes] == [
        (Outcome.SKIPPED, "cannot read the folder: Permission denied; its documents are kept")
    ]
    assert names(services) == {"report.pdf", "garden.md"}


def test_a_sync_rechecks_files_added_one_by_one(
    services: Services, papers: Path, tmp_path: Path
) -> None:
    lone = tmp_path / "lone.md"
    gone = tmp_path / "gone.md"
    write_note(lone, "# Lone\n\nA note about kestrels.")
    write_note(gone, "# Gone\n\nA note about owls.")
    services.ingest([lone, gone])
    assert services.followed_folders() == []
    write_note(lone, "# Lone\n\nA note about kestrels and their hovering.")
    gone.unlink()
    report = services.sync()
    assert by_name(report) == {
        "lone.md": ("updated", Reason.NONE), "gone.md": ("skipped", Reason.FILE_MISSING)
    }
    assert names(services) == {"lone.md", "gone.md"}  # kept: the file may come back


def test_a_cancelled_ingestion_does_not_follow_the_folder(
    services: Services, papers: Path
) -> None:
    token = CancelToken()

    def cancel_at_first_file(event: ProgressEvent) -> None:
        if event.stage == "scan":
            token.cancel()

    services.ingest([papers], progress=cancel_at_first_file, cancel=token)
    assert services.followed_folders() == []


def test_a_sync_cancelled_while_walking_stops_the_walk_and_loses_nothing(
    services: Services, papers: Path
) -> None:
    from desktop_rag.ingest.scan import walk

    services.ingest([papers])
    for n in range(5):
        write_note(papers / f"more{n}" / "note.md", f"# More {n}\n\nText {n}.")
    calls = iter(range(100))
    assert len(walk(papers, lambda: next(calls) >= 2)) < len(walk(papers))
    token = CancelToken()

    def cancel_while_scanning(event: ProgressEvent) -> None:
        if event.stage == "scan":
            token.cancel()

    report = services.sync(progress=cancel_while_scanning, cancel=token)
    assert not any(o.outcome in (Outcome.INDEXED, Outcome.REMOVED) for o in report.outcomes)
    assert names(services) == {"report.pdf", "garden.md"}
    assert services.followed_folders() == [FollowedFolder(str(papers), True, 2)]


def test_a_sync_of_an_empty_library_does_nothing(services: Services) -> None:
    report = services.sync()
    assert report.outcomes == () and not report.failed


def test_following_survives_a_restart(fake_context: object, papers: Path) -> None:
    from desktop_rag.store.documents import Catalog

    Services(fake_context).ingest([papers])  # type: ignore[arg-type]
    db_path = Services(fake_context).ctx.catalog.db_path  # type: ignore[arg-type]
    reopened = Catalog(db_path)
    try:
        assert reopened.followed().folders() == [str(papers)]
    finally:
        reopened.close()
    shutil.rmtree(papers)


def test_folders_below_walks_shallowest_first_skipping_hidden_and_loops(tmp_path: Path) -> None:
    from desktop_rag.ingest.scan import folders_below

    for sub in ("a/a1", "a/a2", "b", ".git/objects", "node_modules/x"):
        (tmp_path / sub).mkdir(parents=True)
    (tmp_path / "a" / "a1" / "loop").symlink_to(tmp_path / "a")
    found = folders_below([str(tmp_path)], limit=100)
    assert found == [str(tmp_path), str(tmp_path / "a"), str(tmp_path / "b"),
                     str(tmp_path / "a" / "a1"), str(tmp_path / "a" / "a2")]
    assert folders_below([str(tmp_path)], limit=2) == found[:2]
    assert folders_below([str(tmp_path / "absent")], limit=5) == []


def test_folders_to_watch_are_the_present_followed_folders_and_below(
    services: Services, papers: Path, tmp_path: Path
) -> None:
    services.ingest([papers])
    assert services.folders_to_watch() == [str(papers), str(papers / "notes")]
    papers.rename(tmp_path / "away")
    assert services.folders_to_watch() == []
