"""The Word, PowerPoint, Excel and e-mail loaders through the real libraries, on files built
here: what each segment says, where it is (slide, sheet, message, section), and the file-level
behaviour a user sees (new types accepted, changed files read again)."""

from __future__ import annotations

import mailbox
import os
import time
import zipfile
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default
from pathlib import Path

import pytest

from desktop_rag.domain import DocKind, Outcome, Reason
from desktop_rag.ingest import office_xlsx
from desktop_rag.ingest.loaders import SUPPORTED, kind_of, load
from desktop_rag.ingest.segments import Segment
from tests.odf_docs import make_odp, make_ods, make_odt
from tests.office_docs import make_docx, make_eml, make_pptx, make_xlsx
from tests.office_hostile import rewrite
from tests.test_hardening_corpus import fake_model_services


def _segments(path: Path) -> list[Segment]:
    return list(load(path).segments)


def test_the_new_types_are_supported() -> None:
    for suffix in (".docx", ".docm", ".pptx", ".pptm", ".xlsx", ".xlsm", ".odt", ".odp", ".ods",
                   ".eml", ".mbox"):
        assert suffix in SUPPORTED and kind_of(Path("x" + suffix.upper())) is DocKind.OTHER


def test_word_keeps_headings_lists_tables_margins_and_comments(tmp_path: Path) -> None:
    segments = _segments(make_docx(tmp_path / "report.docx"))
    by_text = {s.text: s for s in segments}
    grew = next(s for s in segments if s.text.startswith("Revenue grew"))
    assert grew.heading_path == ("Revenue",) and grew.page is None
    assert "\u2022 Apricot jam" in by_text
    north = by_text["North — 2024: 1,200 | 2023: 1,050"]
    assert north.table is not None and north.table.title == "Table 1: Revenue by region"
    assert by_text["Header: Wombat Cooperative — confidential"].heading_path == ("Headers",)
    assert by_text["Comment: Check the Ballarat lease first."].heading_path == ("Comments",)
    assert load(tmp_path / "report.docx").title == "Quarterly Report of the Wombat Cooperative"


def test_word_content_controls_and_text_boxes_are_read(tmp_path: Path) -> None:
    import docx
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls

    document = docx.Document()
    document.add_paragraph("Body text before the box.")
    w = nsdecls("w")
    document.element.body.insert(0, parse_xml(
        f"<w:sdt {w}><w:sdtPr/><w:sdtContent><w:p><w:r><w:t>Cover page of the wattlebird "
        "survey</w:t></w:r></w:p></w:sdtContent></w:sdt>"))
    box = parse_xml(
        f'<w:r {w} xmlns:v="urn:schemas-microsoft-com:vml"><w:pict><v:shape><v:textbox>'
        "<w:txbxContent><w:p><w:r><w:t>Boxed note: lyrebirds mimic chainsaws.</w:t></w:r>"
        "</w:p></w:txbxContent></v:textbox></v:shape></w:pict></w:r>")
    document.paragraphs[-1]._p.append(box)
    document.save(str(tmp_path / "boxed.docx"))
    texts = [s.text for s in _segments(tmp_path / "boxed.docx")]
    assert texts == ["Cover page of the wattlebird survey", "Body text before the box.",
                     "Boxed note: lyrebirds mimic chainsaws."]


def test_a_slide_is_a_page_with_its_title_table_and_notes(tmp_path: Path) -> None:
    loaded = load(make_pptx(tmp_path / "deck.pptx", slides=5))
    segments = list(loaded.segments)
    assert loaded.pages == 5 and {s.page for s in segments} == {1, 2, 3, 4, 5}
    slide2 = [s for s in segments if s.page == 2]
    assert slide2[0].is_heading and slide2[0].text == "Launch plan"
    assert all(s.heading_path == ("Slide 2: Launch plan",) for s in slide2)
    assert slide2[-1].text == "Speaker notes: Mention the delayed sonar module."
    rows = [s.text for s in segments if s.table is not None]
    assert rows == ["Sonar — Budget: 52,000", "Design — Budget: 18,500"]


def test_a_chart_is_read_as_its_data(tmp_path: Path) -> None:
    segments = _segments(make_pptx(tmp_path / "deck.pptx", chart=True))
    charted = [s for s in segments if s.page == 4 and s.table is not None]
    assert [s.text for s in charted] == ["Platypus — 2023: 14 | 2024: 23",
                                         "Echidna — 2023: 5 | 2024: 9.5"]
    assert charted[0].table is not None and charted[0].table.title == "Sightings (chart)"


def test_a_sheet_is_a_captioned_table_of_labelled_rows(tmp_path: Path) -> None:
    loaded = load(make_xlsx(tmp_path / "budget.xlsx"))
    segments = list(loaded.segments)
    assert loaded.pages == 2
    first = segments[0]
    assert first.table is not None and first.table.title == "Sheet Budget: Household budget 2025"
    assert first.text == "A3:D3 — Item: Rent | Category: housing | Month: January | Amount: 1200"
    assert segments[1].text.endswith("Amount: 310.5")
    contact = next(s for s in segments if s.page == 2)
    assert contact.text == "A2:C2 — Name: Anna Berg | Role: landlord | Since: 2019-05-01"
    assert contact.heading_path == ("Sheet Contacts",)


def test_a_formula_reads_as_its_saved_value_and_numbers_are_no_header(tmp_path: Path) -> None:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append([2023, 10])
    sheet.append([2024, 32])
    sheet["B3"] = "=SUM(B1:B2)"
    path = tmp_path / "sums.xlsx"
    book.save(str(path))
    with zipfile.ZipFile(path) as z:
        xml = z.read("xl/worksheets/sheet1.xml")
    saved = xml.replace(b"<f>SUM(B1:B2)</f><v></v>", b"<f>SUM(B1:B2)</f><v>42</v>")
    rewrite(path, path, {"xl/worksheets/sheet1.xml": saved})
    texts = [s.text for s in _segments(path)]
    assert texts == ["A1:B1 — A: 2023 | B: 10", "A2:B2 — A: 2024 | B: 32", "A3:B3 — B: 42"]


def test_a_workbook_past_the_cell_budget_is_cut_with_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(office_xlsx, "MAX_CELLS", 40)
    loaded = load(make_xlsx(tmp_path / "big.xlsx", extra_rows=100))
    rows = list(loaded.segments)
    assert 8 <= len(rows) <= 12
    assert loaded.note is not None and "only the first 40 cells" in loaded.note
    assert loaded.note_code is Reason.TOO_LARGE


def test_an_html_mail_is_text_without_its_script(tmp_path: Path) -> None:
    path = make_eml(tmp_path / "party.eml", "Anna Berg <anna@example.org>", "Garden party",
                    "Bring the <b>lemon</b> tart.", html=True)
    texts = [s.text for s in _segments(path)]
    assert texts[0] == "E-mail 'Garden party' from Anna Berg, 2025-03-03"
    assert texts[1].startswith("From: Anna Berg <anna@example.org> | To: Bob Smith")
    assert "Bring the lemon tart." in texts and not any("alert" in t for t in texts)


def test_a_forwarded_message_and_a_sheet_attachment_become_pages(tmp_path: Path) -> None:
    inner = make_eml(tmp_path / "inner.eml", "Ravi <ravi@example.org>", "Tap quote",
                     "The new tap costs 95 dollars.")
    sheet = make_xlsx(tmp_path / "costs.xlsx")
    outer = EmailMessage()
    outer["From"], outer["To"], outer["Subject"] = "bob@example.org", "amy@example.org", "Fwd"
    outer.set_content("See the forwarded quote and the sheet.")
    outer.add_attachment(message_from_bytes(inner.read_bytes(), policy=default))
    outer.add_attachment(sheet.read_bytes(), maintype="application", subtype="octet-stream",
                         filename="costs.xlsx")
    path = tmp_path / "fwd.eml"
    path.write_bytes(bytes(outer))
    loaded = load(path)
    segments = list(loaded.segments)
    assert loaded.pages == 4 and loaded.note is None  # the message, the forwarded one, 2 sheets
    tap = next(s for s in segments if "95 dollars" in s.text)
    assert tap.page == 2 and tap.heading_path[0] == "Attachment forwarded.eml"
    rent = next(s for s in segments if "Item: Rent" in s.text)
    assert rent.page == 3 and rent.heading_path == ("Attachment costs.xlsx", "Sheet Budget")


def test_a_mailbox_is_one_page_per_message(tmp_path: Path) -> None:
    box = mailbox.mbox(str(tmp_path / "inbox.mbox"))
    for n in range(3):
        message = EmailMessage()
        message["From"], message["Subject"] = f"sender{n}@example.org", f"Note {n}"
        message.set_content(f"Body number {n}.")
        box.add(message)
    box.close()
    loaded = load(tmp_path / "inbox.mbox")
    segments = list(loaded.segments)
    assert loaded.pages == 3
    assert [s.text for s in segments if s.is_heading] == [
        "E-mail 'Note 0' from sender0@example.org", "E-mail 'Note 1' from sender1@example.org",
        "E-mail 'Note 2' from sender2@example.org"]
    assert [s.page for s in segments if s.text.startswith("Body")] == [1, 2, 3]


def test_a_macro_enabled_word_file_is_read_and_its_macro_left_alone(tmp_path: Path) -> None:
    path = make_docx(tmp_path / "m.docx")
    with zipfile.ZipFile(path) as z:
        types = z.read("[Content_Types].xml").replace(
            b"wordprocessingml.document.main+xml", b"XXX")
    types = types.replace(b"application/vnd.openxmlformats-officedocument.XXX",
                          b"application/vnd.ms-word.document.macroEnabled.main+xml")
    rewrite(path, tmp_path / "m.docm", {"[Content_Types].xml": types},
            {"word/vbaProject.bin": b"\x00macro"})
    assert any("marmalade" in s.text for s in _segments(tmp_path / "m.docm"))
    import docx

    with pytest.raises(ValueError, match="not a Word file"):  # python-docx alone refuses it
        docx.Document(str(tmp_path / "m.docm"))


def test_a_changed_sheet_is_read_again_and_an_unchanged_one_not(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    make_xlsx(folder / "budget.xlsx")
    make_pptx(folder / "deck.pptx")
    services = fake_model_services(tmp_path / "lib")
    try:
        first = services.ingest([folder])
        assert first.count(Outcome.INDEXED) == 2
        make_xlsx(folder / "budget.xlsx", extra_rows=3, marker="Zelda Quist")
        second = services.ingest([folder])
        outcomes = {Path(o.path).name: o.outcome for o in second.outcomes}
        assert outcomes == {"budget.xlsx": Outcome.UPDATED, "deck.pptx": Outcome.UNCHANGED}
        assert services.ctx.sparse.search("Zelda Quist", 3)
    finally:
        services.close()


def test_a_followed_folder_syncs_new_changed_and_removed_office_files(tmp_path: Path) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    make_docx(folder / "report.docx")
    services = fake_model_services(tmp_path / "lib")
    try:
        assert services.ingest([folder]).count(Outcome.INDEXED) == 1
        make_pptx(folder / "deck.pptx")
        make_eml(folder / "note.eml", "Anna <anna@example.org>", "Quokka count",
                 "We counted nine quokkas.")
        (folder / "report.docx").unlink()
        for new in (folder / "deck.pptx", folder / "note.eml"):  # copied a while ago
            os.utime(new, (time.time() - 60, time.time() - 60))
        report = services.sync()
        outcomes = {Path(o.path).name: o.outcome for o in report.outcomes}
        assert outcomes == {"deck.pptx": Outcome.INDEXED, "note.eml": Outcome.INDEXED,
                            "report.docx": Outcome.REMOVED}
        assert services.ctx.sparse.search("quokkas", 3)
        removed = services.remove([folder / "note.eml"])
        assert [o.outcome for o in removed] == [Outcome.REMOVED]
        assert not services.ctx.sparse.search("quokkas", 3)
    finally:
        services.close()


def test_opendocument_text_slides_and_sheets(tmp_path: Path) -> None:
    text = list(load(make_odt(tmp_path / "orchard.odt")).segments)
    assert [s.text for s in text] == [
        "Harvest", "The quince harvest doubled after the wet spring.", "\u2022 Quince paste",
        "Quince — 2024: 310 | 2023: 150", "Footnote: Counted in crates."]
    assert text[1].heading_path == ("Harvest",) and text[3].table is not None
    assert load(tmp_path / "orchard.odt").title == "Orchard report"
    deck = load(make_odp(tmp_path / "tour.odp"))
    slides = list(deck.segments)
    assert deck.pages == 2 and [(s.page, s.text) for s in slides] == [
        (1, "Wombat tour"), (2, "Route"), (2, "The tour starts at the Ballarat gate."),
        (2, "Speaker notes: Bring the torches.")]
    assert slides[2].heading_path == ("Slide 2: Route",)
    rows = [s.text for s in load(make_ods(tmp_path / "stock.ods")).segments]  # and a tail of
    assert rows == ["A3:B3 — Item: Apricot jam | Jars: 12",  # a million empty rows, not read
                    "A4:B4 — Item: Quince jelly | Jars: 7"]
