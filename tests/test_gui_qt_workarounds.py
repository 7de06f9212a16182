"""The PySide6 6.12.0 defect that makes every Python-side signal emit take a reference from True
(after enough emits CPython 3.11 aborts), and the work-around the app applies at start."""

from __future__ import annotations

import subprocess
import sys

import pytest

from desktop_rag.gui.qt_workarounds import (
    IMMORTAL_REFERENCES,
    _refcount_field_is_first,
    emit_drops_a_true_reference,
    keep_true_alive,
)

pytestmark = pytest.mark.gui
EMITS = 200_000
CHILD = f"""
import sys
from desktop_rag.gui.qt_workarounds import _Probe, keep_true_alive
if sys.argv[1] == "with":
    keep_true_alive()
probe = _Probe()
for _ in range({EMITS}):
    probe.ping.emit()
print("alive")
"""


def run_child(mode: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", CHILD, mode], capture_output=True, text=True,
                          timeout=120, check=False)


def test_the_work_around_is_applied_exactly_where_emits_leak() -> None:
    applied = keep_true_alive()
    leaks = emit_drops_a_true_reference()
    assert applied == (leaks and _refcount_field_is_first())
    if applied:
        assert sys.getrefcount(True) > IMMORTAL_REFERENCES // 2


def test_a_process_survives_many_emits_with_the_work_around() -> None:
    result = run_child("with")
    assert result.returncode == 0 and result.stdout.strip() == "alive", result.stderr[-2000:]


def test_without_it_the_defect_aborts_the_process_where_emits_leak() -> None:
    """Shows the work-around is needed: where this PySide6 leaks, the plain process dies."""
    if not (emit_drops_a_true_reference() and _refcount_field_is_first()):
        pytest.skip("this PySide6 / Python does not have the defect")
    result = run_child("without")
    assert result.returncode != 0 and "bool_dealloc" in result.stderr, result.stderr[-2000:]


NONE_CHILD = """
import sys
from PySide6.QtCore import QCoreApplication, QTimer
from desktop_rag.gui.qt_workarounds import keep_none_alive, keep_true_alive
keep_true_alive()
app = QCoreApplication([])
if sys.argv[1] == "with":
    keep_none_alive()
for _ in range(60_000):  # more timer callbacks than None has references (about 5,000 here)
    QTimer.singleShot(0, lambda: None)
    if _ % 1000 == 0:
        app.processEvents()
app.processEvents()
print("alive")
"""


def test_the_none_work_around_is_applied_exactly_where_timers_leak(qapp: object) -> None:
    from desktop_rag.gui.qt_workarounds import keep_none_alive, single_shot_drops_a_none_reference

    applied = keep_none_alive()
    leaks = single_shot_drops_a_none_reference()
    assert applied == (leaks and _refcount_field_is_first())
    if applied:
        assert sys.getrefcount(None) > IMMORTAL_REFERENCES // 2


def test_timer_callbacks_need_the_none_work_around_where_they_leak() -> None:
    survived = subprocess.run([sys.executable, "-c", NONE_CHILD, "with"], capture_output=True,
                              text=True, timeout=300, check=False)  # fmt: skip
    assert survived.returncode == 0 and survived.stdout.strip() == "alive", survived.stderr[-2000:]
    plain = subprocess.run([sys.executable, "-c", NONE_CHILD, "without"], capture_output=True,
                           text=True, timeout=300, check=False)  # fmt: skip
    if plain.returncode == 0:
        pytest.skip("this PySide6 / Python does not leak None in timer callbacks")
    assert "none_dealloc" in plain.stderr, plain.stderr[-2000:]
