"""What this machine has for running models: memory, free disk, cores, GPU and VRAM.

Detection is kept apart from the advice (`fit.py`): the advice is pure functions over a
`Hardware` value, so tests give it any machine they like; detection reads /proc/meminfo (or
sysconf), `nvidia-smi` when it is installed, and asks llama.cpp whether it was built with GPU
offload, and never fails: what it cannot learn it reports as unknown or absent.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Gpu:
    name: str
    vram_mb: int
    free_mb: int | None = None


@dataclass(frozen=True, slots=True)
class Hardware:
    ram_mb: int  # total memory
    available_mb: int  # memory not in use now (MemAvailable)
    cpu_count: int
    free_disk_mb: int  # in the model cache folder
    gpus: tuple[Gpu, ...] = ()
    gpu_offload: bool = False  # llama.cpp built with CUDA/Metal/Vulkan offload

    @property
    def vram_mb(self) -> int:
        """The largest GPU's memory: llama.cpp puts one model's layers on one GPU by default."""
        return max((g.vram_mb for g in self.gpus), default=0)

    @property
    def usable_gpu(self) -> bool:
        return self.gpu_offload and self.vram_mb > 0


def parse_meminfo(text: str) -> tuple[int, int]:
    """(total, available) in MiB from /proc/meminfo's text (values in kB)."""
    values: dict[str, int] = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            values[key.strip()] = int(parts[0]) // 1024
    total = values.get("MemTotal", 0)
    return total, values.get("MemAvailable", values.get("MemFree", total))


def parse_nvidia_smi(text: str) -> tuple[Gpu, ...]:
    """GPUs from `nvidia-smi --query-gpu=name,memory.total,memory.free --format=csv,noheader,
    nounits` (one 'name, total, free' line each, MiB)."""
    gpus = []
    for line in text.strip().splitlines():
        fields = [f.strip() for f in line.rsplit(",", 2)]
        if len(fields) == 3 and fields[1].isdigit():
            free = int(fields[2]) if fields[2].isdigit() else None
            gpus.append(Gpu(fields[0], int(fields[1]), free))
    return tuple(gpus)


def detect_memory() -> tuple[int, int]:
    try:
        return parse_meminfo(Path("/proc/meminfo").read_text(encoding="ascii"))
    except OSError:
        pass
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // MIB
        free = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // MIB
        return total, free
    except (ValueError, OSError, AttributeError):
        return 0, 0


def detect_gpus() -> tuple[Gpu, ...]:
    if shutil.which("nvidia-smi") is None:
        return ()
    query = ["nvidia-smi", "--query-gpu=name,memory.total,memory.free",
             "--format=csv,noheader,nounits"]
    try:
        result = subprocess.run(query, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    return parse_nvidia_smi(result.stdout) if result.returncode == 0 else ()


def detect_offload() -> bool:
    """Whether llama.cpp can offload layers (imports llama.cpp's library, as doctor does)."""
    try:
        from desktop_rag.llm.llama_loading import gpu_offload_supported

        return gpu_offload_supported()
    except Exception:  # a missing or broken llama.cpp build: no offload
        return False


def free_disk_mb(folder: Path) -> int:
    path = folder
    while not path.exists() and path != path.parent:
        path = path.parent
    return shutil.disk_usage(path).free // MIB


def detect_hardware(model_cache_dir: Path, check_offload: bool = True) -> Hardware:
    total, available = detect_memory()
    return Hardware(
        ram_mb=total, available_mb=available, cpu_count=os.cpu_count() or 1,
        free_disk_mb=free_disk_mb(model_cache_dir), gpus=detect_gpus(),
        gpu_offload=detect_offload() if check_offload else False,
    )
