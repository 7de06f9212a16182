"""Fault injection: SIGKILL at random points while a child ingests a real folder (MMLongBench PDFs),
then checks, after every kill: no document indexed before the trial is lost, the interrupted work
is never half-visible (no indexed chunk without its vector or FTS row), the next ingestion
completes, and the `doctor --check` consistency check passes (catalog, Chroma and FTS agree chunk
for chunk). Between trials the folder changes (files added, one removed, a note edited), so kills
also land in updates and removals. A trial whose child finishes before its kill is reported but
does not count: trials go on until N kills have landed mid-run. Each trial first times the same
work uninterrupted on a copy-and-restore of the library, then kills at a time drawn uniformly from
that length, so the kills spread over the whole of a run.

    .venv/bin/python -m bench.run faults [--quick] [--faults-trials N] [--faults-embedder real|hash]
                                         [--faults-core-trials N]
    .venv/bin/python -m bench.bench_faults --trials 20 --embedder real --core-trials 5

Also SIGKILLs a core cache build (real SmolLM2) at random points: see bench/faults_core.py.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT.parent / "shared" / "data" / "mmlongbench" / "documents"
CHILD = ROOT / "tests" / "hardening_child.py"
MAX_ATTEMPTS_PER_KILL = 4  # a trial whose child finishes before its kill does not count
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--faults-trials", type=int, default=0, help="kills (default 20; quick 4)")
    parser.add_argument("--faults-embedder", choices=("real", "hash"), default="")
    parser.add_argument("--faults-seed", type=int, default=1)
    parser.add_argument("--faults-core-trials", type=int, default=-1, help="default 5; quick 2")


def run(args: argparse.Namespace) -> dict[str, Any]:
    trials = args.faults_trials or (4 if args.quick else 20)
    embedder = args.faults_embedder or ("hash" if args.quick else "real")
    core = args.faults_core_trials if args.faults_core_trials >= 0 else (2 if args.quick else 5)
    return run_trials(trials, embedder, args.faults_seed, args.data_dir, core)


def pool() -> list[Path]:
    """The smallest real PDFs first (each trial stays short)."""
    if not SOURCE.is_dir():
        raise SystemExit(f"{SOURCE} not found (the shared benchmark data)")
    return sorted(SOURCE.glob("*.pdf"), key=lambda p: p.stat().st_size)[:16]


def run_trials(
    trials: int, embedder: str, seed: int, data_dir: str | None, core_trials: int = 0
) -> dict[str, Any]:
    from bench.faults_core import core_trials as run_core_trials

    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(dir=data_dir) as tmp:
        work = Path(tmp)
        folder, lib, spare = work / "docs", work / "lib", pool()
        folder.mkdir()
        for pdf in spare[:3]:
            shutil.copy(pdf, folder)
        first = verify(lib, folder, embedder, set())  # the starting library, not killed
        indexed = set(first["indexed"])
        rows: list[dict[str, Any]] = []
        while _kills(rows) < trials and len(rows) < MAX_ATTEMPTS_PER_KILL * trials:
            change = mutate(folder, spare, rng, len(rows) + 1)
            length = timed_run(lib, folder, embedder, work / "lib-before")
            kill_at = rng.uniform(0.0, length)
            killed, _ = kill_during_ingest(lib, folder, embedder, kill_at)
            gone = {p for p in indexed if not Path(p).exists()}
            result = verify(lib, folder, embedder, indexed - gone)
            rows.append({"trial": len(rows) + 1, "change": change, "run_s": round(length, 2),
                         "kill_after_s": round(kill_at, 2), "killed": killed, **summary(result)})
            indexed = set(result["indexed"])
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
        result = report(rows, embedder)
        result["core_cache"] = run_core_trials(core_trials, work, seed)
        return result


def mutate(folder: Path, spare: list[Path], rng: random.Random, trial: int) -> str:
    present = sorted(folder.glob("*.pdf"))
    unused = [p for p in spare if not (folder / p.name).exists()]
    roll = rng.random()
    if roll < 0.2 and len(present) > 2:
        victim = rng.choice(present)
        victim.unlink()
        return f"removed {victim.name}"
    if roll < 0.4:
        note = folder / "note.md"
        note.write_text(f"# Trial note\n\nTrial {trial} wrote this note about kestrel{trial}.\n")
        return "edited note.md"
    if unused:
        added = rng.sample(unused, k=min(2, len(unused)))
        for pdf in added:
            shutil.copy(pdf, folder)
        return "added " + ", ".join(p.name for p in added)
    return "none"


def timed_run(lib: Path, folder: Path, embedder: str, backup: Path) -> float:
    """How long this trial's ingestion takes uninterrupted: run it on the library, then put the
    library back as it was (so the killed run does the same work)."""
    shutil.rmtree(backup, ignore_errors=True)
    shutil.copytree(lib, backup)
    _, took = kill_during_ingest(lib, folder, embedder, 24 * 3600.0)
    shutil.rmtree(lib)
    shutil.copytree(backup, lib)
    return took or 0.0


def _kills(rows: list[dict[str, Any]]) -> int:
    return sum(str(r["killed"]).startswith("killed") for r in rows)


def kill_during_ingest(
    lib: Path, folder: Path, embedder: str, after_s: float
) -> tuple[str, float | None]:
    """Starts the ingest child and SIGKILLs it `after_s` seconds after its models are loaded.
    Returns what happened and, when the child finished first, how long its ingestion took."""
    child = subprocess.Popen(
        [sys.executable, str(CHILD), str(lib), str(folder), "--embedder", embedder],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV, cwd=ROOT,
    )
    assert child.stdout is not None
    lines = [child.stdout.readline().strip()]
    began, took = time.monotonic(), None
    timer = threading.Timer(after_s, child.send_signal, (signal.SIGKILL,))
    timer.start()
    for line in child.stdout:
        lines.append(line.strip())
        took = time.monotonic() - began if lines[-1] == "finished" else took
    child.wait()
    timer.cancel()
    if took is not None:
        return "finished before the kill", took
    done = [ln for ln in lines if ln.startswith("file-done")]
    stage = done[-1] if done else ("loading" if "started" not in lines else "file-done 0")
    return f"killed ({stage})", None


VERIFY = """
import json, sys, time
from pathlib import Path
from desktop_rag.bootstrap import build_context
from desktop_rag.services.doctor import consistency_check
from desktop_rag.domain import DocStatus
from desktop_rag.services import Services
from desktop_rag.domain.fakes import HashEmbedder, WordTokenCounter

lib, folder, embedder, before = sys.argv[1], sys.argv[2], sys.argv[3], set(json.loads(sys.argv[4]))
start = time.perf_counter()
overrides = {"embedder": HashEmbedder(), "token_counter": WordTokenCounter()}
services = Services(build_context(lib, overrides=overrides if embedder == "hash" else None))
services.ctx.embedder.embed_query("warm up")
load_s = time.perf_counter() - start
after_kill = services.check_consistency()
docs = services.list_documents()
indexed_now = {d.path for d in docs if d.status is DocStatus.INDEXED}
start = time.perf_counter()
report = services.ingest([folder])
ingest_s = time.perf_counter() - start
check = consistency_check(services)
final = services.list_documents()
print(json.dumps({
    "after_kill": {k: after_kill[k] for k in ("documents", "missing_vectors", "orphan_vectors",
                                              "missing_sparse", "orphan_sparse")},
    "lost": sorted(before - indexed_now),
    "resumed": [o.outcome.value for o in report.outcomes],
    "failed": [(o.path, o.reason) for o in report.outcomes if o.outcome.value == "failed"],
    "consistent": check.ok, "detail": check.detail,
    "indexed": sorted(d.path for d in final if d.status is DocStatus.INDEXED),
    "not_indexed": sorted(d.path for d in final if d.status is not DocStatus.INDEXED),
    "ingest_s": ingest_s, "load_s": load_s,
}))
services.close()
"""


def verify(lib: Path, folder: Path, embedder: str, before: set[str]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", VERIFY, str(lib), str(folder), embedder, json.dumps(sorted(before))],
        capture_output=True, text=True, env=ENV, cwd=ROOT, check=False, timeout=1800,
    )
    if done.returncode != 0:
        return {"error": done.stderr[-2000:], "indexed": sorted(before), "ingest_s": 0.0,
                "load_s": 0.0}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def summary(result: dict[str, Any]) -> dict[str, Any]:
    if "error" in result:
        return {"ok": False, "error": result["error"]}
    after = result["after_kill"]
    half_visible = after["missing_vectors"] + after["missing_sparse"] + after["orphan_sparse"]
    ok = not result["lost"] and not half_visible and result["consistent"] and not (
        result["not_indexed"]
    )
    return {"ok": ok, "lost": result["lost"], "half_visible_chunks": half_visible,
            "interrupted_docs": after["documents"].get("pending", 0)
            + after["documents"].get("removing", 0),
            "orphan_vectors_after_kill": after["orphan_vectors"],
            "consistent_after_next_run": result["consistent"], "detail": result["detail"],
            "resumed_ingest_s": round(result["ingest_s"], 2)}


def report(rows: list[dict[str, Any]], embedder: str) -> dict[str, Any]:
    failures = [r for r in rows if not r["ok"]]
    return {
        "embedder": embedder,
        "trials": len(rows),
        "killed_mid_run": _kills(rows),
        "failures": len(failures),
        "documents_lost": sum(len(r.get("lost", [])) for r in rows),
        "trials_with_interrupted_docs": sum(r.get("interrupted_docs", 0) > 0 for r in rows),
        "consistent_after_every_next_run": all(r.get("consistent_after_next_run") for r in rows),
        "failure_rows": failures[:5],
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--embedder", choices=("real", "hash"), default="real")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--core-trials", type=int, default=5)
    parser.add_argument("--data-dir")
    args = parser.parse_args()
    result = run_trials(args.trials, args.embedder, args.seed, args.data_dir, args.core_trials)
    result.pop("rows")
    result["core_cache"].pop("rows", None)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
