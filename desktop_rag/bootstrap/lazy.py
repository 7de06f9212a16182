"""One way of building a heavy part on first use: `Lazy[T]`, thread-safe, resettable.

The composition root holds one per heavy resource, so `--help` never loads a model and a part
built by one thread is seen, whole, by the others.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Lazy(Generic[T]):
    """Builds its value with `build` on the first `get`, once, whichever thread asks first."""

    def __init__(self, build: Callable[[], T], value: T | None = None) -> None:
        self._build = build
        self._value = value
        self._lock = threading.Lock()

    def get(self) -> T:
        value = self._value
        if value is not None:
            return value
        with self._lock:
            if self._value is None:
                self._value = self._build()
            return self._value

    @property
    def loaded(self) -> bool:
        return self._value is not None

    def set(self, value: T) -> None:
        """Puts a ready-made value in (a test's fake, or a part shared with another context)."""
        with self._lock:
            self._value = value

    def take(self) -> T | None:
        """Forgets the value and hands it back (to close it, or to leave it to its owner)."""
        with self._lock:
            value, self._value = self._value, None
            return value
