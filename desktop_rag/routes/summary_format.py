"""The length and form a summary question asks for, and holding the model to it.

"Summarize this paper in five bullet points" wants five: a small model gives seven as readily as
five. The count is read from the question (digits or words); while the summary streams, a gate
passes its lines and stops the model once the last wanted bullet has ended, so nothing past it
is ever shown; afterwards, too few bullets are made up by splitting a bullet of two sentences,
and only then by asking the model for the missing ones.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from desktop_rag.answering.citations import strip_markers
from desktop_rag.domain.errors import CancelledError
from desktop_rag.domain.progress import CancelToken

_WORDS = "zero one two three four five six seven eight nine ten eleven twelve"
_NUMBER_WORDS = {w: i for i, w in enumerate(_WORDS.split(" "))}
_AMOUNT = r"(\d{1,2}|" + "|".join(_NUMBER_WORDS) + r")"
_BULLETS = re.compile(
    rf"\b{_AMOUNT}\s+(?:(?:short|brief|key|main|concise|clear)\s+)*(?:bullet(?:ed)?(?:\s+points?)?"
    r"|bullets|points|takeaways|items|highlights)\b",
    re.IGNORECASE,
)
_SENTENCES = re.compile(rf"\b{_AMOUNT}\s+(?:short\s+)?sentences?\b", re.IGNORECASE)
_BULLETED = re.compile(r"\bbullet(?:ed)?(?:\s+points?)?\b|\bbullets\b", re.IGNORECASE)
_BRIEF = re.compile(r"\b(?:brief|short|quick|tl;?\s?dr|gist|nutshell|one paragraph)\b", re.I)
BULLET = re.compile(r"^\s*(?:[-*\u2022\u00b7\u25aa\u2013]|\d{1,2}[.)])\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])(?:\s*\[[\d,\s\-–]+\])?\s+(?=[A-Z])")
MAX_BULLETS = 12
BROKEN_WORDS = 6  # a last bullet of fewer words and no full stop broke off
REPEATED = 0.85  # the share of two bullets' words they share that makes one a repeat


def _amount(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBER_WORDS[word.lower()]


@dataclass(frozen=True, slots=True)
class Format:
    """What the question asks for: `bullets` points (None: no count), or `sentences`."""

    bullets: int | None = None
    bulleted: bool = False
    sentences: int | None = None
    brief: bool = False

    @property
    def key(self) -> str:
        """The part of a kept summary's key that its form decides."""
        return f"b{self.bullets}:{int(self.bulleted)}:s{self.sentences}:{int(self.brief)}"

    def instruction(self) -> str:
        if self.bullets:
            return (f"Write exactly {self.bullets} bullet points, each one sentence on one line, "
                    "starting with \"- \" and ending with its citation like [1]. Nothing "
                    "else.")  # fmt: skip
        if self.bulleted:
            return "Write 5 to 7 bullet points, one line each, starting with \"- \"."
        if self.sentences:
            return f"Write exactly {self.sentences} sentences, each with its citation."
        if self.brief:
            return "Write 3 or 4 sentences."
        return "Write one paragraph of 5 to 8 sentences covering the whole document."


def parse_format(question: str) -> Format:
    """The form `question` asks for (counts above MAX_BULLETS are read as no count)."""
    bullets = _BULLETS.search(question)
    count = _amount(bullets.group(1)) if bullets else None
    if count is not None and not 1 <= count <= MAX_BULLETS:
        count = None
    sentences = _SENTENCES.search(question)
    return Format(count, count is not None or bool(_BULLETED.search(question)),
                  _amount(sentences.group(1)) if sentences and not count else None,
                  bool(_BRIEF.search(question)))  # fmt: skip


class LinkedCancel(CancelToken):
    """A token the gate can cancel that also reads the user's: stopping the model at the last
    bullet is not the user's Stop, which still ends it too."""

    def __init__(self, parent: CancelToken | None) -> None:
        super().__init__()
        self.parent = parent

    @property
    def cancelled(self) -> bool:
        return super().cancelled or (self.parent is not None and self.parent.cancelled)

    @property
    def by_user(self) -> bool:
        return self.parent is not None and self.parent.cancelled

    def raise_if_cancelled(self) -> None:
        if self.cancelled:
            raise CancelledError()


class BulletGate:
    """A token sink that passes the text on until `limit` bullets have been written, then stops
    the model (through `stop`). A line is held only until its first characters tell whether it
    is a bullet, so the text still streams."""

    def __init__(self, sink: Callable[[str], None], limit: int | None, stop: LinkedCancel) -> None:
        self.sink = sink
        self.limit = limit
        self.stop = stop
        self.bullets = 0
        self.held = ""
        self.decided = False
        self.done = False
        self.text = ""  # what was passed on

    def __call__(self, piece: str) -> None:
        for part in re.split(r"(?<=\n)", piece):
            if part and not self.done:
                self._take(part)

    def _take(self, part: str) -> None:
        if not self.decided:
            self.held += part
            if len(self.held.lstrip()) < 3 and not self.held.endswith("\n"):
                return
            part, self.held, self.decided = self.held, "", True
            if BULLET.match(part) and self.limit is not None and self.bullets >= self.limit:
                self._finish()
                return
            self.bullets += 1 if BULLET.match(part) else 0
        self._emit(part)
        if part.endswith("\n"):
            self.decided = False
            if self.limit is not None and self.bullets >= self.limit:
                self._finish()

    def _emit(self, text: str) -> None:
        self.text += text
        self.sink(text)

    def _finish(self) -> None:
        self.done = True
        self.stop.cancel()

    def flush(self) -> None:
        """Passes on a last line still held (a generation that ended inside it)."""
        if self.held and not self.done:
            self._emit(self.held)
        self.held = ""


def bullets_of(text: str) -> tuple[list[str], list[str]]:
    """The lines before the first bullet, and the bullets (without their marks)."""
    lead: list[str] = []
    points: list[str] = []
    gap = False  # a blank line since the last bullet: what follows is no part of it
    for line in text.splitlines():
        if BULLET.match(line):
            points.append(BULLET.sub("", line, count=1).strip())
        elif points and line.strip() and not gap:
            points[-1] += " " + line.strip()  # a bullet that runs on
        elif line.strip() and not points:
            lead.append(line.strip())
        gap = bool(points) and not line.strip()
    return lead, points


def _split_one(points: list[str]) -> bool:
    """Splits the bullet with most sentences in two at a sentence end; False when none has two."""
    best, pieces = -1, 1
    for i, point in enumerate(points):
        n = len(_SENTENCE_END.split(point))
        if n > pieces:
            best, pieces = i, n
    if best < 0:
        return False
    parts = [p for p in re.split(_SENTENCE_END, points[best]) if p.strip()]
    half = (len(parts) + 1) // 2
    points[best : best + 1] = [" ".join(parts[:half]), " ".join(parts[half:])]
    return True


def distinct(points: list[str]) -> list[str]:
    """The bullets worth showing: a bullet that repeats an earlier one (a small model loops:
    "The paper covers …" twice) is dropped, and so is a last one that broke off after a few
    words ("- The paper covers"), so that they are asked for again rather than shown."""
    out: list[str] = []
    for point in points:
        words = _words(point)
        if words and not any(_alike(words, _words(p)) for p in out):
            out.append(point)
    if out and _broke_off(out[-1]):
        out.pop()
    return out


def _words(point: str) -> set[str]:
    return set(re.findall(r"\w+", strip_markers(point).lower()))


def _alike(a: set[str], b: set[str]) -> bool:
    return len(a & b) >= REPEATED * len(a | b)


def _broke_off(point: str) -> bool:
    text = strip_markers(point)
    return len(text.split()) < BROKEN_WORDS and not re.search(r"[.!?:;)%\"\u201d]$", text)


def exactly(points: list[str], wanted: int) -> list[str]:
    """`points` made `wanted` long without asking the model: the first distinct ones kept when
    there are more, bullets of several sentences split when there are fewer (may stay short)."""
    out = distinct([p for p in points if p.strip()])[:wanted]
    while len(out) < wanted and _split_one(out):
        pass
    return out


def as_bullets(points: list[str]) -> str:
    return "\n".join(f"- {p}" for p in points)
