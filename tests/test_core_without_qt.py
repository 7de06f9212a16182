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
    from desktop_rag.services.doctor import run_doctor
    from desktop_rag.domain.fakes import FakeChatEngine, HashEmbedder, WordTokenCounter

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


HEAVY = (
    "torch", "sentence_transformers", "onnxruntime", "llama_cpp", "chromadb", "pymupdf", "fitz",
    "bm25s",
)
# Known exceptions to "one adapter module per heavy library" (reported to the lead; keep short).
EXTRA_IMPORTERS = {
    "sentence_transformers": {"desktop_rag/retrieval/st_cross_encoder.py"},
    # the table pass's faster stand-ins for PyMuPDF helpers (its character list among them), and
    # its workers setting PyMuPDF's layout model (run by onnxruntime) to one thread: extensions
    # of the PDF adapter
    "onnxruntime": {"desktop_rag/ingest/table_speedups.py"},
    "pymupdf": {"desktop_rag/ingest/table_speedups.py", "desktop_rag/ingest/table_chars.py"},
}


def heavy_importers() -> dict[str, set[str]]:
    import ast
    from pathlib import Path

    package = Path(__file__).resolve().parent.parent / "desktop_rag"
    users: dict[str, set[str]] = {name: set() for name in HEAVY}
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for top in {n.split(".")[0] for n in names} & set(HEAVY):
                users[top].add(path.relative_to(package.parent).as_posix())
    return users


def test_each_heavy_library_has_one_adapter_module() -> None:
    for name, modules in heavy_importers().items():
        extra = EXTRA_IMPORTERS.get(name, set())
        assert len(modules - extra) <= 1, f"{name} is imported by {sorted(modules)}"


def test_heavy_adapters_import_lazily() -> None:
    """No heavy library is imported at module level: importing the core loads none of them."""
    code = (
        "import importlib, pkgutil, sys, desktop_rag\n"
        "for m in pkgutil.walk_packages(desktop_rag.__path__, 'desktop_rag.'):\n"
        "    if not m.name.startswith('desktop_rag.gui'):\n"
        "        importlib.import_module(m.name)\n"
        f"print(sorted(h for h in {HEAVY!r} if h in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().splitlines()[-1] == "[]"
