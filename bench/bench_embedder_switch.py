"""Re-embedding speed of an embedder switch on a real library.

Ingests N PDFs (text only: no OCR, no table pass) with the packaged all-MiniLM-L6-v2 into a
throwaway data folder, then switches to the same model under another folder name without its
Normalize module (another embedding space, the same cost per chunk) and reports pages, chunks,
chunks/s of the re-embedding and the whole switch's time (model load, flip and the old
collection's deletion included).

    .venv/bin/python -m bench.bench_embedder_switch --docs 5
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from desktop_rag.bootstrap import build_context
from desktop_rag.config import Settings, save_settings
from desktop_rag.services import Services
from desktop_rag.services.embedder_switch import switch_embedder

DOCS = Path("/work/shared/data/mmlongbench/documents")


def other_space(packaged: Path, folder: Path) -> Path:
    """The packaged model's files (weights linked) without its Normalize module."""
    shutil.copytree(packaged, folder, ignore=shutil.ignore_patterns("*.safetensors"))
    for weights in packaged.glob("*.safetensors"):
        (folder / weights.name).symlink_to(weights)
    modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
    kept = [m for m in modules if not str(m["type"]).endswith("Normalize")]
    (folder / "modules.json").write_text(json.dumps(kept), encoding="utf-8")
    return folder


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=5)
    parser.add_argument("--backend", default="")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="switch-bench-") as tmp:
        root = Path(tmp)
        changes = {"ingest.tables": "off", "ingest.ocr": "off"}
        if args.backend:
            changes["models.embedder_backend"] = args.backend
        settings = Settings().updated(changes)
        save_settings(settings, root / "data" / "config" / "settings.toml")
        services = Services(build_context(str(root / "data")))
        pdfs = sorted(DOCS.glob("*.pdf"))[: args.docs]
        began = time.perf_counter()
        report = services.ingest(pdfs)
        ingest_s = time.perf_counter() - began
        target = other_space(services.ctx.registry.embedder_path(), root / "minilm-raw")
        began = time.perf_counter()
        outcome = switch_embedder(services.ctx, target, "minilm-raw")
        switch_s = time.perf_counter() - began
        pages = sum(d.pages for d in services.ctx.catalog.documents())
        print(json.dumps({
            "documents": len(pdfs), "pages": pages, "chunks": outcome.chunks,
            "embedder": services.ctx.embedder.name, "ingest_s": round(ingest_s, 1),
            "ingest_chunks": sum(o.chunks for o in report.outcomes),
            "reembed_chunks_per_s": round(outcome.chunks_per_s, 1),
            "reembed_pages_per_s": round(outcome.chunks_per_s * pages / max(1, outcome.chunks), 1),
            "switch_s": round(switch_s, 1), "status": outcome.status,
            "old_deleted": outcome.old_deleted,
        }, indent=1))
        services.close()


if __name__ == "__main__":
    main()
