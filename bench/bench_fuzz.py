"""A longer fuzz run of the hardening properties (tests/test_hardening_fuzz.py): random bytes under
every supported file name, mutated PDFs, Markdown structure, the chunker, the citation parser and
the neutralisation of document text; each property gets N random (not derandomized) examples.
Every property runs in one pytest child, so a crash in native code (PyMuPDF) is caught and
reported instead of ending the benchmark.

    .venv/bin/python -m bench.run fuzz [--quick] [--fuzz-examples N]
    .venv/bin/python -m bench.bench_fuzz --examples 2000                  # standalone
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TESTS = "tests/test_hardening_fuzz.py"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--fuzz-examples", type=int, default=0, help="per property (default 2000; quick 200)"
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    return fuzz(args.fuzz_examples or (200 if args.quick else 2000))


def properties() -> list[str]:
    text = (ROOT / TESTS).read_text(encoding="utf-8")
    return re.findall(r"^def (test_\w+)", text, re.MULTILINE)


def fuzz(examples: int) -> dict[str, Any]:
    env = {**os.environ, "HARDENING_FUZZ_EXAMPLES": str(examples), "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": str(ROOT)}
    results: dict[str, Any] = {}
    for name in properties():
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "pytest", f"{TESTS}::{name}", "-q", "-p", "no:cacheprovider",
             "-x", "--hypothesis-show-statistics"],
            capture_output=True, text=True, env=env, cwd=ROOT, check=False,
        )
        results[name] = {
            "passed": done.returncode == 0,
            "seconds": round(time.perf_counter() - start, 1),
            "returncode": done.returncode,
        }
        if done.returncode != 0:
            results[name]["falsifying"] = _falsifying(done.stdout + done.stderr)
        print(json.dumps({name: results[name]}), file=sys.stderr, flush=True)
    failed = [n for n, r in results.items() if not r["passed"]]
    return {"examples_per_property": examples, "properties": len(results),
            "failed": failed, "results": results}


def _falsifying(output: str) -> str:
    at = output.find("Falsifying example")
    return output[at : at + 1500] if at >= 0 else output[-1500:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--examples", type=int, default=2000)
    args = parser.parse_args()
    print(json.dumps(fuzz(args.examples), indent=1))


if __name__ == "__main__":
    main()
