"""Start-up costs: `desktop-rag --help` latency, the verified-model check, assembly throughput."""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from desktop_rag.models.assembly import AssembledModel, assemble, is_verified


def help_latency(repeats: int) -> dict[str, float]:
    cli = Path(sys.executable).parent / "desktop-rag"
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([str(cli), "--help"], capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return {"median_s": statistics.median(times), "max_s": max(times)}


def assembly(folder: Path, part_mib: int, parts: int) -> dict[str, float]:
    paths = []
    digest = hashlib.sha256()
    for n in range(parts):
        data = os.urandom(part_mib * 1024 * 1024)
        digest.update(data)
        path = folder / f"part{n}.bin"
        path.write_bytes(data)
        paths.append(path)
    model = AssembledModel("bench.gguf", digest.hexdigest(), lambda: paths)
    start = time.perf_counter()
    target = assemble(model, folder / "cache")
    first = time.perf_counter() - start
    start = time.perf_counter()
    assert is_verified(target, model.sha256, part_mib * parts * 1024 * 1024)
    again = time.perf_counter() - start
    size_mib = part_mib * parts
    return {"size_mib": size_mib, "assemble_s": first, "mib_per_s": size_mib / first,
            "verified_check_ms": again * 1000}


def run(args: argparse.Namespace) -> dict[str, Any]:
    quick = bool(args.quick)
    with tempfile.TemporaryDirectory(dir=args.data_dir) as tmp:
        return {
            "help": help_latency(3 if quick else 10),
            "assembly": assembly(Path(tmp), 8 if quick else 50, 2 if quick else 8),
        }
