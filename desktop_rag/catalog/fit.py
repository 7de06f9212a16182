"""Hardware-fit advice: does a catalog entry run well, slowly, or not at all on this machine?

Pure functions over `Hardware`, so the same machine always gets the same advice and tests can
describe any machine. The rules are deliberately simple and stated in the reason a user sees:

- memory: the entry's `ram_mb` (weights, KV cache at the default context, buffers) must fit in
  the machine's memory with 1.5 GB left for the system and the app (else: does not fit); a chat
  model whose layers all fit in VRAM only needs a little system memory;
- disk: a model not on disk yet must fit in the model cache folder's free space;
- speed: a chat model runs well on a GPU that holds all its layers, or on a CPU when it is small
  for the cores there are (up to 1.6B, or 0.4B parameters per core, at most 4B); bigger, or only
  partly on the GPU, runs slowly. Embedders and re-rankers run on the CPU: above 0.3B
  parameters they make ingestion or re-ranking slow on fewer than 8 cores.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from desktop_rag.catalog.entries import CatalogEntry
from desktop_rag.catalog.hardware import Hardware

SYSTEM_RESERVE_MB = 1536
GPU_HOST_MB = 600  # host memory a fully offloaded chat model still uses
CPU_PARAMS_PER_CORE_B = 0.4
CPU_MIN_WELL_B = 1.6  # the packaged 1.5B default answers at a readable pace on any laptop
CPU_MAX_WELL_B = 4.0
ENCODER_SLOW_B = 0.3


class Verdict(Enum):
    RUNS_WELL = "runs well"
    RUNS_SLOWLY = "runs slowly"
    DOES_NOT_FIT = "does not fit"


@dataclass(frozen=True, slots=True)
class Fit:
    verdict: Verdict
    reason: str
    on_gpu: bool = False


def _gb(mb: int) -> str:
    return f"{mb / 1024:.1f} GB"


def assess(entry: CatalogEntry, hw: Hardware, on_disk: bool = False) -> Fit:
    """The verdict for one entry; `on_disk` entries need no free disk."""
    if not on_disk and entry.packaged is None and entry.download_mb > hw.free_disk_mb:
        return Fit(Verdict.DOES_NOT_FIT, f"needs {_gb(entry.download_mb)} of disk, "
                   f"{_gb(hw.free_disk_mb)} free in the model folder")
    if entry.kind == "chat":
        return _chat_fit(entry, hw)
    return _encoder_fit(entry, hw)


def _memory_short(need_mb: int, hw: Hardware) -> Fit | None:
    if need_mb + SYSTEM_RESERVE_MB > hw.ram_mb:
        return Fit(Verdict.DOES_NOT_FIT, f"needs {_gb(need_mb)} of memory "
                   f"(+{_gb(SYSTEM_RESERVE_MB)} for the system), this machine has {_gb(hw.ram_mb)}")
    return None


def _chat_fit(entry: CatalogEntry, hw: Hardware) -> Fit:
    if hw.usable_gpu and entry.vram_mb <= hw.vram_mb:
        short = _memory_short(GPU_HOST_MB, hw)
        return short or Fit(Verdict.RUNS_WELL, f"all layers on the GPU ({_gb(entry.vram_mb)} of "
                            f"{_gb(hw.vram_mb)} VRAM)", on_gpu=True)
    short = _memory_short(entry.ram_mb, hw)
    if short is not None:
        return short
    if hw.usable_gpu:
        return Fit(Verdict.RUNS_SLOWLY, f"needs {_gb(entry.vram_mb)} of VRAM, the GPU has "
                   f"{_gb(hw.vram_mb)}: only part of it is offloaded", on_gpu=True)
    where = _cpu_reason(hw)
    limit = min(CPU_MAX_WELL_B, max(CPU_MIN_WELL_B, CPU_PARAMS_PER_CORE_B * hw.cpu_count))
    if entry.params_b <= limit:
        return Fit(Verdict.RUNS_WELL, f"{entry.params_b:g}B parameters on {where}")
    return Fit(Verdict.RUNS_SLOWLY, f"{entry.params_b:g}B parameters on {where}: "
               f"expect a few tokens a second (well up to {limit:g}B here)")


def _cpu_reason(hw: Hardware) -> str:
    cores = f"{hw.cpu_count} CPU core{'s' if hw.cpu_count != 1 else ''}"
    if hw.gpus and not hw.gpu_offload:
        return f"{cores} (llama.cpp was built without GPU offload)"
    return cores


def _encoder_fit(entry: CatalogEntry, hw: Hardware) -> Fit:
    short = _memory_short(entry.ram_mb, hw)
    if short is not None:
        return short
    what = "ingestion" if entry.kind == "embedder" else "re-ranking"
    if entry.params_b > ENCODER_SLOW_B and hw.cpu_count < 8:
        return Fit(Verdict.RUNS_SLOWLY, f"{entry.params_b:g}B parameters on "
                   f"{hw.cpu_count} CPU cores: {what} is several times slower")
    return Fit(Verdict.RUNS_WELL, f"{_gb(entry.ram_mb)} of memory, runs on the CPU")


def recommend_chat(
    entries: list[CatalogEntry] | tuple[CatalogEntry, ...], hw: Hardware,
    on_disk: frozenset[str] = frozenset(),
) -> tuple[CatalogEntry, Fit] | None:
    """The chat model to suggest: the largest that runs well (a packaged or downloaded one wins a
    tie), else the smallest that runs at all; None when nothing fits."""
    chats = [e for e in entries if e.kind == "chat"]
    fits = [(e, assess(e, hw, e.id in on_disk)) for e in chats]
    well = [(e, f) for e, f in fits if f.verdict is Verdict.RUNS_WELL]
    if well:
        return max(well, key=lambda ef: (ef[0].params_b, ef[0].id in on_disk,
                                         ef[0].packaged is not None))
    slow = [(e, f) for e, f in fits if f.verdict is Verdict.RUNS_SLOWLY]
    return min(slow, key=lambda ef: ef[0].params_b) if slow else None
