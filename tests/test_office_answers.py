"""Questions over a mixed work folder (a Word report, a slide deck, a budget workbook, e-mails
with an attachment, a note) through the real parts: the files built with python-docx,
python-pptx, openpyxl and the email package, ingested into a library on disk (catalog, FTS5,
Chroma, the packaged MiniLM embedder), asked through `Services.ask`. The chat model is a
scripted one that quotes the sentence of the sources holding the question's key word and cites
that source, so what is tested is the app's part: which passage retrieval found, what the
citation names, and the exact counts of the exhaustive route (a judge that says yes)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from desktop_rag.cli import main
from desktop_rag.config import Settings
from desktop_rag.domain import Answer, DocScope, RouteName
from desktop_rag.domain.fakes import FakeChatEngine
from desktop_rag.domain.protocols import ChatMessage, TokenCallback
from desktop_rag.ingest.office import EVERYDAY_SUFFIXES
from desktop_rag.services import Services
from desktop_rag.text.places import TEXTUAL
from tests.office_docs import make_mixed_folder

pytestmark = pytest.mark.slow
_SOURCE = re.compile(r'<source id="(\d+)"[^>]*>\n(.*?)\n</source>', re.DOTALL)
_JUDGED = re.compile(r"^(\d+): ", re.MULTILINE)


class QuotesTheSource(FakeChatEngine):
    """Answers with the first source line holding `key`, cited; judges every line yes."""

    key = ""

    def generate(self, messages: Sequence[ChatMessage], max_tokens: int,
                 on_token: TokenCallback | None = None, cancel: Any = None) -> Any:  # fmt: skip
        prompt = messages[-1].content
        if "<source" not in prompt and _JUDGED.search(prompt):
            self.reply = "\n".join(f"{n}: yes" for n in _JUDGED.findall(prompt))
            return super().generate(messages, max_tokens, on_token, cancel)
        self.reply = "I don't know."
        for n, text in _SOURCE.findall("\n".join(m.content for m in messages)):
            line = next((x for x in text.splitlines() if self.key.lower() in x.lower()), None)
            if line is not None:
                self.reply = f"{line.strip()} [{n}]"
                break
        return super().generate(messages, max_tokens, on_token, cancel)


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Services, Path]]:
    from desktop_rag.bootstrap import build_context

    root = tmp_path_factory.mktemp("mixed")
    folder = make_mixed_folder(root / "work")
    ctx = build_context(str(root / "lib"), settings=Settings(profile="tiny"),
                        overrides={"engine": QuotesTheSource()})  # fmt: skip
    services = Services(ctx)
    report = services.ingest([folder])
    assert not report.failed and len(report.outcomes) == 7, report.outcomes
    yield services, folder
    services.close()


def _ask(library: tuple[Services, Path], question: str, key: str, **kwargs: Any) -> Answer:
    services = library[0]
    engine = services.ctx.engine
    assert isinstance(engine, QuotesTheSource)
    engine.key = key
    return services.ask(question, **kwargs)


def _cited(answer: Answer) -> Any:
    assert answer.citations, answer.answer
    return answer.citations[0]


def test_a_slide_is_cited_by_its_number_and_title(library: tuple[Services, Path]) -> None:
    answer = _ask(library, "When does the platypus app launch?", "launches")
    cited = _cited(answer)
    assert cited.chunk.path.endswith("platypus.pptx")
    assert cited.chunk.pages == (2,) and cited.chunk.heading_path == ("Slide 2: Launch plan",)
    assert "14 October 2025" in answer.answer
    assert cited.evidence and "14 October 2025" in cited.evidence[0].text


def test_a_sheet_row_is_cited_with_its_sheet_and_cells(library: tuple[Services, Path]) -> None:
    answer = _ask(library, "How much was the rent in March in the household budget?",
                  "March | Amount: 1250")
    cited = _cited(answer)
    assert cited.chunk.path.endswith("budget.xlsx") and cited.chunk.pages == (1,)
    assert cited.chunk.text.startswith("Sheet Budget: Household budget 2025")
    assert "A8:D8 — Item: Rent | Category: housing | Month: March | Amount: 1250" in answer.answer


def test_a_message_is_cited_with_its_sender(library: tuple[Services, Path]) -> None:
    answer = _ask(library, "When does the lease renewal start?", "renewal starts")
    cited = _cited(answer)
    assert cited.chunk.path.endswith("lease.eml") and cited.chunk.pages == (1,)
    assert cited.chunk.heading_path == ("E-mail 'Lease renewal' from Anna Berg, 2025-03-03",)
    assert "From: Anna Berg <anna@example.org>" in cited.chunk.text


def test_a_word_section_is_cited_by_its_heading(library: tuple[Services, Path]) -> None:
    answer = _ask(library, "Why did revenue grow in the third quarter?", "marmalade line")
    cited = _cited(answer)
    assert cited.chunk.path.endswith("report.docx") and cited.chunk.heading_path == ("Revenue",)


def test_an_attachment_is_cited_as_part_of_its_message(library: tuple[Services, Path]) -> None:
    services, _ = library
    lease = next(d for d in services.list_documents() if d.path.endswith("lease.eml"))
    answer = _ask(library, "Where will the cooperative open a shop?", "Ballarat",
                  scope=DocScope(only=frozenset({lease.doc_id})))
    cited = _cited(answer)
    assert cited.chunk.doc_id == lease.doc_id and cited.chunk.pages == (2,)
    assert cited.chunk.heading_path[0] == "Attachment lease-terms.docx"


def test_counts_over_a_sheet_are_exact_with_every_row_cited(
    library: tuple[Services, Path]
) -> None:
    services, _ = library
    budget = next(d for d in services.list_documents() if d.path.endswith("budget.xlsx"))
    answer = _ask(library, "List every item in the food category.", "",
                  scope=DocScope(only=frozenset({budget.doc_id})))
    assert answer.route.handled_by is RouteName.EXHAUSTIVE and answer.route.count == 3
    assert [i.text.split(" — ")[0] for i in answer.items] == ["A4:D4", "A7:D7", "A10:D10"]
    assert all(i.page == 1 for i in answer.items)


def test_counts_over_e_mails_count_each_message_once(library: tuple[Services, Path]) -> None:
    every = _ask(library, "List every e-mail from Anna Berg.", "")
    assert every.route.handled_by is RouteName.EXHAUSTIVE and every.route.count == 2
    about = _ask(library, "List every e-mail from Anna Berg about the lease.", "")
    assert about.route.count == 1 and "Lease renewal" in about.items[0].text


def test_ask_json_names_the_cited_sheet_and_cells(
    library: tuple[Services, Path], capsys: Any
) -> None:
    _, folder = library
    code = main(["--data-dir", str(folder.parent / "lib"), "--profile", "tiny", "ask",
                 "List every item in the food category.",
                 "--doc", str(folder / "budget.xlsx"), "--route", "exhaustive", "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err[-2000:]
    out = json.loads(captured.out)
    assert out["count"] == 3
    assert [c["place"] for c in out["citations"]] == ["sheet Budget, cells A4:D4"]  # one chunk
    assert [i["text"].split(" — ")[0] for i in out["items"]] == ["A4:D4", "A7:D7", "A10:D10"]


def test_places_know_every_type_the_loaders_read_without_pages() -> None:
    assert TEXTUAL == EVERYDAY_SUFFIXES


def test_removing_a_message_removes_its_attachment(library: tuple[Services, Path]) -> None:
    services, folder = library
    (folder / "lease.eml").unlink()
    report = services.ingest([folder])
    assert [Path(o.path).name for o in report.outcomes if o.outcome.value == "removed"] == [
        "lease.eml"]
    chunks = [c for d in services.list_documents() for c in services.document_chunks(d.doc_id)]
    assert chunks and not [c for c in chunks if c.heading_path[:1] == ("Attachment "
                                                                        "lease-terms.docx",)]
    assert not services.ctx.sparse.search("renewal", 3)


def test_the_cli_ingests_the_new_types(tmp_path: Path, capsys: Any) -> None:
    folder = make_mixed_folder(tmp_path / "work")
    (folder / "photo.heic").write_bytes(b"\x00\x00\x00\x18ftypheic")
    code = main(["--data-dir", str(tmp_path / "lib"), "--profile", "tiny", "ingest",
                 str(folder), "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err[-2000:]
    outcomes = {Path(o["path"]).name: o for o in json.loads(captured.out)["outcomes"]}
    assert {n for n, o in outcomes.items() if o["outcome"] == "indexed"} == {
        "report.docx", "platypus.pptx", "budget.xlsx", "lease.eml", "garden.eml",
        "invoice.eml", "note.md"}
    assert outcomes["photo.heic"]["outcome"] == "skipped"
    assert outcomes["photo.heic"]["reason"] == "unsupported file type '.heic'"
