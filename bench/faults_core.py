"""Kill trials for the CAG core cache (used by bench_faults): a child prefills and saves the core
with the real SmolLM2 and is SIGKILLed at a random moment; a second child then checks that the
core is not reported as `building`, that the next build succeeds and leaves `ready`, and that no
partial state file remains.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}

COMMON = """
import json, sys, time
from pathlib import Path
from desktop_rag.bootstrap import build_context
from desktop_rag.services import Services
from desktop_rag.domain.fakes import HashEmbedder, WordTokenCounter

lib, folder = sys.argv[1], Path(sys.argv[2])
overrides = {"embedder": HashEmbedder(), "token_counter": WordTokenCounter()}
services = Services(build_context(lib, profile="tiny", overrides=overrides))
services.ctx.update_settings({"llm.context_size": 4096})
services.ctx.update_settings({"llm.max_tokens": 16})
"""

SETUP = COMMON + """
folder.mkdir(parents=True, exist_ok=True)
words = " ".join(f"Clause {i}: staff member {i} gets {i % 30} vacation days." for i in range(80))
(folder / "handbook.md").write_text("# Handbook\\n\\n" + words, encoding="utf-8")
services.ingest([folder])
services.core_add([folder / "handbook.md"])
start = time.perf_counter()
services.core_build()
status = services.core_status()
print(json.dumps({"build_s": time.perf_counter() - start, "tokens": status.total_tokens}))
for f in services.ctx.paths.core_cache_dir.glob("core-*"):
    f.unlink()
"""

BUILD = COMMON + """
services.ctx.engine
print("started", flush=True)
services.core_build()
print("finished", flush=True)
"""

VERIFY = COMMON + """
cache = services.ctx.paths.core_cache_dir
after_kill = services.core_status().state
leftovers = sorted(p.name for p in cache.glob("core-*.tmp*"))
status = services.core_build()
answer = services.ask("How many vacation days does staff member 7 get?")
print(json.dumps({
    "state_after_kill": after_kill, "partial_files_after_kill": leftovers,
    "state_after_build": status.state,
    "partial_files_after_build": sorted(p.name for p in cache.glob("core-*.tmp*")),
    "answered": bool(answer.answer),
}))
"""


def _run(code: str, lib: Path, folder: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", code, str(lib), str(folder)], capture_output=True, text=True,
        env=ENV, cwd=ROOT, check=False, timeout=900,
    )
    if done.returncode != 0:
        return {"error": done.stderr[-1500:]}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _kill_build(lib: Path, folder: Path, after_s: float) -> str:
    child = subprocess.Popen(
        [sys.executable, "-c", BUILD, str(lib), str(folder)], stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True, env=ENV, cwd=ROOT,
    )
    assert child.stdout is not None
    child.stdout.readline()  # started: the model is loaded
    timer = threading.Timer(after_s, child.send_signal, (signal.SIGKILL,))
    timer.start()
    lines = [line.strip() for line in child.stdout]
    child.wait()
    timer.cancel()
    return "finished before the kill" if "finished" in lines else "killed"


def core_trials(trials: int, work: Path, seed: int) -> dict[str, Any]:
    if trials <= 0:
        return {"trials": 0}
    rng = random.Random(seed)
    lib, folder = work / "core-lib", work / "core-docs"
    setup = _run(SETUP, lib, folder)
    if "error" in setup:
        return {"trials": 0, "error": setup["error"]}
    rows = []
    for trial in range(1, trials + 1):
        after = rng.uniform(0.0, 1.3 * setup["build_s"])
        started = time.perf_counter()
        killed = _kill_build(lib, folder, after)
        result = _run(VERIFY, lib, folder)
        ok = "error" not in result and result["state_after_kill"] != "building" and (
            result["state_after_build"] == "ready" and not result["partial_files_after_build"]
        )
        rows.append({"trial": trial, "kill_after_s": round(after, 2), "killed": killed, "ok": ok,
                     "seconds": round(time.perf_counter() - started, 1), **result})
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    return {
        "trials": trials, "core_tokens": setup["tokens"], "build_s": round(setup["build_s"], 2),
        "killed_mid_build": sum(r["killed"] == "killed" for r in rows),
        "failures": sum(not r["ok"] for r in rows),
        "partial_files_seen_after_kill": sum(bool(r.get("partial_files_after_kill")) for r in rows),
        "rows": rows,
    }
