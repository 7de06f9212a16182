"""Hostile Word, PowerPoint, Excel and e-mail files in one drop with good ones: each gets its
outcome and reason naming it, the good files (and the readable parts of the bad ones) are all
indexed and searchable, nothing linked is fetched, and the library stays consistent."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from desktop_rag.domain import IngestReport, Outcome
from desktop_rag.services import Services
from desktop_rag.services.doctor import consistency_check
from tests.hardening_corpus import Expect
from tests.office_hostile import GOOD_WORDS, build_office_corpus
from tests.test_hardening_corpus import fake_model_services


class _Counter(BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        _Counter.hits.append(self.path)
        self.send_response(404)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, list[str]]]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Counter)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", _Counter.hits
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def corpus(
    tmp_path_factory: pytest.TempPathFactory, server: tuple[str, list[str]]
) -> tuple[Path, dict[str, Expect]]:
    folder = tmp_path_factory.mktemp("office-hostile") / "drop"
    return folder, build_office_corpus(folder, server[0])


@pytest.fixture(scope="module")
def ingested(
    corpus: tuple[Path, dict[str, Expect]], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Services, IngestReport]]:
    services = fake_model_services(tmp_path_factory.mktemp("lib"))
    yield services, services.ingest([corpus[0]])
    services.close()


def test_the_corpus_has_at_least_fifteen_hostile_files(
    corpus: tuple[Path, dict[str, Expect]]
) -> None:
    hostile = [n for n in corpus[1] if not n.startswith("good.")]
    assert len(hostile) >= 15, hostile


def test_every_file_gets_its_outcome_and_a_reason(
    corpus: tuple[Path, dict[str, Expect]], ingested: tuple[Services, IngestReport]
) -> None:
    got = {os.path.basename(o.path): o for o in ingested[1].outcomes}
    assert set(got) == set(corpus[1])
    for name, want in corpus[1].items():
        outcome = got[name]
        assert outcome.outcome in want.outcomes, (name, outcome)
        assert want.code is None or outcome.code is want.code, (name, outcome)
        if outcome.outcome is not Outcome.INDEXED:
            assert outcome.reason and len(outcome.reason) > 10, (name, outcome)


def test_a_refused_attachment_is_named_in_its_message_note(
    ingested: tuple[Services, IngestReport]
) -> None:
    (bombed,) = [o for o in ingested[1].outcomes if o.path.endswith("bomb-attached.eml")]
    assert bombed.reason is not None
    assert "attachment 'report.docx' not read" in bombed.reason and "zip bomb" in bombed.reason


def test_the_good_parts_are_searchable(ingested: tuple[Services, IngestReport]) -> None:
    services, _ = ingested
    for word, name in GOOD_WORDS.items():
        hits = services.ctx.sparse.search(word, 3)
        paths = {services.ctx.catalog.get_chunks([h[0]])[h[0]].path for h in hits}
        assert any(p.endswith(name) for p in paths), (word, paths)


def test_nothing_linked_was_fetched(
    ingested: tuple[Services, IngestReport], server: tuple[str, list[str]]
) -> None:
    assert server[1] == []


def test_the_library_is_consistent_and_a_second_drop_reads_nothing(
    corpus: tuple[Path, dict[str, Expect]], ingested: tuple[Services, IngestReport]
) -> None:
    services, first = ingested
    check = consistency_check(services)
    assert check.ok, check.detail
    second = services.ingest([corpus[0]])
    assert second.embedded_chunks == 0
    assert second.count(Outcome.INDEXED) == 0
    assert second.count(Outcome.FAILED) == first.count(Outcome.FAILED)
