"""Files shipped with the GUI (icon, the sample PDF), in one small module that the app, the
window and the smoke test all import without importing each other."""

from __future__ import annotations

from pathlib import Path

RESOURCES = Path(__file__).with_name("resources")
SAMPLE = (RESOURCES / "sample.pdf").resolve()  # two pages; the smoke test ingests it
