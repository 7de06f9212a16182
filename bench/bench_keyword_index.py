"""The persisted keyword index against the in-memory bm25s snapshot it replaced, on one library.

    python -m bench.run keyword_index --keyword-library /work/scale-data/lib-100000
        [--keyword-queries 300]

Each side in a new process: the time to be ready to search (the persisted index: map the saved
segments; the snapshot: read and index every chunk), the memory that took, keyword-only search
latency over SciFact's claims, and whether the two rank the same top 10 (scores are equal to
about 1e-6; a tie at the 10th place may fall either way).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from typing import Any

CHILD = """
import json, sys, time, statistics, psutil
from pathlib import Path
from desktop_rag.config.paths import resolve_paths
from desktop_rag.store.documents import Catalog
kind, data, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
queries = [json.loads(l)["text"] for l in open(sys.argv[4], encoding="utf-8")][:n]
paths = resolve_paths(data)
proc = psutil.Process()
rss = proc.memory_info().rss
start = time.perf_counter()
catalog = Catalog(paths.catalog_db)
if kind == "disk":
    from desktop_rag.store.keyword_index import DiskBm25Index
    index = DiskBm25Index(catalog, paths.data_dir / "keyword-index")
    index.search("warm up", 10)
    rebuilt = index.indexed_chunks
else:
    from bench.bm25s_reference import MemoryBm25Index
    index = MemoryBm25Index(catalog)
    index.warm()
    rebuilt = None
ready = time.perf_counter() - start
grown = (proc.memory_info().rss - rss) / 2**20
times, tops = [], []
for q in queries:
    t = time.perf_counter()
    hits = index.search(q, 10)
    times.append((time.perf_counter() - t) * 1000)
    tops.append([c for c, _ in hits])
times.sort()
print(json.dumps({"ready_s": round(ready, 3), "rss_growth_mb": round(grown),
                  "chunks_indexed_at_start": rebuilt,
                  "search_p50_ms": round(times[len(times) // 2], 2),
                  "search_p95_ms": round(times[int(len(times) * 0.95)], 2), "tops": tops}))
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("keyword_index")
    group.add_argument("--keyword-library", help="a data folder holding a library")
    group.add_argument("--keyword-queries", type=int, default=300)


def run(args: argparse.Namespace) -> dict[str, Any]:
    from bench.bench_retrieval import SCIFACT

    if not args.keyword_library:
        return {"skipped": "no --keyword-library"}
    out: dict[str, Any] = {}
    for kind in ("disk", "memory"):
        done = subprocess.run(
            [sys.executable, "-c", CHILD, kind, args.keyword_library, str(args.keyword_queries),
             str(SCIFACT / "queries.jsonl")], capture_output=True, text=True, check=True,
        )  # fmt: skip
        out[kind] = json.loads(done.stdout.strip().splitlines()[-1])
    disk, memory = out["disk"].pop("tops"), out["memory"].pop("tops")
    same = [len(set(a) & set(b)) / max(len(b), 1) for a, b in zip(disk, memory, strict=True)]
    out["top10_overlap_mean"] = round(sum(same) / len(same), 4)
    out["identical_top10_share"] = round(sum(a == b for a, b in zip(disk, memory,
                                                                     strict=True)) / len(disk), 4)
    return out
