"""E-mail: single messages (.eml) and mailboxes (.mbox), with the standard library only.

A message is one page (an .mbox holds many, each its own page): first a line with its sender,
recipients, date and subject ("From: Anna Berg <anna@example.org> | To: … | Date: 2024-03-01 |
Subject: Lease renewal") under the heading "E-mail 'Lease renewal' from Anna Berg, 2024-03-01",
then its body (the plain part, else the HTML part as text). So search and the exhaustive route
("every e-mail from Anna about the lease") see who wrote what, and when: the heading is one line
per message, so a count of messages counts each once (a long message's later chunks go without
it). Attachments of a readable type follow as pages of their own (mail_parts), so
removing the message removes them. Nothing in a message is run or fetched.
"""

from __future__ import annotations

import email
import email.policy
import email.utils
import logging
import mailbox
from collections.abc import Iterator
from email.message import EmailMessage, Message
from pathlib import Path

from desktop_rag.domain import DocKind, Reason
from desktop_rag.ingest.mail_parts import Attachments, html_text
from desktop_rag.ingest.office_text import PageText
from desktop_rag.ingest.segments import LoadedDocument, LoadError, Segment

log = logging.getLogger(__name__)
HEADERS = ("From", "To", "Cc", "Date", "Subject")
MAX_PART_DEPTH = 40  # multiparts nested deeper are a hostile message
NOT_MAIL = "not an e-mail message: no From, To, Subject or Date header"


def load_eml(path: Path, depth: int = 0) -> LoadedDocument:
    message = parse(path.read_bytes())
    subject = _header(message, "Subject")
    loaded = LoadedDocument(DocKind.OTHER, subject or path.stem, 1, iter(()),
                            stated_title=subject or None)
    loaded.set_empty(Reason.NO_TEXT, "an e-mail without text (no body, no readable attachment)")
    pages = MessagePages(loaded, depth)
    loaded.segments = iter(pages.read(message, 1))
    loaded.pages = pages.next_page - 1
    return loaded


def load_mbox(path: Path) -> LoadedDocument:
    box = mailbox.mbox(str(path), create=False)
    loaded = LoadedDocument(DocKind.OTHER, path.stem, 0, iter(()))
    loaded.set_empty(Reason.NO_TEXT, "no messages (an empty mailbox, or not an mbox file)")
    pages = MessagePages(loaded, 0)
    segments: list[Segment] = []
    try:
        for index, key in enumerate(box.iterkeys(), start=1):
            try:
                segments += pages.read(parse(box.get_bytes(key)), pages.next_page)
            except LoadError as exc:
                loaded.add_note(Reason.NONE, f"message {index} not read: {exc.reason}")
    finally:
        box.close()
    loaded.segments, loaded.pages = iter(segments), pages.next_page - 1
    return loaded


def parse(data: bytes) -> EmailMessage:
    """The message in `data`; LoadError when it is empty, binary or has no mail headers."""
    if not data.strip():
        raise LoadError(Reason.EMPTY, "empty file (no message)", skip=True)
    if b"\x00" in data[:65536]:
        raise LoadError(Reason.BINARY, "binary data, not an e-mail message (contains NUL bytes)")
    try:
        message = email.message_from_bytes(data, policy=email.policy.default)
    except RecursionError as exc:
        raise LoadError(Reason.TOO_NESTED, "cannot open: its parts are nested too deep") from exc
    if not any(_header(message, h) for h in ("From", "To", "Subject", "Date")):
        raise LoadError(Reason.CORRUPT, NOT_MAIL)
    assert isinstance(message, EmailMessage)  # the default policy makes EmailMessages
    return message


def _header(message: Message, name: str) -> str:
    try:
        value = message.get(name)
    except Exception:  # a malformed header the parser could not fold into a value
        value = None
    return " ".join(str(value).split()) if value else ""


def _date(message: Message) -> str:
    raw = _header(message, "Date")
    try:
        return email.utils.parsedate_to_datetime(raw).date().isoformat() if raw else ""
    except (TypeError, ValueError, IndexError):
        return raw


def header_line(message: Message) -> str:
    """"From: … | To: … | Cc: … | Date: … | Subject: …" (headers it lacks left out)."""
    values = {h: _header(message, h) for h in HEADERS}
    values["Date"] = _date(message)
    return " | ".join(f"{h}: {v}" for h, v in values.items() if v)


def message_title(message: Message) -> str:
    """What every chunk of the message opens with: its subject, sender and date."""
    subject = _header(message, "Subject") or "(no subject)"
    sender = _header(message, "From")
    name = email.utils.parseaddr(sender)[0] or sender
    date = _date(message)
    return f"E-mail '{subject}'" + (f" from {name}" if name else "") + (f", {date}" if date else "")


class MessagePages:
    """Reads messages into segments, numbering their pages (attachments included)."""

    def __init__(self, loaded: LoadedDocument, depth: int) -> None:
        self.loaded = loaded
        self.depth = depth
        self.next_page = 1

    def read(self, message: EmailMessage, page_no: int) -> list[Segment]:
        try:
            return self._read(message, page_no)
        except RecursionError as exc:
            raise LoadError(Reason.TOO_NESTED, "cannot open: its parts are nested too deep") \
                from exc

    def _read(self, message: EmailMessage, page_no: int) -> list[Segment]:
        title = message_title(message)
        page = PageText(page_no, (title,))
        page.add(title, heading=True)
        page.add(header_line(message))
        body_part = message.get_body(preferencelist=("plain", "html"))
        for paragraph in body_text(body_part).split("\n\n"):
            page.add(paragraph)
        subject = _header(message, "Subject") or "(no subject)"
        if _damaged(message):  # noted first: the outcome's code is the first note's
            self.loaded.add_note(Reason.REPAIRED, "the message is damaged (truncated or "
                                                  "malformed); some text may be missing")
        attachments = Attachments(page_no + 1)
        for name, data in _attachments(message, body_part):
            attachments.add(name, data, f"the message '{subject}'", self.depth)
        for note in attachments.notes:
            self.loaded.add_note(Reason.NONE, note)
        self.next_page = attachments.next_page
        return [*page.segments, *attachments.segments]


def body_text(part: Message | None) -> str:
    """The body as text (HTML converted), paragraphs separated by blank lines."""
    if part is None:
        return ""
    try:
        content = part.get_content()  # type: ignore[attr-defined]
    except (LookupError, ValueError, AssertionError):  # an unknown charset, a broken encoding
        raw = part.get_payload(decode=True)
        content = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else ""
    text = content if isinstance(content, str) else ""
    if part.get_content_type() == "text/html":
        return html_text(text)
    return text.replace("\r\n", "\n")


def _attachments(message: Message, body: Message | None) -> Iterator[tuple[str, bytes]]:
    """(name, bytes) of each attachment, forwarded messages included, found without entering
    them (their own attachments are theirs)."""
    for part in _leaves(message, 0):
        if part is body:
            continue
        kind = part.get_content_type()
        name = part.get_filename()
        if kind == "message/rfc822":
            inner = part.get_payload()
            if isinstance(inner, list) and inner and isinstance(inner[0], Message):
                yield (name or "forwarded.eml"), inner[0].as_bytes()
        elif name or part.get_content_disposition() == "attachment":
            data = part.get_payload(decode=True)
            if isinstance(data, bytes):
                yield (name or f"attachment.{part.get_content_subtype()}"), data


def _leaves(message: Message, depth: int) -> Iterator[Message]:
    if depth > MAX_PART_DEPTH:
        raise LoadError(Reason.TOO_NESTED, f"cannot open: parts nested over {MAX_PART_DEPTH} deep")
    if message.get_content_type() == "message/rfc822" or not message.is_multipart():
        yield message
        return
    payload = message.get_payload()
    for sub in payload if isinstance(payload, list) else ():
        if isinstance(sub, Message):
            yield from _leaves(sub, depth + 1)


def _damaged(message: Message) -> bool:
    """Whether the parser met a truncated or broken structure (a missing closing boundary, a
    part cut short), not just an odd header."""
    names = ("Boundary", "Multipart", "Base64", "HeaderBody", "FirstHeaderLine")
    stack, seen = [message], 0
    while stack and seen < 10_000:
        part = stack.pop()
        seen += 1
        if any(n in type(d).__name__ for d in part.defects for n in names):
            return True
        payload = part.get_payload() if part.is_multipart() else None
        stack += [p for p in payload if isinstance(p, Message)] if isinstance(payload, list) else []
    return False
