"""Words and JSON for models, shared by the CLI, the GUI's Models dialog and `doctor`.

One place decides how a size, a speed, an ETA or a model row reads, so the three front ends say
the same thing about the same model.
"""

from __future__ import annotations

from typing import Any

from desktop_rag.catalog.downloads import DownloadProgress
from desktop_rag.catalog.hardware import Hardware
from desktop_rag.catalog.service import ModelRow


def size_text(mb: float) -> str:
    return f"{mb / 1024:.1f} GB" if mb >= 1024 else f"{mb:.0f} MB"


def eta_text(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    total = round(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def progress_text(report: DownloadProgress) -> str:
    """'file 1/3 model.safetensors: 120 MB of 470 MB (26%), 12.3 MB/s, 0:28 left'."""
    if report.phase == "done":
        return f"{report.entry_id}: {size_text(report.done_bytes / 2**20)} downloaded and verified"
    done, total = report.done_bytes / 2**20, report.total_bytes / 2**20
    where = f"file {report.file_index}/{report.files} {report.file}"
    if report.phase == "verify":
        return f"{where}: checking its sha256…"
    speed = f"{report.speed_bps / 2**20:.1f} MB/s"
    return (f"{where}: {size_text(done)} of {size_text(total)} ({report.fraction:.0%}), "
            f"{speed}, {eta_text(report.eta_s)} left")


def hardware_text(hw: Hardware) -> str:
    gpu = ", ".join(f"{g.name} ({size_text(g.vram_mb)})" for g in hw.gpus) or "no NVIDIA GPU"
    offload = "with GPU offload" if hw.gpu_offload else "CPU-only build"
    return (f"{size_text(hw.ram_mb)} memory, {hw.cpu_count} CPU cores, {gpu}, llama.cpp "
            f"{offload}, {size_text(hw.free_disk_mb)} free for models")


def row_json(row: ModelRow) -> dict[str, Any]:
    entry = row.entry
    return {
        "id": entry.id, "kind": entry.kind, "name": entry.name, "repo": entry.repo,
        "revision": entry.revision, "download_mb": entry.download_mb, "licence": entry.licence,
        "params_b": entry.params_b, "context_length": entry.context_length,
        "chat_template": entry.chat_template, "languages": list(entry.languages),
        "ram_mb": entry.ram_mb, "vram_mb": entry.vram_mb, "description": entry.description,
        "integrity": entry.integrity,
        "files": [{"name": f.name, "size": f.size, "sha256": f.sha256} for f in entry.files],
        "embedding": _embedding(row), "packaged": entry.packaged, "source": entry.source,
        "state": row.installed.state.value, "path": str(row.installed.path or ""),
        "partial_mb": row.installed.partial_mb, "fit": row.fit.verdict.value,
        "fit_reason": row.fit.reason, "in_use": row.in_use, "recommended": row.recommended,
    }


def _embedding(row: ModelRow) -> dict[str, Any] | None:
    info = row.entry.embedding
    if info is None:
        return None
    return {"query_prefix": info.query_prefix, "passage_prefix": info.passage_prefix,
            "max_length": info.max_length, "dimensions": info.dimensions}


def state_text(row: ModelRow) -> str:
    if row.installed.partial_mb:
        return f"{row.installed.state.value} ({size_text(row.installed.partial_mb)})"
    return row.installed.state.value
