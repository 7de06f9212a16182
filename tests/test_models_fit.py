"""Hardware-fit advice over described machines, and the detection that feeds it."""

from __future__ import annotations

from pathlib import Path

from desktop_rag.catalog.fit import Verdict, assess, recommend_chat
from desktop_rag.catalog.hardware import (
    Gpu,
    Hardware,
    detect_hardware,
    parse_meminfo,
    parse_nvidia_smi,
)
from desktop_rag.catalog.loader import load_catalog

CATALOG = load_catalog(None)
PACKAGED = frozenset(e.id for e in CATALOG.entries if e.packaged is not None)


def machine(ram_gb: float, cores: int = 4, disk_gb: float = 100, vram_gb: float = 0,
            offload: bool = False) -> Hardware:
    gpus = (Gpu("NVIDIA Test", int(vram_gb * 1024)),) if vram_gb else ()
    ram = int(ram_gb * 1024)
    return Hardware(ram, ram, cores, int(disk_gb * 1024), gpus, offload)


def verdict(entry_id: str, hw: Hardware) -> Verdict:
    return assess(CATALOG.get(entry_id), hw).verdict


def recommended(hw: Hardware) -> str | None:
    best = recommend_chat(CATALOG.entries, hw, PACKAGED)
    return best[0].id if best else None


def test_meminfo_and_nvidia_smi_are_parsed() -> None:
    text = "MemTotal:       16303412 kB\nMemFree:  1000 kB\nMemAvailable:    8151706 kB\n"
    assert parse_meminfo(text) == (15921, 7960)
    assert parse_meminfo("MemTotal: 2048 kB\nMemFree: 1024 kB\n") == (2, 1)
    gpus = parse_nvidia_smi("NVIDIA GeForce RTX 3060, 12288, 11000\nNVIDIA H200, 143771, [N/A]\n")
    assert gpus == (Gpu("NVIDIA GeForce RTX 3060", 12288, 11000), Gpu("NVIDIA H200", 143771))
    assert parse_nvidia_smi("No devices were found") == ()


def test_a_small_laptop_gets_a_small_model_and_the_big_ones_do_not_fit() -> None:
    hw = machine(ram_gb=4, cores=4)
    assert verdict("qwen2.5-7b-instruct-q4km", hw) is Verdict.DOES_NOT_FIT
    assert "memory" in assess(CATALOG.get("qwen2.5-7b-instruct-q4km"), hw).reason
    assert verdict("qwen2.5-1.5b-instruct-q4km", hw) is Verdict.RUNS_WELL
    assert recommended(hw) == "qwen2.5-coder-1.5b-instruct-q4km"  # on disk wins the tie


def test_a_cpu_only_desktop_runs_big_models_slowly() -> None:
    hw = machine(ram_gb=32, cores=8)
    assert verdict("llama-3.1-8b-instruct-q4km", hw) is Verdict.RUNS_SLOWLY
    assert verdict("llama-3.2-3b-instruct-q4km", hw) is Verdict.RUNS_WELL
    assert recommended(hw) == "llama-3.2-3b-instruct-q4km"
    assert verdict("bge-m3", hw) is Verdict.RUNS_WELL  # 8 cores embed it fine


def test_a_gpu_that_holds_every_layer_gets_the_largest_model() -> None:
    hw = machine(ram_gb=16, cores=8, vram_gb=12, offload=True)
    fit = assess(CATALOG.get("llama-3.1-8b-instruct-q4km"), hw)
    assert fit.verdict is Verdict.RUNS_WELL and fit.on_gpu
    assert "GPU" in fit.reason
    assert recommended(hw) == "llama-3.1-8b-instruct-q4km"


def test_a_small_gpu_offloads_part_of_a_big_model_slowly() -> None:
    hw = machine(ram_gb=16, cores=4, vram_gb=4, offload=True)
    fit = assess(CATALOG.get("qwen2.5-7b-instruct-q4km"), hw)
    assert fit.verdict is Verdict.RUNS_SLOWLY and "only part" in fit.reason
    assert recommended(hw) == "llama-3.2-3b-instruct-q4km"  # 3.1 GB of VRAM fits in 4


def test_a_gpu_without_an_offload_build_counts_as_cpu_and_says_why() -> None:
    hw = machine(ram_gb=16, cores=4, vram_gb=24, offload=False)
    fit = assess(CATALOG.get("qwen2.5-7b-instruct-q4km"), hw)
    assert fit.verdict is Verdict.RUNS_SLOWLY
    assert "built without GPU offload" in fit.reason


def test_disk_space_decides_for_models_not_on_disk_only() -> None:
    hw = machine(ram_gb=32, cores=16, disk_gb=1)
    fit = assess(CATALOG.get("qwen2.5-7b-instruct-q4km"), hw)
    assert fit.verdict is Verdict.DOES_NOT_FIT and "disk" in fit.reason
    entry = CATALOG.get("qwen2.5-7b-instruct-q4km")
    assert assess(entry, hw, on_disk=True).verdict is Verdict.RUNS_SLOWLY
    assert verdict("qwen2.5-coder-1.5b-instruct-q4km", hw) is Verdict.RUNS_WELL  # packaged


def test_nothing_is_recommended_when_nothing_fits() -> None:
    assert recommended(machine(ram_gb=1)) is None


def test_slow_encoders_on_few_cores() -> None:
    hw = machine(ram_gb=8, cores=2)
    assert verdict("bge-m3", hw) is Verdict.RUNS_SLOWLY
    assert verdict("multilingual-e5-small", hw) is Verdict.RUNS_WELL
    assert verdict("bge-reranker-v2-m3", machine(ram_gb=2)) is Verdict.DOES_NOT_FIT


def test_detection_on_this_machine_is_plausible(tmp_path: Path) -> None:
    hw = detect_hardware(tmp_path / "not" / "yet", check_offload=False)
    assert hw.ram_mb > 256 and 0 < hw.available_mb <= hw.ram_mb
    assert hw.cpu_count >= 1 and hw.free_disk_mb > 0
    assert not hw.gpu_offload
