"""The core (everything but desktop_rag.gui) imports and runs with PySide6 unavailable."""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import importlib, importlib.abc, pkgutil, sys, tempfile

    attempts = []

    class BlockQt(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "PySide6" or name.startswith("PySide6."):
                attempts.append(name)
                raise ImportError(f"{name} is blocked: the core must not import Qt")
            return None

    sys.meta_path.insert(0, BlockQt())
    import desktop_rag

    names = [
        m.name for m in pkgutil.walk_packages(desktop_rag.__path__, "desktop_rag.")
        if not m.name.startswith("desktop_rag.gui")
    ]
    for name in names:
        importlib.import_module(name)

    from desktop_rag.bootstrap import build_context
    from desktop_rag.config import Settings
    from desktop_rag.doctor import run_doctor
    from desktop_rag.testing import FakeChatEngine, HashEmbedder, WordTokenCounter

    fakes = {"embedder": HashEmbedder(), "engine": FakeChatEngine(),
             "token_counter": WordTokenCounter()}
    with tempfile.TemporaryDirectory() as folder:
        ctx = build_context(folder, "tiny", fakes, Settings(profile="tiny"))
        report = run_doctor(ctx)
        assert all(c.ok for c in report.models), report.models
        ctx.close()
    assert not attempts, attempts
    assert not [m for m in sys.modules if m.startswith("PySide6")]
    print("imported", len(names), "core modules")
    """
)


def test_core_imports_and_runs_without_qt() -> None:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stderr[-3000:]
    count = int(result.stdout.split()[1])
    assert count >= 20  # every core module was imported, not just a few


def test_gui_package_is_the_one_that_imports_qt() -> None:
    """The blocker really blocks: importing a GUI module with it installed fails."""
    script = SCRIPT.split("import desktop_rag\n")[0] + textwrap.dedent(
        """
        try:
            import PySide6.QtCore
        except ImportError:
            print("blocked")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.stdout.strip() == "blocked", result.stderr
