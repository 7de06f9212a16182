"""Engine-independent pieces of a generation loop: streaming, bounds, the repetition guard."""

from __future__ import annotations

import codecs
import contextlib
import time
from collections.abc import Iterator, Sequence
from typing import Protocol

from desktop_rag.progress import CancelToken
from desktop_rag.protocols import Generation, TokenCallback


class Utf8Stream:
    """Turns token byte pieces into text pieces without splitting multi-byte characters."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def feed(self, data: bytes) -> str:
        return self._decoder.decode(data)

    def flush(self) -> str:
        return self._decoder.decode(b"", final=True)


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
        self.stopped_by = "stop"
        self.text: list[str] = []
        self._stream = Utf8Stream()
        self._guard = RepetitionGuard()

    def consume(self, tokens: Iterator[int], max_tokens: int) -> None:
        with contextlib.closing(tokens):  # type: ignore[type-var]
            for token in tokens:
                if self._step(token, max_tokens):
                    break
        self._emit(self._stream.flush())

    def _step(self, token: int, max_tokens: int) -> bool:
        if self.count == 0:
            self.ttft_ms = (time.perf_counter() - self.start) * 1000
        if self.engine.is_end(token):
            return True
        self.count += 1
        self._emit(self._stream.feed(self.engine.piece(token)))
        return self._should_stop(token, max_tokens)

    def _should_stop(self, token: int, max_tokens: int) -> bool:
        if self.cancel is not None and self.cancel.cancelled:
            self.stopped_by = "cancel"
        elif self._guard.add(token):
            self.stopped_by = "repetition"
        elif self.count >= max_tokens:
            self.stopped_by = "length"
        return self.stopped_by != "stop"

    def _emit(self, piece: str) -> None:
        if piece:
            self.text.append(piece)
            if self.on_token is not None:
                self.on_token(piece)

    def result(self) -> Generation:
        total = (time.perf_counter() - self.start) * 1000
        ttft = self.ttft_ms or total
        return Generation(
            "".join(self.text),
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
