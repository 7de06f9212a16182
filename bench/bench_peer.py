"""The project's ingestion next to a plain LlamaIndex + Chroma pipeline, same PDFs, one run.

    bash bench/peer/setup.sh                                   # once: the peer's own venv
    .venv/bin/python -m bench.bench_peer --dataset debian [--limit N] [--peer-first] [--json]

Why: a pages/s figure alone says little; next to the usual stack on the same folder, the same
embedding model and the same machine, it says what the project buys. Each side runs in its own
child process, one after the other (never together: they share the cores): the project through
bench_ingest.measure_in_child (the `ingest` bench, tables "auto"), the peer through
bench/peer/llamaindex_ingest.py in .venv-peer. The 1-minute load average is recorded before each
so a busy machine shows in the output.

Rows: "until searchable" is the ingestion only (the model loaded and warmed up before, on both
sides); "whole process" runs from the kernel starting the child process (interpreter, imports,
model load) to searchable. "share of text embedded" is the fraction of word pieces inside the
embedder's window (all-MiniLM-L6-v2: 256 with [CLS]/[SEP]); the rest is cut silently.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.bench_ingest import ROOT, dataset_folder, measure_in_child

PEER_PYTHON = ROOT / ".venv-peer" / "bin" / "python"
PEER_SCRIPT = ROOT / "bench" / "peer" / "llamaindex_ingest.py"

# (label, project key, peer key): None where a side has no such figure.
ROWS = (
    ("pages", "pages", "pages"),
    ("chunks", "chunks", "nodes"),
    ("share of text embedded", "share_of_word_pieces_embedded", "share_of_word_pieces_embedded"),
    ("truncated chunk fraction", "truncated_chunk_fraction", "truncated_chunk_fraction"),
    ("model load + warm-up s", "model_load_s", "model_load_s"),
    ("s until searchable", "ingest_s", "ingest_s"),
    ("pages/s until searchable", "pages_per_s", "pages_per_s_ingest"),
    ("s until tables in", "until_tables_s", None),
    ("whole process s (start to searchable)", "process_start_to_searchable_s",
     "python_start_to_done_s"),
    ("whole-process pages/s", "whole_process_pages_per_s", "pages_per_s_whole_process"),
    ("peak RSS MB", "peak_rss_mb", "peak_rss_mb"),
    ("load avg (1 min) before", "loadavg_before", "loadavg_before"),
)


def run_peer(folder: Path) -> dict[str, Any]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env.pop("PYTHONPATH", None)  # the peer must not see the project's packages
    done = subprocess.run([str(PEER_PYTHON), str(PEER_SCRIPT), str(folder)], capture_output=True,
                          text=True, env=env, cwd=ROOT, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"peer failed: {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run_project(folder: Path) -> dict[str, Any]:
    # The folder is already the (limited) copy: limit 0 makes dataset_folder use it as it is.
    result = measure_in_child(str(folder), 0, "default", None, "auto")
    age = result.get("process_start_to_searchable_s")
    result["whole_process_pages_per_s"] = round(result["pages"] / age, 2) if age else None
    return result


def compare(dataset: str, limit: int, peer_first: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"dataset": f"{dataset} ({limit or 'all'} PDFs)",
                           "cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="bench-peer-") as tmp:
        # always a folder of links: LlamaIndex's reader skips every file under a hidden
        # folder ("~/.cache/..."), so both sides read the same copy
        folder = dataset_folder(dataset, limit or sys.maxsize, Path(tmp))
        sides = [("project", run_project), ("peer", run_peer)]
        for name, measure in reversed(sides) if peer_first else sides:
            load = os.getloadavg()
            result = measure(folder)
            result["loadavg_before"] = round(load[0], 2)
            result["loadavg_before_1_5_15"] = [round(x, 2) for x in load]
            out[name] = result
    out["order"] = "peer, project" if peer_first else "project, peer"
    return out


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):  # 4 significant digits: 0.4561, 1, 10.77, 595.2, 1234
        return f"{value:.0f}" if abs(value) >= 1000 else f"{value:.4g}"
    return str(value)


def table(result: dict[str, Any]) -> str:
    project, peer = result["project"], result["peer"]
    lines = [f"{result['dataset']}, {result['cpus']} CPUs, run order {result['order']}",
             f"{'':40}{'project':>12}{'peer':>12}{'project/peer':>14}"]
    for label, pkey, qkey in ROWS:
        a = project.get(pkey) if pkey else None
        b = peer.get(qkey) if qkey else None
        ratio = a / b if isinstance(a, int | float) and isinstance(b, int | float) and b else None
        lines.append(f"{label:40}{_fmt(a):>12}{_fmt(b):>12}{_fmt(ratio):>14}")
    lines.append(f"peer: {peer['pipeline']}; chunk_size {peer['chunk_size']}, "
                 f"embed batch {peer['embed_batch_size']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_peer", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", default="debian", help="debian, mmlongbench or a folder")
    parser.add_argument("--limit", type=int, default=0, help="first N PDFs only (0: all)")
    parser.add_argument("--peer-first", action="store_true", help="run the peer before")
    parser.add_argument("--json", action="store_true", help="print JSON, not the table")
    args = parser.parse_args(argv)
    if not PEER_PYTHON.exists():
        print(f"{PEER_PYTHON} is missing: run bash bench/peer/setup.sh first", file=sys.stderr)
        return 2
    result = compare(args.dataset, args.limit, args.peer_first)
    print(json.dumps(result, indent=2) if args.json else table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
