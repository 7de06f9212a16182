"""Engine-independent pieces of a generation loop: UTF-8 streaming and the repetition guard."""

from __future__ import annotations

import codecs
from collections.abc import Sequence


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
