"""A generated corpus of hostile and malformed files (plus a few good ones) for the hardening tests.

`build_corpus(folder)` writes every file and returns what each one is expected to become: an
outcome (or a set of acceptable outcomes) and the reason code it must carry.
Nothing here is downloaded; PDFs are made with PyMuPDF or written by hand byte for byte.
"""

from __future__ import annotations

import os
import random
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pymupdf

from desktop_rag.domain import Outcome, Reason
from tests.ingest_docs import KNOWN, NOTE, make_encrypted_pdf, make_pdf, write_note

GOOD_NOTE_WORD = "quokkabanana"


@dataclass(frozen=True, slots=True)
class Expect:
    outcomes: frozenset[Outcome]
    code: Reason | None = None  # the outcome's reason code (None: anything)


def expect(*outcomes: Outcome, code: Reason | None = None) -> Expect:
    return Expect(frozenset(outcomes), code)


FAILED, SKIPPED, INDEXED = Outcome.FAILED, Outcome.SKIPPED, Outcome.INDEXED


# ---- hand-written PDFs ---------------------------------------------------------------------
def raw_pdf(objects: list[bytes], root: int = 1) -> bytes:
    """A syntactically valid PDF from numbered object bodies (object i+1 = objects[i])."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\n" % (len(objects) + 1, root)
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def _stream(data: bytes, compress: bool = True) -> bytes:
    if compress:
        packed = zlib.compress(data, 6)
        return b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(packed) + packed + (
            b"\nendstream"
        )
    return b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


def one_page_pdf(content: bytes, extra: bytes = b"") -> bytes:
    """Catalog, pages, one page with Helvetica and `content` as its content stream."""
    return raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> " + extra + b">>",
        _stream(content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ])


def megabyte_page_pdf(megabytes: float = 3.0) -> bytes:
    """One page whose content stream draws `megabytes` of text (mostly off-page, tiny font)."""
    line = b"(" + b"lorem ipsum dolor sit amet consectetur " * 6 + b") Tj 0 -1 Td\n"
    count = int(megabytes * 1024 * 1024 / len(line))
    body = b"BT /F1 1 Tf 10 800 Td 1 TL\n" + line * count + b"ET\n"
    return one_page_pdf(body)


def deeply_nested_pdf(depth: int = 200_000) -> bytes:
    """A page dictionary holding an array nested `depth` levels deep."""
    nested = b"[" * depth + b"1" + b"]" * depth
    return one_page_pdf(b"BT /F1 12 Tf 72 720 Td (nested) Tj ET", b"/Junk " + nested + b" ")


def nested_pages_tree_pdf(depth: int = 5000) -> bytes:
    """A page tree whose /Kids chain is `depth` levels deep before the only page."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    for level in range(depth):
        number = level + 2
        parent = b" /Parent %d 0 R" % (number - 1) if level else b""
        objects.append(b"<< /Type /Pages /Kids [%d 0 R] /Count 1%s >>" % (number + 1, parent))
    page = len(objects) + 1
    objects.append(
        b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Contents %d 0 R"
        b" /Resources << /Font << /F1 %d 0 R >> >> >>" % (page - 1, page + 1, page + 2)
    )
    objects.append(_stream(b"BT /F1 12 Tf 72 720 Td (deep page tree) Tj ET"))
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    return raw_pdf(objects)


def self_referencing_pages_pdf() -> bytes:
    """A /Pages node that lists itself as its own kid (a cycle in the page tree)."""
    return raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [2 0 R] /Count 1 >>",
    ])


def thousand_page_pdf(path: Path, pages: int) -> Path:
    doc = pymupdf.open()
    for number in range(1, pages + 1):
        doc.new_page(width=200, height=200).insert_text((20, 40), f"Sheet {number} zebrafinch.")
    doc.save(path, garbage=1, deflate=True)
    doc.close()
    return path


def truncated(source: Path, dest: Path, fraction: float) -> Path:
    data = source.read_bytes()
    dest.write_bytes(data[: max(1, int(len(data) * fraction))])
    return dest


# ---- the corpus ----------------------------------------------------------------------------
def _bytes(name: str, data: bytes) -> Callable[[Path], object]:
    return lambda folder: (folder / name).write_bytes(data)


def _text(name: str, text: str) -> Callable[[Path], object]:
    return lambda folder: write_note(folder / name, text)


def build_corpus(folder: Path, pages: int = 2000, seed: int = 7) -> dict[str, Expect]:
    """Writes the corpus into `folder`; returns file name -> what ingestion must report."""
    rng = random.Random(seed)
    folder = folder.resolve()  # symlink targets must be absolute
    folder.mkdir(parents=True, exist_ok=True)
    good = make_pdf(folder / "good.pdf", pages=3, known_page=2)
    write_note(folder / "good-note.md", NOTE + f"\nThe {GOOD_NOTE_WORD} lives here.\n")
    truncated(good, folder / "truncated-third.pdf", 1 / 3)
    truncated(good, folder / "truncated-header.pdf", 0.004)
    make_encrypted_pdf(folder / "encrypted.pdf")
    thousand_page_pdf(folder / "thousands-of-pages.pdf", pages)
    writers = [
        _bytes("random-bytes.pdf", rng.randbytes(20_000)),
        _bytes("zero-bytes.pdf", b""),
        _bytes("zero-bytes.md", b""),
        _bytes("header-only.pdf", b"%PDF-1.7\n"),
        _bytes("megabytes-of-text.pdf", megabyte_page_pdf()),
        _bytes("deeply-nested-objects.pdf", deeply_nested_pdf()),
        _bytes("deep-page-tree.pdf", nested_pages_tree_pdf()),
        _bytes("page-tree-cycle.pdf", self_referencing_pages_pdf()),
        _bytes("binary.md", bytes(rng.randrange(256) for _ in range(5000)) + b"\x00"),
        _bytes("latin1.md", "# Café\n\nCrème brûlée à la carte.".encode("latin-1")),
        _bytes("bad-utf16.md", b"\xff\xfe" + "Text with an odd byte".encode("utf-16-le") + b"A"),
        _bytes("lone-surrogate-utf16.txt", b"\xff\xfe" + b"A\x00\x00\xd8B\x00"),
        _bytes("pdf-named.md", (folder / "good.pdf").read_bytes()),
        _bytes("random.epub", rng.randbytes(3000)),
        _bytes("only-whitespace.md", b" \n\n\t\r\n   \n"),
        _text("one-giant-word.txt", "x" * 2_000_000),
        _text("many-headings.md", "".join(f"{'#' * (i % 6 + 1)} H{i}\n" for i in range(20_000))),
        _text("unterminated-fence.md", "# Code\n\n```python\n" + "print('hi')\n" * 2000),
        _text("résumé ünïcödé 日本語 🚀 'quote\".md", "# Unicode path\n\nThe name is odd."),
        _text("CAPS.PDF.md", "# Caps\n\nA markdown file with a misleading name."),
        _text("nul-after-64k.txt", "word " * 20_000 + "\x00 tail words here"),
        _bytes("nested.html", b"<div>" * 50_000 + b"deep html" + b"</div>" * 50_000),
    ]
    for write in writers:
        write(folder)
    _special_files(folder)
    return _expectations(pages)


def _special_files(folder: Path) -> None:
    loops = folder / "loops"
    loops.mkdir(exist_ok=True)
    (loops / "again").symlink_to(loops, target_is_directory=True)  # a folder symlink loop
    (loops / "self.md").symlink_to(loops / "self.md")  # ELOOP
    (loops / "dangling.pdf").symlink_to(folder / "does-not-exist.pdf")
    os.mkfifo(folder / "fifo.md")  # not a regular file: must not block
    (folder / "folder-named.md").mkdir(exist_ok=True)
    (folder / os.fsdecode(b"bad\xffname.md")).write_text("# Bad name\n\nBytes in the name.")
    write_note(folder / "folder-named.md" / "inside.md", f"# Inside\n\n{KNOWN}")


def _expectations(pages: int) -> dict[str, Expect]:
    corrupt = Reason.CORRUPT
    return {
        "good.pdf": expect(INDEXED),
        "good-note.md": expect(INDEXED),
        "inside.md": expect(INDEXED),  # under a folder named like a file
        "truncated-third.pdf": expect(INDEXED, FAILED),
        "truncated-header.pdf": expect(FAILED, code=corrupt),
        "encrypted.pdf": expect(FAILED, code=Reason.ENCRYPTED),
        "thousands-of-pages.pdf": expect(INDEXED),
        "random-bytes.pdf": expect(FAILED, code=corrupt),
        "zero-bytes.pdf": expect(SKIPPED, code=Reason.EMPTY),
        "zero-bytes.md": expect(SKIPPED, code=Reason.EMPTY),
        "header-only.pdf": expect(FAILED),
        "megabytes-of-text.pdf": expect(INDEXED),
        "deeply-nested-objects.pdf": expect(INDEXED, FAILED),
        "deep-page-tree.pdf": expect(INDEXED, FAILED),
        "page-tree-cycle.pdf": expect(FAILED, code=corrupt),
        "binary.md": expect(FAILED, code=Reason.BINARY),
        "latin1.md": expect(INDEXED, code=Reason.DECODED),
        "bad-utf16.md": expect(INDEXED, code=Reason.DECODED),
        "lone-surrogate-utf16.txt": expect(INDEXED, code=Reason.DECODED),
        "pdf-named.md": expect(INDEXED, FAILED, SKIPPED),
        "random.epub": expect(FAILED, code=corrupt),
        "only-whitespace.md": expect(SKIPPED, code=Reason.NO_TEXT),
        "one-giant-word.txt": expect(INDEXED),
        "many-headings.md": expect(INDEXED),
        "unterminated-fence.md": expect(INDEXED),
        "résumé ünïcödé 日本語 🚀 'quote\".md": expect(INDEXED),
        "CAPS.PDF.md": expect(INDEXED),
        "nul-after-64k.txt": expect(INDEXED, FAILED),
        "nested.html": expect(FAILED, code=Reason.TOO_NESTED),
        "self.md": expect(FAILED, code=Reason.UNREADABLE),
        "bad\\xffname.md": expect(FAILED, code=Reason.BAD_NAME),
        "dangling.pdf": expect(FAILED),
        "fifo.md": expect(SKIPPED, code=Reason.NOT_A_FILE),
    }
