"""Checks an Office Open XML file (a zip of XML parts) before a library parses it.

Word, PowerPoint and Excel files are zip archives, so a hostile one can be a zip bomb (a few
kilobytes that inflate to gigabytes), a corrupt or truncated archive, a password-protected file
(then it is no zip at all but an OLE compound file holding an "EncryptedPackage" stream), an old
binary .doc/.xls/.ppt renamed, or XML nested deep enough to exhaust a parser. Each gets a
LoadError naming the reason before python-docx, python-pptx or openpyxl see it. The sizes are
the archive's own declarations: Python's zipfile never inflates a member past its declared size
(and fails on a CRC mismatch), so a lie in the directory cannot get past these limits.

Macros and external links need no check: none of the libraries runs a macro or fetches a link;
a macro-enabled file's text is read like any other (see `without_macros`).
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from desktop_rag.domain import Reason
from desktop_rag.ingest.segments import LoadError, Segment

MAX_UNCOMPRESSED = 1 << 30  # 1 GiB inflated in all: far beyond any real document's text
MAX_RATIO = 200  # a member inflating more than 200 times (and past 10 MiB) is a bomb
RATIO_FLOOR = 10 << 20
MAX_MEMBERS = 20_000
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ENCRYPTED_STREAM = "EncryptedPackage".encode("utf-16-le")
ENCRYPTED = "password-protected (an encrypted Office file); save it without a password first"
OLD_BINARY = (
    "an old binary Office file (.doc/.xls/.ppt) or another format with an Office name; "
    "save it as .docx/.xlsx/.pptx first"
)
NOT_ZIP = "cannot open: not a valid Office file (it is no zip archive: corrupt or another format)"
BAD_ZIP = "cannot open: the Office file's zip archive is corrupt or truncated"
MACRO_TYPES = {  # a macro-enabled main part's content type -> the plain one (same XML)
    b"application/vnd.ms-word.document.macroEnabled.main+xml":
        b"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
    b"application/vnd.ms-word.template.macroEnabledTemplate.main+xml":
        b"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
    b"application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml":
        b"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
}


def check_package(path: Path) -> None:
    """Raises LoadError when `path` is no Office zip, or one too large to inflate safely."""
    head = _head(path)
    if not head:
        raise LoadError(Reason.EMPTY, "empty file (0 bytes)", skip=True)
    if head.startswith(OLE_MAGIC):
        data = path.read_bytes()
        if ENCRYPTED_STREAM in data:
            raise LoadError(Reason.ENCRYPTED, ENCRYPTED)
        raise LoadError(Reason.UNSUPPORTED, OLD_BINARY)
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        raise LoadError(Reason.CORRUPT, NOT_ZIP if not head.startswith(b"PK") else BAD_ZIP) from exc
    _check_sizes(members)


def _head(path: Path) -> bytes:
    with path.open("rb") as handle:
        return handle.read(8)


def _check_sizes(members: list[zipfile.ZipInfo]) -> None:
    if len(members) > MAX_MEMBERS:
        raise LoadError(Reason.TOO_LARGE, f"too many parts in the archive ({len(members)})")
    total = 0
    for info in members:
        total += info.file_size
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > RATIO_FLOOR and ratio > MAX_RATIO:
            raise LoadError(Reason.TOO_LARGE, (
                f"refused: looks like a zip bomb ('{info.filename}' inflates {ratio:.0f} times, "
                f"to {info.file_size >> 20} MiB)"
            ))
    if total > MAX_UNCOMPRESSED:
        raise LoadError(
            Reason.TOO_LARGE, f"refused: inflates to {total >> 20} MiB, over the 1 GiB limit"
        )


def without_macros(path: Path) -> io.BytesIO:
    """The package in memory with a macro-enabled (or template) Word main part declared as a
    plain document and its macro project left out: python-docx reads only plain documents, and
    the text is the same XML. Nothing in the macro project is ever run or read."""
    out = io.BytesIO()
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if info.filename.lower().endswith("vbaproject.bin"):
                continue
            data = src.read(info)
            if info.filename == "[Content_Types].xml":
                for macro, plain in MACRO_TYPES.items():
                    data = data.replace(macro, plain)
            dst.writestr(info, data)
    out.seek(0)
    return out


def parse_failure(exc: Exception) -> LoadError:
    """What a library's error while parsing a checked package means to the user."""
    text = str(exc)
    if "amplification" in text.lower():  # lxml's and expat's guard against entity bombs
        return LoadError(Reason.TOO_LARGE, "refused: its XML expands entities without bound "
                                           "(an entity bomb)")
    if "depth" in text.lower() or isinstance(exc, RecursionError):
        return LoadError(Reason.TOO_NESTED, "cannot open: its XML is nested too deep")
    if isinstance(exc, KeyError | zipfile.BadZipFile):
        return LoadError(Reason.CORRUPT, f"cannot open: a required part is missing or corrupt "
                                         f"({text[:120]})")
    return LoadError(Reason.CORRUPT, f"cannot open: not a valid Office document ({text[:160]})")


def guarded(segments: Iterable[Segment]) -> Iterator[Segment]:
    """The segments, a library's error on the way turned into the file's LoadError."""
    try:
        yield from segments
    except LoadError:
        raise
    except Exception as exc:  # lxml, zipfile and the libraries raise many kinds
        raise parse_failure(exc) from exc
