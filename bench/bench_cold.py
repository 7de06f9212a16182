"""Cold starts as a user meets them: each command in a new process, timed from launch, the median
of several runs, on the default path (ONNX embedder, vector copy) and the torch path (torch
embedder, Chroma opened) side by side.

    python -m bench.run cold [--cold-library DATA_DIR] [--cold-runs N] [--cold-skip-ask]

The app is timed from launch to its first paint and to ready (offscreen). Without
--cold-library it ingests five MMLongBench PDFs (../shared/data) into a temporary
library. `ask` is timed to its first streamed byte on stdout (the first token); its `--json`
twin gives the prompt's size and its prefill time, so the wait beyond the prefill is shown.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

DOCS = ("2310.05634v2.pdf", "STEPBACK.pdf", "honor_watch_gs_pro.pdf", "DSA-278777.pdf",
        "tacl_a_00660.pdf")  # fmt: skip
MMLB = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "mmlongbench" / "documents"
SEARCH = "hotel booking reference"
QUESTION = "What is step-back prompting?"
CORE_QUESTION = "What do the abstracts say about microstructural development of white matter?"
PATHS = {  # settings.toml of each path
    "onnx": "",
    "torch": '[models]\nembedder_backend = "torch"\n[store]\nvector_snapshot = false\n',
}
CLI = str(Path(sys.executable).parent / "desktop-rag")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("cold")
    group.add_argument("--cold-library", help="a data folder holding a library (default: built)")
    group.add_argument("--cold-runs", type=int, default=5, help="runs per figure (median)")
    group.add_argument("--cold-skip-ask", action="store_true", help="no chat model runs")
    group.add_argument("--cold-large", type=int, default=37_000,
                       help="chunks of the synthetic large library searched cold (0: none)")


def median_wall(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs + 1):  # the first run warms the page cache and is not counted
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=True, env=_env())
        times.append(time.perf_counter() - start)
    return round(statistics.median(times[1:]), 3)


def _env() -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}


def first_byte_s(argv: list[str]) -> float:
    """Seconds from launch to the first byte on stdout (an answer's first token)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_env())
    assert proc.stdout is not None
    proc.stdout.read(1)
    first = time.perf_counter() - start
    proc.communicate()
    return first


def ask_figures(data: str, runs: int, question: str = QUESTION) -> dict[str, float]:
    ask = [CLI, "--data-dir", data, "ask", question]
    firsts = [first_byte_s(ask) for _ in range(runs)]
    done = subprocess.run([*ask, "--json"], capture_output=True, check=True, env=_env())
    timings = json.loads(done.stdout)["timings"]
    first = statistics.median(firsts)
    prefill = float(timings.get("prefill_ms", 0)) / 1000
    return {"first_token_s": round(first, 3), "prefill_s": round(prefill, 3),
            "beyond_prefill_s": round(first - prefill, 3),
            "prompt_tokens": timings.get("prompt_tokens", 0)}  # fmt: skip


def warm_ask(data: str, runs: int) -> dict[str, float]:
    """In the app's service layer, everything loaded: each question's first token against its
    own prefill (the prompt's uncached part)."""
    from desktop_rag.bootstrap import build_context
    from desktop_rag.services import Services

    services = Services(build_context(data))
    try:
        services.ask("What does the first document say?")  # loads the model and the embedder
        beyond, first = [], []
        for n in range(runs):
            timings = services.ask(f"{QUESTION} ({n + 1})").timings
            first.append(timings["ttft_ms"] / 1000)
            beyond.append((timings["ttft_ms"] - timings["generation_ttft_ms"]) / 1000)
    finally:
        services.close()
    return {"first_token_s": round(statistics.median(first), 3),
            "beyond_prefill_s": round(statistics.median(beyond), 3)}  # fmt: skip


def app_start(data: str, runs: int) -> dict[str, float]:
    """Launch to the window's first paint and to ready (gui/startup_report.py), offscreen."""
    gui = str(Path(sys.executable).parent / "desktop-rag-gui")
    painted, ready = [], []
    for n in range(runs):
        report = Path(data).parent / f"start-{n}.json"
        env = {**_env(), "QT_QPA_PLATFORM": "offscreen", "DESKTOP_RAG_STARTUP_REPORT": str(report),
               "DESKTOP_RAG_LAUNCHED_AT": repr(time.time())}  # fmt: skip
        subprocess.run([gui, "--data-dir", data], env=env, capture_output=True, timeout=120,
                       check=True)  # fmt: skip
        times = json.loads(report.read_text(encoding="utf-8"))
        painted.append(times["painted_s"])
        ready.append(times["ready_s"])
    return {"painted_s": statistics.median(painted), "ready_s": statistics.median(ready)}


def large_library(folder: Path, chunks: int) -> str:
    """A synthetic library of `chunks` chunks (bench_retrieval's: SciFact sentences, random unit
    vectors), closed so that its vector copy is written as after an ingestion."""
    from bench.bench_retrieval import build_library as build_synthetic
    from desktop_rag.bootstrap import build_context

    data = str(folder / f"large-{chunks}")
    ctx = build_context(data)
    try:
        build_synthetic(ctx, chunks, ctx.embedder.dim)
    finally:
        ctx.close()
    return data


def build_library(folder: Path) -> str:
    docs = folder / "docs"
    docs.mkdir(parents=True)
    for name in DOCS:
        shutil.copy(MMLB / name, docs / name)
    data = str(folder / "library")
    subprocess.run([CLI, "--data-dir", data, "ingest", str(docs)], check=True, env=_env(),
                   capture_output=True)  # fmt: skip
    return data


def variant(source: str, folder: Path, name: str) -> str:
    target = folder / name
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("vector-snapshot"))
    settings = target / "config" / "settings.toml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(PATHS[name], encoding="utf-8")
    subprocess.run([CLI, "--data-dir", str(target), "search", SEARCH], check=True, env=_env(),
                   capture_output=True)  # fmt: skip  # leaves the vector copy behind
    return str(target)


def core_note(folder: Path, chars: int = 14_000) -> Path:
    """A note of about 3,500 tokens of SciFact abstracts, to pin as the core."""
    corpus = MMLB.parents[1] / "scifact" / "corpus.jsonl"
    parts: list[str] = []
    with corpus.open(encoding="utf-8") as lines:
        for line in lines:
            doc = json.loads(line)
            parts.append(f"## {doc.get('title', '')}\n\n{doc['text']}\n")
            if sum(map(len, parts)) > chars:
                break
    note = folder / "core-abstracts.md"
    note.write_text("# Abstracts\n\n" + "\n".join(parts), encoding="utf-8")
    return note


def cached_core(data: str) -> dict[str, float]:
    pinned = str(core_note(Path(data).parent))
    for argv in (["ingest", pinned], ["core", "add", pinned], ["core", "build"]):
        subprocess.run([CLI, "--data-dir", data, *argv], check=True, env=_env(),
                       capture_output=True)  # fmt: skip
    return ask_figures(data, 3, CORE_QUESTION)


def run(args: argparse.Namespace) -> dict[str, Any]:
    runs = 2 if args.quick else int(args.cold_runs)
    with tempfile.TemporaryDirectory(dir=args.data_dir) as tmp:
        folder = Path(tmp)
        source = args.cold_library or build_library(folder)
        result: dict[str, Any] = {"help_s": median_wall([CLI, "--help"], runs)}
        for name in PATHS:
            data = variant(source, folder, name)
            result[f"search_{name}_s"] = median_wall(
                [CLI, "--data-dir", data, "search", SEARCH], runs)
            result[f"app_{name}"] = app_start(data, runs)
            if not args.cold_skip_ask:
                result[f"ask_{name}"] = ask_figures(data, 3)
        if args.cold_large:
            large = large_library(folder, 2_000 if args.quick else int(args.cold_large))
            result[f"search_{args.cold_large}_chunks_s"] = median_wall(
                [CLI, "--data-dir", large, "search", SEARCH], runs)
        if not args.cold_skip_ask:
            result["ask_warm_in_app"] = warm_ask(str(folder / "onnx"), 3)
        if not args.cold_skip_ask and args.cold_library is None:
            result["ask_cached_core"] = cached_core(str(folder / "onnx"))
        return result
