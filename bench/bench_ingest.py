"""Ingestion throughput and quality of the chunks the embedder sees.

    .venv/bin/python bench/fetch_bench_data.py            # once: the Debian PDFs
    .venv/bin/python -m bench.run ingest [--quick] [--ingest-dataset debian|mmlongbench|PATH]
                                         [--ingest-limit N]
    .venv/bin/python -m bench.bench_ingest --dataset debian --limit 5    # standalone

The measurement runs in a child process so that its peak RSS is its own. Reported: pages/s,
chunks/s, embedded word pieces/s, the share of word pieces the embedder sees (1.0 = nothing cut),
the truncated-chunk fraction, peak RSS, on-disk size, the embedder-alone time on the same chunks
(same length-sorted batches) and the ratio end-to-end / embedder-alone, and the re-ingest time of
the unchanged folder.

Text first, tables after: `ingest_s` and `pages_per_s` are until the library is searchable from
the text (the pages that look tabular queued); `tables_s` is the table pass after it, and
`until_tables_s` / `pages_per_s_with_tables` until every queued page's tables are in.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATASETS = {
    "debian": Path.home() / ".cache" / "desktop-rag" / "bench-data" / "debian",
    "mmlongbench": ROOT.parent / "shared" / "data" / "mmlongbench" / "documents",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ingest-dataset", default="debian", help="debian, mmlongbench or a folder"
    )
    parser.add_argument("--ingest-limit", type=int, default=0, help="first N PDFs only (0: all)")
    parser.add_argument("--ingest-tables", choices=("auto", "off"), default="auto",
                        help="ingest.tables for the run (paired runs: both)")


def run(args: argparse.Namespace) -> dict[str, Any]:
    limit = args.ingest_limit or (5 if args.quick else 0)
    return measure_in_child(
        args.ingest_dataset, limit, args.profile, args.data_dir, args.ingest_tables
    )


def dataset_folder(name: str, limit: int, work: Path) -> Path:
    source = DATASETS.get(name, Path(name))
    if not source.is_dir():
        hint = "run bench/fetch_bench_data.py" if name == "debian" else "check the path"
        raise SystemExit(f"dataset folder {source} not found ({hint})")
    if not limit:
        return source
    folder = work / "docs"
    folder.mkdir()
    for pdf in sorted(source.glob("*.pdf"))[:limit]:
        (folder / pdf.name).symlink_to(pdf)
    return folder


def measure_in_child(
    dataset: str, limit: int, profile: str, data_dir: str | None, tables: str = "auto"
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(dir=data_dir) as tmp:
        folder = dataset_folder(dataset, limit, Path(tmp))
        cmd = [sys.executable, "-m", "bench.bench_ingest", "--child", str(folder),
               "--data-dir", str(Path(tmp) / "lib"), "--profile", profile, "--tables", tables]
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"child failed: {done.stderr[-2000:]}")
        result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        result["dataset"] = f"{dataset} ({limit or 'all'} PDFs)"
        result["tables"] = tables
        return result


def _du(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


class _CallTimer:
    seconds = 0.0


def _time_calls(embedder: Any) -> _CallTimer:
    """Sums the time spent inside embedder.embed_documents (wrapped on the instance)."""
    timer, inner = _CallTimer(), embedder.embed_documents

    def timed(texts: Any) -> Any:
        began = time.perf_counter()
        try:
            return inner(texts)
        finally:
            timer.seconds += time.perf_counter() - began

    embedder.embed_documents = timed
    return timer


def _cpu_s(who: int) -> float:
    """CPU seconds of this process, or of its children that have ended (only the table pass's
    workers start any: read at the end of the run, when they have been reaped)."""
    used = resource.getrusage(who)
    return used.ru_utime + used.ru_stime


def _process_age_s() -> float:
    """Seconds since the kernel started this process (interpreter start-up and imports included):
    field 22 of /proc/self/stat, in clock ticks after boot. bench_peer's whole-process numbers."""
    ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
    return float(Path("/proc/uptime").read_text().split()[0]) - ticks / os.sysconf("SC_CLK_TCK")


def _embed_alone(embedder: Any, texts: list[str]) -> float:
    """The embedder given every distinct chunk text in one call (its own batching)."""
    start = time.perf_counter()
    embedder.embed_documents(sorted(set(texts), key=len))
    return time.perf_counter() - start


def child(folder: Path, data_dir: Path, profile: str, tables: str = "auto") -> dict[str, Any]:
    from desktop_rag.bootstrap import build_context
    from desktop_rag.services import Services

    services = Services(build_context(str(data_dir), profile))
    ctx = services.ctx
    ctx.update_settings({"ingest.tables": tables})
    start = time.perf_counter()
    embedder, _ = ctx.embedder, ctx.token_counter
    embedder.embed_documents(["warm up"])  # one-time kernel set-up, not ingestion
    load_s = time.perf_counter() - start
    timer = _time_calls(embedder)
    began, cpu_began = time.perf_counter(), _cpu_s(resource.RUSAGE_SELF)
    report = services.ingest([folder], tables_now=False)
    in_embedder_s, text_cpu_s = timer.seconds, _cpu_s(resource.RUSAGE_SELF) - cpu_began
    searchable_age_s = _process_age_s()
    queued = services.tables_pending()
    table_pass = services.enrich_tables()
    until_tables_s = time.perf_counter() - began
    tables_age_s = _process_age_s()
    tables_cpu_s = _cpu_s(resource.RUSAGE_SELF) - cpu_began - text_cpu_s
    ingest_peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    again = services.ingest([folder])
    docs = [d for d in services.list_documents() if d.status.value == "indexed"]
    texts = [c.text for d in docs for c in services.document_chunks(d.doc_id)]
    pieces = embedder.count_word_pieces(texts)
    limit = embedder.max_word_pieces - 2
    unique = dict(zip(texts, pieces, strict=True))
    alone_s = _embed_alone(embedder, texts)
    pages, seconds = sum(d.pages for d in docs), report.seconds
    outcomes: dict[str, int] = {}
    for o in report.outcomes:
        outcomes[o.outcome.value] = outcomes.get(o.outcome.value, 0) + 1
    return {
        "embedder": embedder.name, "documents": len(docs), "pages": pages, "chunks": len(texts),
        "outcomes": outcomes, "model_load_s": round(load_s, 2), "ingest_s": round(seconds, 2),
        "pages_per_s": round(pages / seconds, 2), "chunks_per_s": round(len(texts) / seconds, 2),
        "table_pages_queued": sum(queued.values()), "table_documents_queued": len(queued),
        "tables_found": table_pass.tables, "table_chunks": table_pass.chunks,
        "table_failures": len(table_pass.failures), "tables_s": round(table_pass.seconds, 2),
        "until_tables_s": round(until_tables_s, 2),
        "text_cpu_s": round(text_cpu_s, 1),  # this process; the table workers' CPU below
        "tables_cpu_s": round(tables_cpu_s + _cpu_s(resource.RUSAGE_CHILDREN), 1),
        "pages_per_s_with_tables": round(pages / until_tables_s, 2),
        "process_start_to_searchable_s": round(searchable_age_s, 2),
        "process_start_to_tables_s": round(tables_age_s, 2),
        "embedded_word_pieces_per_s": round(sum(unique.values()) / seconds, 1),
        "mean_word_pieces_per_chunk": round(sum(pieces) / max(len(pieces), 1), 1),
        "share_of_word_pieces_embedded": round(
            sum(min(p, limit) for p in pieces) / max(sum(pieces), 1), 4),
        "truncated_chunk_fraction": round(sum(p > limit for p in pieces) / max(len(pieces), 1), 4),
        "ingest_time_in_embedder_s": round(in_embedder_s, 2),
        "embedder_alone_s": round(alone_s, 2),
        "ingest_over_embedder_alone": round(seconds / alone_s, 3) if alone_s else None,
        "reingest_unchanged_s": round(again.seconds, 3),
        "reingest_embedded_chunks": again.embedded_chunks,
        "peak_rss_mb": round(ingest_peak_mb, 1),
        "peak_rss_mb_with_embedder_alone_run": round(
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "on_disk_mb": round(_du(data_dir) / 2**20, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_ingest", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--profile", default="default")
    parser.add_argument("--dataset", default="debian")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--tables", choices=("auto", "off"), default="auto")
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(child(args.child, args.data_dir, args.profile, args.tables)))
        return 0
    data_dir = str(args.data_dir) if args.data_dir else None
    result = measure_in_child(args.dataset, args.limit, args.profile, data_dir, args.tables)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
