"""Work-arounds for defects of the installed Qt binding, each one detected before it is applied.

PySide6 6.12.0 returns True from `SignalInstance.emit()` without taking a reference to it, so
every signal emitted from Python takes one reference from the interpreter's True. In a running
app True holds about 50,000 references; streamed tokens, progress events and job results are all
emits, so after some hours of use CPython 3.11 deallocates True and aborts ("Fatal Python error:
bool_dealloc"). CPython 3.12 made True immortal (PEP 683) for this very kind of defect; on 3.11
the same is done here by hand: once the leak is seen, True gets 2**40 references it never loses.

The same PySide6 takes a reference from None for every Python callable a `QTimer.singleShot`
runs (measured: 1,000 calls, None 1,000 references poorer); the app aborted mid-answer with
"none_dealloc" after a long summary. Once that leak is seen, None gets the same treatment.
"""

from __future__ import annotations

import ctypes
import logging
import sys
from functools import cache

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal

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


def single_shot_drops_a_none_reference() -> bool:
    """True when a Python callable run by QTimer.singleShot takes a reference from None (needs
    a QCoreApplication to run the timers)."""
    if QCoreApplication.instance() is None:
        return False
    QCoreApplication.processEvents()
    before = sys.getrefcount(None)
    for _ in range(PROBE_EMITS):
        QTimer.singleShot(0, _nothing)
    for _ in range(4):
        QCoreApplication.processEvents()
    return before - sys.getrefcount(None) >= PROBE_EMITS // 2


def _nothing() -> None:
    """What the probe's timers run."""


@cache
def keep_none_alive() -> bool:
    """Applies the None work-around where its leak is seen (call it once a QApplication exists);
    True when it was applied."""
    if not _refcount_field_is_first() or not single_shot_drops_a_none_reference():
        return False
    ctypes.c_ssize_t.from_address(id(None)).value += IMMORTAL_REFERENCES
    log.info("this PySide6 leaks a reference to None per timer callback; None made immortal")
    return True
