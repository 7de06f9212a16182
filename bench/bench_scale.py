"""Large libraries: what a user with 100,000 to 1,000,000 chunks waits for, and how much memory
and disk it takes.

    python -m bench.run scale [--scale-sizes 100000,300000] [--scale-read-sizes 1000000]
        [--scale-dir DIR]
        [--scale-runs 3] [--scale-queries 100] [--scale-sync-files 10000] [--scale-skip-edit]
        [--scale-skip-gui]

Libraries are synthetic (bench/scale_library.py: real sentences, a realistic length mix, random
unit 384-d vectors) and built once under --scale-dir (`lib-<chunks>`), as after an ingestion and
the first app session (keyword index built, vector copy written). Per size, medians of
--scale-runs new processes (bench/scale_child.py): time to ready (embedder, vectors, keyword
index: the core), resident memory without a chat model, warm hybrid p50/p95 over the whole
library, one document and ten documents; then a cold CLI `search`, the app window's first paint
and ready (offscreen, bench_cold.app_start; --scale-skip-gui leaves it out), the disk per
chunk, and the time to add one 50-page PDF (the first 50 pages of a 10-K, table pass included)
and to remove it again, against the same PDF added to an empty library. Once: a sync of an
unchanged followed folder of --scale-sync-files Markdown files (bench_sync's notes).

--scale-read-sizes builds `read-<chunks>` instead: the catalog, keyword index and vector copy
written directly, with realistic vectors (bench/scale_vectors.py), and Chroma left empty. A
million chunks through Chroma's own inserts would take hours on 2 cores (177 chunks/s at
300,000 and slowing), so at that size an add measures what the app writes (catalog, keyword
index, vector copy) and Chroma's insert into an empty collection, not into a million rows.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.bench_cold import CLI, MMLB, SEARCH, median_wall
from bench.scale_library import build_info, library, read_library

REPORT = "3M_2018_10K.pdf"  # 10-K: the first 50 pages are the PDF added


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("scale")
    group.add_argument("--scale-sizes", default="100000,300000")
    group.add_argument("--scale-dir", default=str(Path.home() / ".cache" / "desktop-rag" / "scale"),
                       help="where the libraries are built once and kept")
    group.add_argument("--scale-read-sizes", default="",
                       help="sizes built as read-path libraries (scale_library.read_library): "
                       "catalog, keyword index and vector copy, Chroma empty")
    group.add_argument("--scale-server", action="store_true",
                       help="also serve each library's Chroma folder with `chroma run` and "
                       "measure the app in server mode ([store] mode = \"server\")")
    group.add_argument("--scale-runs", type=int, default=3, help="new processes per size")
    group.add_argument("--scale-queries", type=int, default=100, help="queries per scope")
    group.add_argument("--scale-sync-files", type=int, default=10_000, help="0: no sync figure")
    group.add_argument("--scale-skip-edit", action="store_true", help="no add/remove figures")
    group.add_argument("--scale-skip-gui", action="store_true", help="no app start figures")


def run(args: argparse.Namespace) -> dict[str, Any]:
    folder = Path(args.scale_dir)
    folder.mkdir(parents=True, exist_ok=True)
    sizes = [3_000] if args.quick else [int(s) for s in args.scale_sizes.split(",") if s.strip()]
    runs = 2 if args.quick else args.scale_runs
    result: dict[str, Any] = {"load_average_at_start": round(os.getloadavg()[0], 1)}
    pdf = fifty_pages(folder)
    if not args.scale_skip_edit:
        with tempfile.TemporaryDirectory(dir=folder) as tmp:
            result["empty_library"] = add_remove(Path(tmp) / "lib", pdf)
    read_sizes = [int(s) for s in args.scale_read_sizes.split(",") if s.strip()]
    for n, read_path in [(n, False) for n in sizes] + [(n, True) for n in read_sizes]:
        data = read_library(folder, n) if read_path else library(folder, n)
        out: dict[str, Any] = {"build": build_info(data)}
        out.update(ready_and_warm(data, runs, 20 if args.quick else args.scale_queries))
        out["cold_cli_search_s"] = median_wall([CLI, "--data-dir", str(data), "search", SEARCH],
                                               runs)  # fmt: skip
        if not args.scale_skip_gui:
            out["gui"] = gui_start(data, runs)
        out["disk"] = disk(data, n)
        if not args.scale_skip_edit:  # on a read-path library: what the app writes, Chroma empty
            out.update(add_remove(data, pdf))
        if args.scale_server and not read_path:
            out["server"] = server_mode(data, runs, 20 if args.quick else args.scale_queries)
        result[f"{n}_chunks{'_read_path' if read_path else ''}"] = out
    if args.scale_sync_files:
        result["sync"] = sync_unchanged(folder, 200 if args.quick else args.scale_sync_files)
    result["load_average_at_end"] = round(os.getloadavg()[0], 1)
    return result


def ready_and_warm(data: Path, runs: int, queries: int) -> dict[str, Any]:
    found: list[dict[str, float]] = []
    for _ in range(runs):
        env = {**os.environ, "DESKTOP_RAG_LAUNCHED_AT": repr(time.time()),
               "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}  # fmt: skip
        out = subprocess.run([sys.executable, "-m", "bench.scale_child", str(data), str(queries)],
                             capture_output=True, text=True, env=env, check=True)  # fmt: skip
        found.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {key: round(statistics.median(float(f[key] or 0) for f in found), 3) for key in found[0]}


def server_mode(data: Path, runs: int, queries: int) -> dict[str, Any]:
    """The same library with its vectors served by a Chroma server (`chroma run` on its own
    Chroma folder, started now): ready and warm searches in new processes, and a cold `search`.
    The vector copy is not used in server mode: every dense search is a request."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from server_procs import chroma_server

    settings = data / "config" / "settings.toml"
    kept = settings.read_text(encoding="utf-8") if settings.exists() else None
    try:
        with chroma_server(data / "data" / "chroma", data / "chroma-server.log") as port:
            settings.parent.mkdir(parents=True, exist_ok=True)
            settings.write_text(f'[store]\nmode = "server"\nhost = "127.0.0.1"\nport = {port}\n'
                                'database = "default_database"\n', encoding="utf-8")  # fmt: skip
            out = ready_and_warm(data, runs, queries)
            out["cold_cli_search_s"] = median_wall([CLI, "--data-dir", str(data), "search",
                                                    SEARCH], runs)  # fmt: skip
            return out
    finally:
        if kept is None:
            settings.unlink(missing_ok=True)
        else:
            settings.write_text(kept, encoding="utf-8")


def gui_start(data: Path, runs: int) -> dict[str, Any]:
    """The app (offscreen) from launch to its first paint and to ready (bench_cold.app_start)."""
    from bench.bench_cold import app_start

    try:
        return app_start(str(data), runs)
    except (subprocess.SubprocessError, OSError, KeyError, ValueError) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}


def disk(data: Path, n: int) -> dict[str, Any]:
    base = data / "data"
    parts = {"catalog": sum(_size(p) for p in base.glob("catalog.sqlite3*")),
             "chroma": _size(base / "chroma"), "vector_copy": _size(base / "vector-snapshot"),
             "keyword_index": _size(base / "keyword-index")}  # fmt: skip
    total = sum(parts.values())
    return {"total_mb": round(total / 2**20), "bytes_per_chunk": round(total / n),
            **{f"{k}_bytes_per_chunk": round(v / n) for k, v in parts.items()}}


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def fifty_pages(folder: Path) -> Path:
    import pymupdf

    target = folder / "report-50-pages.pdf"
    if not target.exists():
        source = pymupdf.open(MMLB / REPORT)
        doc = pymupdf.open()
        doc.insert_pdf(source, from_page=0, to_page=49)
        doc.save(target)
    return target


def add_remove(data: Path, pdf: Path) -> dict[str, float]:
    """Adds `pdf` (copied into a folder of its own) and removes it again, in one process."""
    import shutil

    from desktop_rag.bootstrap import build_context
    from desktop_rag.services import Services

    drop = data.parent / f"drop-{data.name}"
    drop.mkdir(parents=True, exist_ok=True)
    copy = drop / pdf.name
    shutil.copy(pdf, copy)
    services = Services(build_context(str(data)))
    try:
        services.ctx.embedder.embed_query("warm up")
        start = time.perf_counter()
        report = services.ingest([copy])
        added = time.perf_counter() - start
        assert not report.failed, report.failed
        start = time.perf_counter()
        services.library.remove([copy])
        removed = time.perf_counter() - start
    finally:
        services.close()
    return {"add_s": round(added, 2), "remove_s": round(removed, 2)}


def sync_unchanged(folder: Path, files: int) -> dict[str, Any]:
    """bench_sync's folder of Markdown notes, ingested once, then synced unchanged."""
    from bench.bench_sync import measure, write_note

    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        for n in range(files):
            write_note(Path(tmp) / "notes", n)
        return measure(Path(tmp) / "notes", Path(tmp) / "data", files, "default")
