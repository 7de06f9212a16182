"""Work-arounds for defects of the installed Qt binding, each one detected before it is applied.

PySide6 6.12.0 returns True from `SignalInstance.emit()` without taking a reference to it, so
every signal emitted from Python takes one reference from the interpreter's True. In a running
app True holds about 50,000 references; streamed tokens, progress events and job results are all
emits, so after some hours of use CPython 3.11 deallocates True and aborts ("Fatal Python error:
bool_dealloc"). CPython 3.12 made True immortal (PEP 683) for this very kind of defect; on 3.11
the same is done here by hand: once the leak is seen, True gets 2**40 references it never loses.
"""

from __future__ import annotations

import ctypes
import logging
import sys
from functools import cache

from PySide6.QtCore import QObject, Signal

log = logging.getLogger(__name__)
PROBE_EMITS = 16
IMMORTAL_REFERENCES = 1 << 40  # ~10**12 leaking emits before it could matter


class _Probe(QObject):
    ping = Signal()


def emit_drops_a_true_reference() -> bool:
    """True when a signal emitted from Python takes a reference from True."""
    probe = _Probe()
    before = sys.getrefcount(True)
    for _ in range(PROBE_EMITS):
        probe.ping.emit()
    return before - sys.getrefcount(True) >= PROBE_EMITS // 2


def _refcount_field_is_first() -> bool:
    """CPython before 3.12 without Py_TRACE_REFS: ob_refcnt is an object's first field."""
    return (sys.implementation.name == "cpython" and sys.version_info < (3, 12)
            and not hasattr(sys, "getobjects"))


@cache
def keep_true_alive() -> bool:
    """Applies the work-around where the leak is seen; True when it was applied."""
    if not _refcount_field_is_first() or not emit_drops_a_true_reference():
        return False
    ctypes.c_ssize_t.from_address(id(True)).value += IMMORTAL_REFERENCES
    log.info("this PySide6 leaks a reference to True per signal emit; True made immortal")
    return True
