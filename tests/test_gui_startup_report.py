"""The window reports its start-up (gui/startup_report.py) for the cold-start benchmark: first
paint, then ready once the warm-up is done, then it quits by itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path


def test_the_window_reports_first_paint_then_ready_and_quits(tmp_path: Path) -> None:
    report = tmp_path / "start.json"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DESKTOP_RAG_STARTUP_REPORT": str(report),
           "DESKTOP_RAG_LAUNCHED_AT": repr(time.time())}  # fmt: skip
    gui = str(Path(sys.executable).parent / "desktop-rag-gui")
    done = subprocess.run([gui, "--data-dir", str(tmp_path / "data")], env=env,
                          capture_output=True, text=True, timeout=180, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    times = json.loads(report.read_text(encoding="utf-8"))
    assert 0 < times["painted_s"] <= times["ready_s"] < 180
