"""Benchmark runner: `python -m bench.run [NAME ...] [--quick] [--data-dir DIR] [--out FILE]`.

Each benchmark is a module bench/bench_<name>.py exposing `run(args) -> dict` (metric -> value;
values may be nested dicts) and optionally `add_arguments(parser)` for its own options. The runner
prints one table (benchmark, metric, value) and writes every result, with the machine and commit,
as JSON to bench/results/<utc time>.json (ignored by git) or to --out.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
RESULTS_DIR = BENCH_DIR / "results"
log = logging.getLogger("bench")


def available() -> list[str]:
    return sorted(p.stem.removeprefix("bench_") for p in BENCH_DIR.glob("bench_*.py"))


def load(name: str) -> ModuleType:
    return importlib.import_module(f"bench.bench_{name}")


def build_parser(modules: dict[str, ModuleType]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__)
    parser.add_argument("names", nargs="*", help=f"benchmarks (default: all): {available()}")
    parser.add_argument("--quick", action="store_true", help="small sizes, to prove it works")
    parser.add_argument("--data-dir", help="work folder (default: a temporary one per benchmark)")
    parser.add_argument("--profile", choices=("default", "tiny"), default="default")
    parser.add_argument("--out", type=Path, help="JSON file to write (default: bench/results/)")
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    for module in modules.values():
        if hasattr(module, "add_arguments"):
            module.add_arguments(parser)
    return parser


def flatten(prefix: str, value: Any) -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        rows: list[tuple[str, Any]] = []
        for key, inner in value.items():
            rows += flatten(f"{prefix}.{key}" if prefix else str(key), inner)
        return rows
    return [(prefix, value)]


def fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def table(results: dict[str, dict[str, Any]]) -> str:
    rows = [(name, key, fmt(v)) for name, res in results.items() for key, v in flatten("", res)]
    widths = [max(len(r[i]) for r in [("benchmark", "metric", "value"), *rows]) for i in range(3)]
    lines = []
    for row in [("benchmark", "metric", "value"), tuple("-" * w for w in widths), *rows]:
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    return "\n".join(lines)


def machine() -> dict[str, Any]:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "commit": commit,
        "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def run_one(name: str, module: ModuleType, args: argparse.Namespace) -> dict[str, Any]:
    start = time.perf_counter()
    try:
        result = dict(module.run(args))
    except Exception as exc:  # one failing benchmark must not lose the others' results
        log.exception("benchmark %s failed", name)
        result = {"error": f"{type(exc).__name__}: {exc}"}
    result["wall_s"] = round(time.perf_counter() - start, 3)
    return result


def write(document: dict[str, Any], out: Path | None) -> Path:
    if out is None:
        RESULTS_DIR.mkdir(exist_ok=True)
        out = RESULTS_DIR / f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(document, indent=2, default=str) + "\n", encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    modules = {name: load(name) for name in available()}
    args = build_parser(modules).parse_args(argv)
    if args.list:
        print("\n".join(available()))
        return 0
    unknown = [n for n in args.names if n not in modules]
    if unknown:
        print(f"unknown benchmark(s): {unknown}; available: {available()}", file=sys.stderr)
        return 2
    results = {n: run_one(n, modules[n], args) for n in args.names or list(modules)}
    print(table(results))
    path = write({"machine": machine(), "args": vars(args), "results": results}, args.out)
    print(f"\nJSON: {path}")
    return 1 if any("error" in r for r in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
