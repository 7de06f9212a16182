"""The parts of an e-mail message: an HTML body as text, and attachments read by the loaders.

An attachment of a type the library reads (a PDF, a Word file, a sheet, a note, a forwarded
message) is written to a private temporary folder and read by the same loader a dropped file
gets, so it is checked the same way (a zip bomb in an attachment is refused like one on disk);
its text then becomes pages of the message's document, each segment under "Attachment NAME",
opened by a heading that names the message it came with. An attachment that cannot be read costs a
note on the message, never the message.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from html.parser import HTMLParser
from pathlib import Path

from desktop_rag.domain import Reason
from desktop_rag.ingest.segments import LoadError, Segment

MAX_ATTACHMENT_BYTES = 50 << 20
MAX_NESTED_MESSAGES = 3  # a message attached to a message attached to ...
_BLOCKS = frozenset({
    "p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "table", "ul", "ol",
    "blockquote", "pre", "section", "article", "header", "footer", "title", "dt", "dd", "hr",
})
_HIDDEN = frozenset({"script", "style", "head", "template", "noscript"})
_SAFE_NAME = re.compile(r"[^\w.\- ]+")


class _TextOfHtml(HTMLParser):
    """Text of an HTML body: blocks on their own lines, scripts and styles left out. Never
    fetches anything (images, styles): only the markup given is read."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN:
            self.hidden += 1
        elif tag in _BLOCKS:
            self.parts.append("\n")
        elif tag == "td":
            self.parts.append(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def html_text(html: str) -> str:
    parser = _TextOfHtml()
    parser.feed(html)
    parser.close()
    lines = (" ".join(line.split()).strip(" |") for line in "".join(parser.parts).split("\n"))
    return "\n\n".join(line for line in lines if line)


@dataclass(slots=True)
class Attachments:
    """What became of a message's attachments: the segments read, and notes on the others."""

    next_page: int
    segments: list[Segment] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, name: str, data: bytes, message: str, depth: int) -> None:
        """Reads one attachment into pages starting at `next_page` (see the module)."""
        if len(data) > MAX_ATTACHMENT_BYTES:
            limit = MAX_ATTACHMENT_BYTES >> 20
            self.notes.append(f"attachment '{name}' not read: over {limit} MiB")
            return
        try:
            read = list(_read_attachment(name, data, depth))
        except LoadError as exc:
            self.notes.append(f"attachment '{name}' not read: {exc.reason}")
            return
        if not read:
            self.notes.append(f"attachment '{name}' has no text")
            return
        self.segments += _placed(read, name, message, self.next_page)
        self.next_page += len({s.page for s in read})


def safe_name(name: str) -> str:
    """An attachment's name fit to be a file name here (no folders, no odd characters)."""
    base = _SAFE_NAME.sub("_", Path(name.replace("\\", "/")).name).strip(" .")
    return base[:120] or "attachment"


def _read_attachment(name: str, data: bytes, depth: int) -> Iterator[Segment]:
    from desktop_rag.ingest.loaders import kind_of, load

    path = Path(safe_name(name))
    if kind_of(path) is None:
        raise LoadError(Reason.UNSUPPORTED, f"unsupported file type '{path.suffix or path.name}'")
    with tempfile.TemporaryDirectory(prefix="desktop-rag-attachment-") as folder:
        file = Path(folder) / path.name
        file.write_bytes(data)
        if path.suffix.lower() != ".eml":
            loaded = load(file)
        elif depth >= MAX_NESTED_MESSAGES:
            raise _too_deep()
        else:
            from desktop_rag.ingest.mail import load_eml

            loaded = load_eml(file, depth + 1)
        yield from list(loaded.segments)  # read while the file exists


def _too_deep() -> LoadError:
    return LoadError(Reason.TOO_NESTED, f"messages nested more than {MAX_NESTED_MESSAGES} deep")


def _placed(read: list[Segment], name: str, message: str, first: int) -> Iterator[Segment]:
    """The attachment's segments renumbered onto the message's pages, without line boxes (the
    viewer shows a message's text), under a heading that names the attachment and its message
    (not its sender: "every e-mail from Anna" counts the message once, not its attachments)."""
    pages = {p: first + i for i, p in enumerate(dict.fromkeys(s.page for s in read))}
    heading = f"Attachment {name} of {message}"
    path = (f"Attachment {name}",)
    yield Segment(heading, first, 0, len(heading), heading_path=path, is_heading=True)
    for seg in read:
        yield replace(seg, page=pages[seg.page], lines=(),
                      heading_path=(f"Attachment {name}", *seg.heading_path))
