"""The table pass's reading alone: the candidate pages of some PDFs read in the page workers, as
the pass reads them (tables and pictures' words), timed, with every table written out so that
two runs can be compared object for object.

    python -m bench.bench_table_pages FOLDER --out ours.json [--processes 2] [--limit 400]
    python -m bench.bench_table_pages FOLDER --out own.json --own     # PyMuPDF's own helpers
    python -m bench.bench_table_pages --compare own.json ours.json

`--own` leaves PyMuPDF's table helpers as PyMuPDF ships them (no stand-ins from
ingest/table_speedups.py, no shared text pages), in the workers too. `--limit` spreads the pages
over the folder's documents (every n-th candidate page). The workers are started and warmed
before the clock starts; the embedding and the swap of the pass are not in this figure
(`python -m bench.bench_ingest --tables auto` measures the whole pass).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any


def use_own_helpers() -> None:
    """PyMuPDF's own table helpers in this process (called in each worker for --own)."""
    from desktop_rag.ingest import page_extras, table_extract, table_speedups

    def unshared(page: Any) -> nullcontext[None]:
        return nullcontext()

    for module, name, value in (
        (table_speedups, "install", lambda: None),
        (table_extract, "install_speedups", lambda: None),
        (table_extract, "shared_textpages", unshared),
        (page_extras, "shared_textpages", unshared),
    ):
        setattr(module, name, value)


def read_page(path: str, index: int, own: bool, ocr: Any) -> str:
    from desktop_rag.ingest.page_extras import read_page_extras

    if own:
        use_own_helpers()
    extras = read_page_extras(path, index, True, ocr)
    return repr((extras.tables, extras.pictures))


def candidate_pages(folder: Path, limit: int) -> list[tuple[str, int]]:
    from desktop_rag.ingest.pdf_pages import open_pdf, page_text
    from desktop_rag.ingest.table_rules import may_hold_table

    pages = []
    for pdf in sorted(folder.glob("*.pdf")):
        with open_pdf(str(pdf)) as doc:
            for i in range(doc.page_count):
                page = doc.load_page(i)
                if may_hold_table(page, page_text(page)):
                    pages.append((str(pdf), i))
    step = max(1, len(pages) // limit) if limit else 1
    return pages[::step][:limit] if limit else pages


def measure(folder: Path, processes: int, limit: int, own: bool) -> dict[str, Any]:
    from desktop_rag.config import IngestSettings
    from desktop_rag.ingest.ocr import ocr_config
    from desktop_rag.ingest.page_workers import PageWorkers

    ocr = ocr_config(IngestSettings())
    pages = candidate_pages(folder, limit)
    workers = PageWorkers(processes)
    try:
        warm = [workers.submit(read_page, *pages[0], own, ocr) for _ in range(2 * processes)]
        [future.result() for future in warm]
        start = time.perf_counter()
        futures = [workers.submit(read_page, path, i, own, ocr) for path, i in pages]
        found = {
            f"{Path(p).name}:{i + 1}": f.result()
            for (p, i), f in zip(pages, futures, strict=True)
        }
        seconds = time.perf_counter() - start
    finally:
        workers.close()
    return {
        "pages": len(pages), "documents": len({p for p, _ in pages}), "seconds": round(seconds, 2),
        "pages_per_s": round(len(pages) / seconds, 2), "processes": workers.processes,
        "own_helpers": own, "pages_with_tables": sum(1 for v in found.values() if v != "([], [])"),
        "found": found,
    }


def compare(a: Path, b: Path) -> int:
    first, second = (json.loads(p.read_text(encoding="utf-8"))["found"] for p in (a, b))
    differ = sorted(k for k in first.keys() | second.keys() if first.get(k) != second.get(k))
    print(f"{len(first)} and {len(second)} pages; {len(differ)} read differently")
    for key in differ[:20]:
        print("  ", key)
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--processes", type=int, default=0, help="0: one per core")
    parser.add_argument("--limit", type=int, default=0, help="at most this many pages (0: all)")
    parser.add_argument("--own", action="store_true", help="PyMuPDF's own table helpers")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"))
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if args.folder is None:
        parser.error("a folder of PDFs is needed")
    result = measure(args.folder, args.processes, args.limit, args.own)
    if args.out:
        args.out.write_text(json.dumps(result), encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "found"}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
