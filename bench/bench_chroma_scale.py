"""Embedded Chroma itself at a large size: what the app's vector store pays when it writes to a
collection of a million vectors, and the memory a write leaves behind.

    python -m bench.run chroma_scale [--chroma-size 1000000] [--chroma-dir DIR] [--chroma-runs 2]
        [--chroma-server] [--chroma-report]

The scale benchmark's million-chunk library (bench_scale, --scale-read-sizes) leaves Chroma
empty, so its add and remove figures do not include Chroma's own cost. This one fills a
collection under --chroma-dir (`chroma-<size>`, kept: about 12 minutes and 3 GB at a million)
with random unit 384-d vectors through Chroma's bulk upsert, writes the app's vector copy of it
once, then in new processes, through the app's own vector store (store/vector_snapshot.py over
store/vectors.py): a first query (from the copy), an add of 300 vectors (a 50-page report's
chunks), the copy brought up to date, a query, and the removal of the 300. Each step's time
and the process's own (anonymous) memory after it, with Chroma's index released once the copy
is current (as the app does) and kept (as it did before). --chroma-server adds the same writes
through a Chroma server (`chroma run` on the same folder, `[store] mode = "server"`), whose
process keeps the index loaded between writes: three rounds after its first request.
--chroma-report adds the scale benchmark's 50-page report through `Services.ingest` (table pass
included) and removes it, in a new process each run, into the folder's data folder (Chroma at
the full size) and into an empty one.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

DIM = 384
BATCH = 5000
ADDED = 300  # the chunks of a 50-page report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("chroma_scale")
    group.add_argument("--chroma-size", type=int, default=1_000_000)
    default = Path.home() / ".cache" / "desktop-rag" / "chroma"
    group.add_argument("--chroma-dir", default=str(default))
    group.add_argument("--chroma-runs", type=int, default=2)
    group.add_argument("--chroma-server", action="store_true", help="also through a server")
    group.add_argument("--chroma-report", action="store_true", help="also add a 50-page report")


def run(args: argparse.Namespace) -> dict[str, Any]:
    size = 5_000 if args.quick else args.chroma_size
    folder = Path(args.chroma_dir) / f"chroma-{size}"
    built = fill(folder, size)
    result: dict[str, Any] = {"vectors": size, "fill": built}
    for mode in ("released", "kept"):
        runs = [_child(folder, mode) for _ in range(1 if args.quick else args.chroma_runs)]
        result[mode] = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    if getattr(args, "chroma_server", False):
        result["server"] = through_server(folder, 3)
    if getattr(args, "chroma_report", False):
        result["report"] = add_report(folder, 1 if args.quick else args.chroma_runs)
    return result


def add_report(folder: Path, runs: int) -> dict[str, Any]:
    """Median add and remove times of the 50-page report, into the filled folder and into an
    empty one, with each run's add time."""
    import tempfile

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(dir=folder) as empty:
        for name, data in (("empty", Path(empty) / "app"), ("filled", folder / "app")):
            got = [_child(folder, "report", data) for _ in range(runs)]
            out[name] = {key: statistics.median(r[key] for r in got) for key in got[0]}
            out[name]["add_runs_s"] = [r["add_s"] for r in got]
    return out


def _report(data: Path) -> dict[str, float]:
    from bench.bench_scale import add_remove, fifty_pages

    return add_remove(data, fifty_pages(data.parent))


def through_server(folder: Path, rounds: int) -> dict[str, Any]:
    """Adds and removes through a Chroma server on the folder's collection; the server's own
    memory after them."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from server_procs import chroma_server  # type: ignore[import-not-found]

    from desktop_rag.config import StoreSettings
    from desktop_rag.store.vectors import open_vector_index

    chroma = _paths(folder).chroma_dir.resolve()
    with chroma_server(chroma, folder / "server.log") as port:
        store = StoreSettings(mode="server", host="127.0.0.1", port=port,
                              tenant="default_tenant", database="default_database")
        began = time.perf_counter()
        index = open_vector_index(_paths(folder), store, "chunks", follow=False)
        out: dict[str, Any] = {"first_request_s": round(time.perf_counter() - began, 3)}
        index.count()  # the server loads the collection's index
        out["first_count_s"] = round(time.perf_counter() - began, 3)
        rng = np.random.default_rng(11)
        adds, removes = [], []
        for r in range(rounds):
            ids = [f"server:{r}:{i}" for i in range(ADDED)]
            began = time.perf_counter()
            index.upsert(ids, _unit(rng, ADDED), ["server"] * ADDED)
            adds.append(time.perf_counter() - began)
            began = time.perf_counter()
            index.delete(ids)
            removes.append(time.perf_counter() - began)
        out["add_s"] = round(statistics.median(adds), 3)
        out["remove_s"] = round(statistics.median(removes), 3)
        out.update(_server_queries(index, rng))
        out["server_own_mb"] = _server_own_mb(port)
    return out


def _server_queries(index: Any, rng: np.random.Generator, n: int = 50) -> dict[str, float]:
    """Dense search latency through the server, p50/p95 ms: the whole collection, and one
    document (a `doc_id` filter: `fill` gives each document 300 vectors)."""
    from desktop_rag.domain import DocScope

    out: dict[str, float] = {}
    for name, scope in (("whole", None), ("one_document", DocScope(only=frozenset({"d7"})))):
        times = []
        for query in _unit(rng, n):
            began = time.perf_counter()
            index.query(query, 10) if scope is None else index.query(query, 10, scope)
            times.append((time.perf_counter() - began) * 1000)
        times.sort()
        out[f"query_{name}_p50_ms"] = round(times[n // 2], 1)
        out[f"query_{name}_p95_ms"] = round(times[int(n * 0.95) - 1], 1)
    return out


def _server_own_mb(port: int) -> int:
    """The `chroma run` process's anonymous memory (0 when it cannot be found)."""
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmdline.read_bytes().split(b"\0")
            if b"run" not in args or str(port).encode() not in args:
                continue
            for line in (cmdline.parent / "status").read_text("ascii").splitlines():
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) // 1024
        except OSError:
            continue
    return 0


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    vectors = rng.standard_normal((n, DIM)).astype(np.float32)
    return np.asarray(vectors / np.linalg.norm(vectors, axis=1, keepdims=True), np.float32)


def _paths(folder: Path) -> Any:
    from desktop_rag.config.paths import resolve_paths

    return resolve_paths(folder / "app")


def store(folder: Path) -> Any:
    """The app's vector store over the folder's Chroma, as bootstrap builds it."""
    from desktop_rag.config import StoreSettings
    from desktop_rag.store.stamp import STAMP_NAME
    from desktop_rag.store.vector_snapshot import SnapshotVectorIndex
    from desktop_rag.store.vectors import open_vector_index

    paths = _paths(folder)
    return SnapshotVectorIndex(
        paths.data_dir / "vector-snapshot" / "chunks", paths.chroma_dir / STAMP_NAME, "chunks",
        lambda: open_vector_index(paths, StoreSettings(), "chunks"),
    )


def fill(folder: Path, size: int) -> dict[str, float]:
    """The collection of `size` vectors and its copy, made once (kept under `folder`)."""
    done = folder / "filled.json"
    if done.exists():
        return dict(json.loads(done.read_text(encoding="utf-8")))
    _paths(folder).ensure()
    index = store(folder)
    rng = np.random.default_rng(size)
    began = time.perf_counter()
    for start in range(0, size, BATCH):
        n = min(BATCH, size - start)
        ids = [f"d{i // ADDED}:{i}" for i in range(start, start + n)]
        index.source.upsert(ids, _unit(rng, n), [i.split(":")[0] for i in ids])
    filled_s = time.perf_counter() - began
    began = time.perf_counter()
    index.refresh()
    built = {"fill_s": round(filled_s, 1), "copy_s": round(time.perf_counter() - began, 1)}
    index.close()
    done.write_text(json.dumps(built), encoding="utf-8")
    return built


def _child(folder: Path, mode: str, data: Path | None = None) -> dict[str, float]:
    extra = [str(data)] if data is not None else []
    out = subprocess.run(
        [sys.executable, "-m", "bench.bench_chroma_scale", str(folder), mode, *extra],
        check=True, capture_output=True, text=True,
    ).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def own_mb() -> int:
    """The process's anonymous resident memory (its own, not mapped file pages)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) // 1024
    return 0


def measure(folder: Path, mode: str) -> dict[str, float]:
    """One new process's steps (see the module docstring)."""
    if mode == "kept":
        from desktop_rag.store.vectors import ChromaVectorIndex

        ChromaVectorIndex.release = lambda self: None  # type: ignore[method-assign]
    index = store(folder)
    rng = np.random.default_rng(time.time_ns() % 2**32)
    query, added = _unit(rng, 1)[0], _unit(rng, ADDED)
    ids = [f"added:{time.time_ns()}:{i}" for i in range(ADDED)]
    out: dict[str, float] = {}

    def step(name: str, action: Any) -> None:
        began = time.perf_counter()
        action()
        out[f"{name}_s"] = round(time.perf_counter() - began, 3)
        out[f"{name}_own_mb"] = own_mb()

    step("first_query", lambda: index.query(query, 10))
    step("add", lambda: index.upsert(ids, added, ["added"] * ADDED))
    step("refresh", index.refresh)
    step("query", lambda: index.query(query, 10))
    step("remove", lambda: (index.delete(ids), index.refresh()))
    return out


if __name__ == "__main__":
    if sys.argv[2] == "report":
        print(json.dumps(_report(Path(sys.argv[3]))))
    else:
        print(json.dumps(measure(Path(sys.argv[1]), sys.argv[2])))
