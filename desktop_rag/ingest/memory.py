"""Keeps ingestion's resident memory near a budget.

Embedding batches of varying shapes fragment glibc's heap: freed tensors leave pages the
allocator keeps, and resident memory grows through a long ingestion (about 500 MB after loading
the model to about 1.5 GB after 838 PDF pages) though little of it is in use. Past the budget,
`malloc_trim` hands the free pages back to the kernel. It is not done after every batch: a trimmed
page costs a fault when it is used again (trimming after every group of documents made ingestion
about 5% slower). Linux with glibc only; elsewhere a no-op.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
from collections.abc import Callable
from functools import cache

log = logging.getLogger(__name__)


def resident_bytes() -> int | None:
    """This process's resident set size now (Linux), else None."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    return trim


class MemoryBudget:
    """`enforce()` trims the heap when resident memory is over `limit_mb` (0: never)."""

    def __init__(self, limit_mb: int) -> None:
        self.limit = limit_mb * 2**20
        self.trims = 0

    def enforce(self) -> bool:
        if self.limit <= 0:
            return False
        before = resident_bytes()
        trim = _malloc_trim()
        if before is None or before <= self.limit or trim is None:
            return False
        trim(0)
        self.trims += 1
        after = resident_bytes() or before
        log.debug("heap trimmed: %d MB -> %d MB resident", before >> 20, after >> 20)
        return True
