"""Engine-independent pieces of a generation loop: streaming, bounds, the repetition guard."""

from __future__ import annotations

import codecs
import contextlib
import re
import time
from collections.abc import Iterator, Sequence
from typing import Protocol

from desktop_rag.domain.progress import CancelToken
from desktop_rag.domain.protocols import Generation, StopReason, TokenCallback


class Utf8Stream:
    """Turns token byte pieces into text pieces without splitting multi-byte characters."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def feed(self, data: bytes) -> str:
        return self._decoder.decode(data)

    def flush(self) -> str:
        return self._decoder.decode(b"", final=True)


# Prompt scaffolding a small model sometimes goes on to write after its answer (echoing a source
# block or inventing the next question): the answer ends there and the marker is never shown.
STOP_TEXTS = ("<source", "</source>", "\nQuestion:", "\nSources:", "<|im_start|>", "<|im_end|>")


class StopText:
    """Streams text pieces but holds back any tail that could start a stop text (and trailing
    white space); `feed` returns what is safe to show. Once a stop text appears, `stopped` is set
    and the text from it on is dropped."""

    def __init__(self, stops: Sequence[str] = STOP_TEXTS) -> None:
        self.stops = tuple(s for s in stops if s)
        self._held = ""
        self.stopped = False

    def feed(self, piece: str) -> str:
        if self.stopped:
            return ""
        text = self._held + piece
        cut = min((i for i in (text.find(s) for s in self.stops) if i >= 0), default=-1)
        if cut >= 0:
            self.stopped, self._held = True, ""
            return text[:cut].rstrip()
        safe = text[: len(text) - self._partial_tail(text)]
        shown = safe.rstrip()  # trailing space waits: it may turn out to end the answer
        self._held = text[len(shown) :]
        return shown

    def _partial_tail(self, text: str) -> int:
        """Length of the longest tail of `text` that is a proper prefix of a stop text."""
        longest = 0
        for stop in self.stops:
            for n in range(min(len(stop) - 1, len(text)), longest, -1):
                if text.endswith(stop[:n]):
                    longest = n
                    break
        return longest

    def flush(self) -> str:
        held, self._held = ("" if self.stopped else self._held.rstrip()), ""
        return held


class RepetitionGuard:
    """Detects a generation stuck in a loop: the tail is one block of `p` tokens repeated.

    A loop is reported when the last `max(min_span, min_repeats * p)` tokens are periodic with
    some period p <= max_period, i.e. one short phrase repeated over and over.
    """

    def __init__(self, max_period: int = 40, min_repeats: int = 3, min_span: int = 48) -> None:
        self.max_period = max_period
        self.min_repeats = min_repeats
        self.min_span = min_span
        self._tokens: list[int] = []

    def add(self, token: int) -> bool:
        """Records a token; True when the output has started looping."""
        self._tokens.append(token)
        return any(self._periodic(p) for p in range(1, self.max_period + 1))

    def _periodic(self, period: int) -> bool:
        span = max(self.min_span, self.min_repeats * period)
        if len(self._tokens) < span:
            return False
        tail = self._tokens[-span:]
        return _has_period(tail, period)


def _has_period(tokens: Sequence[int], period: int) -> bool:
    return all(tokens[i] == tokens[i - period] for i in range(period, len(tokens)))


_CITED = re.compile(r"\[\s*\d+(?:\s*[,;\-–]\s*\d+)*\s*\]")
_ITEM_NUMBER = re.compile(r"^\s*(?:[-*•]\s*)?\d+[.)]\s+")
LOOP_LINES = 4  # the same line this many times running is a loop


def line_key(line: str) -> str:
    """A line with its citation and item numbers blanked ("[#]", "#."), spaces collapsed; ""
    for a line too short to tell (blank, a lone marker, a rule)."""
    text = _ITEM_NUMBER.sub("#. ", _CITED.sub("[#]", line))
    key = " ".join(text.split())
    return key if sum(ch.isalnum() for ch in key) >= 2 else ""


class LineLoopGuard:
    """A list stuck in a loop: one line again and again, only its citation or item number
    changing ("[12] 90.81", "[13] 90.81", …). The token guard sees no period there (the numbers
    differ), so lines are compared with their numbers blanked."""

    def __init__(self, repeats: int = LOOP_LINES) -> None:
        self.repeats = repeats
        self._partial = ""
        self._last = ""
        self._run = 0

    def feed(self, piece: str) -> bool:
        """Records a text piece; True when the last `repeats` complete lines are one line."""
        if "\n" not in piece:
            self._partial += piece
            return False
        *done, self._partial = (self._partial + piece).split("\n")
        for key in filter(None, map(line_key, done)):
            self._run = self._run + 1 if key == self._last else 1
            self._last = key
        return self._run >= self.repeats


def without_repeated_lines(text: str) -> str:
    """The answer of a looping model cut after the first line of its trailing run of one line
    (numbers blanked); a last line that only began the run again goes too."""
    lines = text.rstrip().split("\n")
    keys = [line_key(line) for line in lines]
    before = next((k for k in reversed(keys[:-1]) if k), "")
    if len(lines) > 1 and before != keys[-1] and before.startswith(keys[-1]):
        lines, keys = lines[:-1], keys[:-1]
    last, end = next((k for k in reversed(keys) if k), ""), len(lines)
    while end > 1 and last and keys[end - 1] in (last, "") and last in keys[: end - 1]:
        end -= 1
    return "\n".join(lines[:end]).rstrip()


class TokenSource(Protocol):
    def is_end(self, token: int) -> bool: ...

    def piece(self, token: int) -> bytes: ...


class StreamingRun:
    """One streaming generation: pieces to the callback, bounds, guard and timings."""

    def __init__(
        self,
        engine: TokenSource,
        prompt_tokens: int,
        cached: int,
        on_token: TokenCallback | None,
        cancel: CancelToken | None,
    ) -> None:
        self.engine, self.on_token, self.cancel = engine, on_token, cancel
        self.prompt_tokens, self.cached = prompt_tokens, cached
        self.start = time.perf_counter()
        self.ttft_ms = 0.0
        self.count = 0
        self.stopped_by: StopReason = "stop"
        self.text: list[str] = []
        self._stream = Utf8Stream()
        self._guard = RepetitionGuard()
        self._lines = LineLoopGuard()
        self._looping = False
        self._stops = StopText()

    def consume(self, tokens: Iterator[int], max_tokens: int) -> None:
        with contextlib.closing(tokens):  # type: ignore[type-var]
            for token in tokens:
                if self._step(token, max_tokens):
                    break
        self._emit(self._stops.feed(self._stream.flush()) + self._stops.flush())

    def _step(self, token: int, max_tokens: int) -> bool:
        if self.count == 0:
            self.ttft_ms = (time.perf_counter() - self.start) * 1000
        if self.engine.is_end(token):
            return True
        self.count += 1
        self._emit(self._stops.feed(self._stream.feed(self.engine.piece(token))))
        return self._stops.stopped or self._should_stop(token, max_tokens)

    def _should_stop(self, token: int, max_tokens: int) -> bool:
        if self.cancel is not None and self.cancel.cancelled:
            self.stopped_by = "cancel"
        elif self._guard.add(token) or self._looping:
            self.stopped_by = "repetition"
        elif self.count >= max_tokens:
            self.stopped_by = "length"
        return self.stopped_by != "stop"

    def _emit(self, piece: str) -> None:
        if piece:
            self.text.append(piece)
            self._looping = self._lines.feed(piece) or self._looping
            if self.on_token is not None:
                self.on_token(piece)

    def result(self) -> Generation:
        total = (time.perf_counter() - self.start) * 1000
        ttft = self.ttft_ms or total
        text = "".join(self.text)
        return Generation(
            without_repeated_lines(text) if self.stopped_by == "repetition" else text,
            self.prompt_tokens,
            self.cached,
            self.count,
            ttft,
            total,
            self.stopped_by,
            {"decode_tokens_per_s": self._rate(total - ttft)},
        )

    def _rate(self, decode_ms: float) -> float:
        return (self.count - 1) / (decode_ms / 1000) if self.count > 1 and decode_ms > 0 else 0.0
