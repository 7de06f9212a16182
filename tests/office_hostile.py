"""Hostile and malformed Word, PowerPoint, Excel and e-mail files, built here (nothing is
downloaded), each with the outcome and reason code it must get; plus good files of each type,
which must be indexed in the same drop.

`build_office_corpus(folder, link)` writes them; `link` is a URL (a local server the test runs)
that files link to, images and hyperlinks, and that must never be fetched.
"""

from __future__ import annotations

import io
import os
import random
import struct
import zipfile
from pathlib import Path

from desktop_rag.domain import Outcome, Reason
from tests.hardening_corpus import Expect, expect
from tests.odf_docs import make_odp, make_ods, make_odt, write_odf
from tests.office_docs import make_docx, make_eml, make_pptx, make_xlsx

FAILED, SKIPPED, INDEXED = Outcome.FAILED, Outcome.SKIPPED, Outcome.INDEXED
GOOD_WORDS = {  # a word only each good file holds -> the file
    "wombatcoop": "good.docx", "platypusdeck": "good.pptx", "echidnasheet": "good.xlsx",
    "quollmail": "good.eml", "bilbymacro": "macro.docm", "numbatmacro": "macro.xlsm",
    "dingolink": "external-links.docx", "cassowarylink": "external-links.xlsx",
    "galahwide": "huge-dimensions.xlsx", "kookaburra": "bomb-attached.eml",
    "bandicootmacro": "macro.pptm", "wallabylink": "external-links.pptx",
    "crates": "good.odt", "torches": "good.odp", "pantry": "good.ods",
    "emuwide": "repeated.ods",
}
WORD_MAIN = b"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
WORD_MACRO = b"application/vnd.ms-word.document.macroEnabled.main+xml"


def rewrite(source: Path, target: Path, changes: dict[str, bytes | None],
            extra: dict[str, bytes] | None = None) -> Path:
    """A copy of the zip `source` with members replaced (None: left out) and others added."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = changes.get(info.filename, src.read(info))
            if data is not None:
                dst.writestr(info.filename, data)
        for name, data in (extra or {}).items():
            dst.writestr(name, data)
    target.write_bytes(buffer.getvalue())
    return target


def _docx_with(folder: Path, name: str, word: str) -> Path:
    path = make_docx(folder / name)
    with zipfile.ZipFile(path) as z:
        xml = z.read("word/document.xml")
    return rewrite(path, path, {"word/document.xml": xml.replace(b"Ballarat", word.encode())})


def _bomb(path: Path) -> None:
    """A Word file whose body inflates a thousand times, to 64 MiB."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", b"<Types/>")
        z.writestr("word/document.xml", b"<w:document>" + b" " * (64 << 20))


def _lying_sizes(path: Path) -> None:
    """A workbook whose central directory declares a member of 4 GiB - 1 bytes."""
    data = bytearray(make_xlsx(path).read_bytes())
    at = data.find(b"PK\x01\x02")
    struct.pack_into("<I", data, at + 24, 0xFFFFFFFE)
    path.write_bytes(bytes(data))


def _deep_xml(source: Path, target: Path, member: str, depth: int = 5000) -> None:
    with zipfile.ZipFile(source) as z:
        xml = z.read(member)
    start = xml.index(b"?>") + 2 if xml.startswith(b"<?xml") else 0
    cut = xml.index(b">", xml.index(b"<", start)) + 1  # after the root's tag
    nested = b"<x>" * depth + b"</x>" * depth
    rewrite(source, target, {member: xml[:cut] + nested + xml[cut:]})


LAUGHS = b"".join([
    b'<?xml version="1.0"?><!DOCTYPE bomb [<!ENTITY e0 "lol">',
    *(b'<!ENTITY e%d "%s">' % (n, b"".join(b"&e%d;" % (n - 1) for _ in range(10)))
      for n in range(1, 10)),
    b"]>",
])


def _entity_bomb(source: Path, target: Path, member: str, word: bytes) -> None:
    """A part declaring nested entities that expand a billion times (the "billion laughs")."""
    with zipfile.ZipFile(source) as z:
        xml = z.read(member)
    body = xml[xml.index(b"?>") + 2 :] if xml.startswith(b"<?xml") else xml
    rewrite(source, target, {member: LAUGHS + body.replace(word, b"&e9;", 1)})


def _macro_docm(folder: Path) -> None:
    path = _docx_with(folder, "macro.docm", "bilbymacro")
    with zipfile.ZipFile(path) as z:
        types = z.read("[Content_Types].xml").replace(WORD_MAIN, WORD_MACRO)
    rewrite(path, path, {"[Content_Types].xml": types},
            {"word/vbaProject.bin": b"Attribute VB_Name = \"AutoOpen\"\nShell \"rm -rf ~\"\n"})


def _macro_xlsm(folder: Path) -> None:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["Animal", "Count"])
    sheet.append(["numbatmacro", 3])
    book.save(str(folder / "macro.xlsm.tmp"))
    rewrite(folder / "macro.xlsm.tmp", folder / "macro.xlsm", {},
            {"xl/vbaProject.bin": b"Sub Workbook_Open()\n Shell \"calc.exe\"\nEnd Sub\n"})
    (folder / "macro.xlsm.tmp").unlink()


def _external_links(folder: Path, link: str) -> None:
    import docx
    import openpyxl

    document = docx.Document()
    document.add_paragraph("The dingolink report links an image and a page it never fetches.")
    part = document.part
    rel = part.relate_to(f"{link}/image.png", docx.opc.constants.RELATIONSHIP_TYPE.IMAGE,
                         is_external=True)
    part.relate_to(f"{link}/page.html", docx.opc.constants.RELATIONSHIP_TYPE.HYPERLINK,
                   is_external=True)
    document.save(str(folder / "external-links.docx"))
    assert rel
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["Bird", "Where"])
    sheet.append(["cassowarylink", "see link"])
    sheet["B2"].hyperlink = f"{link}/birds.xlsx"
    book.save(str(folder / "external-links.xlsx"))
    _external_slide(folder, link)


def _external_slide(folder: Path, link: str) -> None:
    import pptx
    from pptx.opc.constants import RELATIONSHIP_TYPE

    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Links"
    run = slide.placeholders[1].text_frame.paragraphs[0].add_run()
    run.text = "The wallabylink slide links a picture and a page it never fetches."
    run.hyperlink.address = f"{link}/slide-page.html"
    slide.part.relate_to(f"{link}/picture.png", RELATIONSHIP_TYPE.IMAGE, is_external=True)
    deck.save(str(folder / "external-links.pptx"))


def _macro_pptm(folder: Path) -> None:
    make_pptx(folder / "macro.pptm.tmp")
    with zipfile.ZipFile(folder / "macro.pptm.tmp") as z:
        slide = z.read("ppt/slides/slide2.xml").replace(b"platypus", b"bandicootmacro")
        types = z.read("[Content_Types].xml").replace(
            b"presentationml.presentation.main+xml", b"XXX")
    types = types.replace(b"application/vnd.openxmlformats-officedocument.XXX",
                          b"application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml")
    rewrite(folder / "macro.pptm.tmp", folder / "macro.pptm",
            {"[Content_Types].xml": types, "ppt/slides/slide2.xml": slide},
            {"ppt/vbaProject.bin": b"Sub Auto_Open()\n Shell \"calc.exe\"\nEnd Sub\n"})
    (folder / "macro.pptm.tmp").unlink()


def _huge_dimensions(folder: Path) -> None:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["Bird", "Count"])
    sheet.append(["galahwide", 7])
    path = folder / "huge-dimensions.xlsx"
    book.save(str(path))
    with zipfile.ZipFile(path) as z:
        xml = z.read("xl/worksheets/sheet1.xml")
    start = xml.index(b"<dimension")
    end = xml.index(b"/>", start) + 2
    rewrite(path, path, {"xl/worksheets/sheet1.xml":
                         xml[:start] + b'<dimension ref="A1:XFD1048576"/>' + xml[end:]})


def _emails(folder: Path) -> dict[str, Expect]:
    anna = "Anna Berg <anna@example.org>"
    make_eml(folder / "good.eml", anna, "Quoll survey", "The quollmail survey counted 12 quolls.")
    bomb = folder / "bomb.docx"
    make_eml(folder / "bomb-attached.eml", anna, "Kookaburra photos",
             "The kookaburra photos are attached, with a report.",
             attachments=[("report.docx", bomb.read_bytes(), "application/octet-stream")])
    whole = make_eml(folder / "truncated.eml", anna, "Cut short", "Before the cut. " * 20,
                     attachments=[("data.pdf", os.urandom(3000), "application/pdf")]).read_bytes()
    (folder / "truncated.eml").write_bytes(whole[: len(whole) * 2 // 3])
    rng = random.Random(39)
    (folder / "garbage.eml").write_bytes(bytes(rng.randrange(256) for _ in range(5000)))
    (folder / "no-headers.eml").write_text("just some words\nwithout any mail headers\n" * 20)
    (folder / "empty.eml").write_bytes(b"")
    boundary = [f"b{i}" for i in range(300)]
    nested = "From: a@example.org\nSubject: deep\n" + "".join(
        f'Content-Type: multipart/mixed; boundary="{b}"\n\n--{b}\n' for b in boundary
    ) + "Content-Type: text/plain\n\ndeep text\n"
    (folder / "nested.eml").write_text(nested)
    (folder / "not-a-mailbox.mbox").write_text("no From_ lines here at all\n")
    return {
        "good.eml": expect(INDEXED),
        "bomb-attached.eml": expect(INDEXED),  # its attachment refused, in a note
        "truncated.eml": expect(INDEXED, code=Reason.REPAIRED),
        "garbage.eml": expect(FAILED, code=Reason.BINARY),
        "no-headers.eml": expect(FAILED, code=Reason.CORRUPT),
        "empty.eml": expect(SKIPPED, FAILED, code=Reason.EMPTY),
        "nested.eml": expect(FAILED, code=Reason.TOO_NESTED),
        "not-a-mailbox.mbox": expect(SKIPPED, code=Reason.NO_TEXT),
    }


def _odf(folder: Path) -> dict[str, Expect]:
    """OpenDocument: good files, an entity bomb, deep nesting, a repeated-cell bomb, broken XML
    and a missing content part."""
    make_odt(folder / "good.odt")
    make_odp(folder / "good.odp")
    make_ods(folder / "good.ods")
    write_odf(folder / "laughs.odt", "<text:p>&e9;</text:p>")
    with zipfile.ZipFile(folder / "laughs.odt") as z:
        content = z.read("content.xml")
    body = content[content.index(b"?>") + 2 :]
    rewrite(folder / "laughs.odt", folder / "laughs.odt", {"content.xml": LAUGHS[21:] + body})
    write_odf(folder / "deep.odt", "<text:section>" * 5000 + "<text:p>deep</text:p>"
              + "</text:section>" * 5000)
    cell = '<table:table-cell table:number-columns-repeated="16384"><text:p>emuwide</text:p>'
    write_odf(folder / "repeated.ods", '<table:table table:name="T">'
              f'<table:table-row table:number-rows-repeated="1048576">{cell}</table:table-cell>'
              "</table:table-row></table:table>")
    write_odf(folder / "broken.odp", "<draw:page><text:p>unclosed")
    rewrite(folder / "good.odt", folder / "no-content.odt", {"content.xml": None})
    manifest = (b'<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:'
                b'manifest:1.0"><manifest:file-entry manifest:full-path="content.xml">'
                b"<manifest:encryption-data/></manifest:file-entry></manifest:manifest>")
    rewrite(folder / "good.odt", folder / "encrypted.odt", {"content.xml": os.urandom(900)},
            {"META-INF/manifest.xml": manifest})
    return {
        "good.odt": expect(INDEXED), "good.odp": expect(INDEXED), "good.ods": expect(INDEXED),
        "laughs.odt": expect(FAILED, code=Reason.TOO_LARGE),
        "deep.odt": expect(FAILED, code=Reason.TOO_NESTED),
        "repeated.ods": expect(INDEXED),  # read 100 x 100 times, not 16384 x 1048576
        "broken.odp": expect(FAILED, code=Reason.CORRUPT),
        "no-content.odt": expect(FAILED, code=Reason.CORRUPT),
        "encrypted.odt": expect(FAILED, code=Reason.ENCRYPTED),
    }


def build_office_corpus(folder: Path, link: str) -> dict[str, Expect]:
    """Writes the corpus into `folder`; returns each file's expected outcome."""
    folder.mkdir(parents=True, exist_ok=True)
    _docx_with(folder, "good.docx", "wombatcoop")
    make_pptx(folder / "good.pptx")
    pptx_xml = zipfile.ZipFile(folder / "good.pptx").read("ppt/slides/slide2.xml")
    rewrite(folder / "good.pptx", folder / "good.pptx",
            {"ppt/slides/slide2.xml": pptx_xml.replace(b"platypus", b"platypusdeck")})
    make_xlsx(folder / "good.xlsx", marker="echidnasheet")
    _bomb(folder / "bomb.docx")
    _lying_sizes(folder / "lying-sizes.xlsx")
    good = (folder / "good.docx").read_bytes()
    (folder / "truncated.docx").write_bytes(good[: len(good) // 2])
    (folder / "not-a-zip.docx").write_text("This is plain text under a Word name.\n" * 10)
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)
    encrypted = ole + "EncryptedPackage".encode("utf-16-le") + bytes(600)
    (folder / "encrypted.xlsx").write_bytes(encrypted)
    (folder / "old-binary.pptx").write_bytes(ole + "WordDocument".encode("utf-16-le") + bytes(600))
    (folder / "empty.pptx").write_bytes(b"")
    _deep_xml(folder / "good.docx", folder / "deep.docx", "word/document.xml")
    _deep_xml(folder / "good.pptx", folder / "deep.pptx", "ppt/slides/slide1.xml")
    _deep_xml(folder / "good.xlsx", folder / "deep-workbook.xlsx", "xl/workbook.xml", 100_000)
    _entity_bomb(folder / "good.docx", folder / "laughs.docx", "word/document.xml", b"Revenue")
    _entity_bomb(folder / "good.pptx", folder / "laughs.pptx", "ppt/slides/slide2.xml",
                 b"Launch")
    _entity_bomb(folder / "good.xlsx", folder / "laughs.xlsx", "xl/worksheets/sheet1.xml",
                 b"Rent")
    _docx_with(folder, "word-as.pptx", "wordaspptx")
    rewrite(folder / "good.xlsx", folder / "missing-parts.xlsx",
            {"xl/workbook.xml": None, "xl/worksheets/sheet1.xml": None})
    _macro_docm(folder)
    _macro_xlsm(folder)
    _macro_pptm(folder)
    _external_links(folder, link)
    _huge_dimensions(folder)
    expected = {
        "good.docx": expect(INDEXED), "good.pptx": expect(INDEXED),
        "good.xlsx": expect(INDEXED),
        "bomb.docx": expect(FAILED, code=Reason.TOO_LARGE),
        "lying-sizes.xlsx": expect(FAILED, code=Reason.TOO_LARGE),
        "truncated.docx": expect(FAILED, code=Reason.CORRUPT),
        "not-a-zip.docx": expect(FAILED, code=Reason.CORRUPT),
        "encrypted.xlsx": expect(FAILED, code=Reason.ENCRYPTED),
        "old-binary.pptx": expect(FAILED, code=Reason.UNSUPPORTED),
        "empty.pptx": expect(SKIPPED, FAILED, code=Reason.EMPTY),
        "deep.docx": expect(FAILED, code=Reason.TOO_NESTED),
        "deep.pptx": expect(FAILED, code=Reason.TOO_NESTED),
        "deep-workbook.xlsx": expect(FAILED, code=Reason.TOO_NESTED),
        "laughs.docx": expect(FAILED, code=Reason.TOO_LARGE),
        "laughs.pptx": expect(FAILED, code=Reason.TOO_LARGE),
        "laughs.xlsx": expect(FAILED, code=Reason.TOO_LARGE),
        "word-as.pptx": expect(FAILED, code=Reason.CORRUPT),
        "missing-parts.xlsx": expect(FAILED, code=Reason.CORRUPT),
        "macro.docm": expect(INDEXED), "macro.xlsm": expect(INDEXED),
        "macro.pptm": expect(INDEXED), "external-links.pptx": expect(INDEXED),
        "external-links.docx": expect(INDEXED), "external-links.xlsx": expect(INDEXED),
        "huge-dimensions.xlsx": expect(INDEXED),
    }
    return expected | _emails(folder) | _odf(folder)
