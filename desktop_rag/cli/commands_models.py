"""`desktop-rag models list|download|use|remove [--json]`: choose, fetch and switch models.

Human output on stdout, progress on stderr (one line updated in place on a terminal); with
`--json` stdout carries one JSON document only. `download` is the user's explicit request, so it
runs with `models.allow_downloads` off too; nothing else here touches the network.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_rag.cli.output import emit_json, say, warn

if TYPE_CHECKING:
    from desktop_rag.catalog.downloads import DownloadProgress
    from desktop_rag.catalog.service import ModelRow, ModelsService, SwitchFn
    from desktop_rag.domain.progress import ProgressEvent

KINDS = ("chat", "embedder", "cross-encoder")
SWITCH: SwitchFn | None = None  # tests put a fake switch here; None: the real one
MARKS = {True: "*", False: " "}


def register(sub: Any) -> None:  # argparse's _SubParsersAction is private
    models = sub.add_parser(
        "models", help="the model catalog: list, download, use, remove",
        description="Models you can choose, how each fits this machine, and the one "
        "recommended for it. `download` fetches a model (verified, resumable); `use` makes it "
        "the chat model, the embedder (re-embeds the library) or the re-ranker.",
    )
    actions = models.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="the catalog with fit and download state")
    listing.add_argument("--kind", choices=KINDS, help="only models of this kind")
    listing.set_defaults(func=run_list)
    for name, helptext, func in (
        ("download", "download a model (resumes an interrupted download)", run_download),
        ("use", "use a downloaded or packaged model", run_use),
        ("remove", "delete a downloaded model", run_remove),
    ):
        action = actions.add_parser(name, help=helptext)
        action.add_argument("model", metavar="ID", help="a model id from `models list`")
        action.set_defaults(func=func)
    for action in actions.choices.values():
        action.add_argument("--json", action="store_true", help="one JSON document on stdout")


def _service(args: argparse.Namespace) -> ModelsService:
    from desktop_rag.catalog.service import ModelsService
    from desktop_rag.config import load_settings
    from desktop_rag.config.paths import resolve_paths

    paths = resolve_paths(args.data_dir).ensure()
    settings = load_settings(paths.settings_file)
    if args.profile:
        settings = settings.updated({"profile": args.profile})
    return ModelsService(paths, settings)


def run_list(args: argparse.Namespace) -> int:
    from desktop_rag.catalog.describe import hardware_text, row_json

    service = _service(args)
    rows = [r for r in service.rows() if args.kind in (None, r.entry.kind)]
    if args.json:
        emit_json({"catalog_version": service.catalog.version, "hardware": service.hardware,
                   "models": [row_json(r) for r in rows]})
        return 0
    say(f"This machine: {hardware_text(service.hardware)}")
    for kind in KINDS:
        _print_kind(kind, [r for r in rows if r.entry.kind == kind])
    best = next((r for r in rows if r.recommended), None)
    if best is not None:
        say(f"\nRecommended chat model here: {best.entry.id} ({best.fit.reason})")
    say("\n* in use   + recommended   `desktop-rag models download ID`, then `models use ID`")
    return 0


def _print_kind(kind: str, rows: list[ModelRow]) -> None:
    from desktop_rag.catalog.describe import size_text, state_text

    if not rows:
        return
    say(f"\n{kind} models")
    for row in rows:
        mark = MARKS[row.in_use] + ("+" if row.recommended else " ")
        size = size_text(row.entry.download_mb)
        say(f" {mark} {row.entry.id:<38} {size:>8}  {state_text(row):<20} "
            f"{row.fit.verdict.value}: {row.fit.reason}")
        say(f"      {row.entry.description}")


class _DownloadLine:
    """Progress on stderr: one line rewritten on a terminal, else a line every few seconds."""

    def __init__(self) -> None:
        self.live = sys.stderr.isatty()
        self.last = 0.0

    def __call__(self, report: DownloadProgress) -> None:
        from desktop_rag.catalog.describe import progress_text

        now = time.monotonic()
        final = report.phase != "download"
        if not final and now - self.last < (0.2 if self.live else 5.0):
            return
        self.last = now
        text = progress_text(report)
        sys.stderr.write(("\r\033[K" + text[:150]) if self.live else text + "\n")
        if self.live and report.phase == "done":
            sys.stderr.write("\n")
        sys.stderr.flush()


def run_download(args: argparse.Namespace) -> int:
    service = _service(args)
    entry = service.catalog.get(args.model)
    warn(f"Downloading {entry.id} from {service.settings.models.hub_endpoint}/{entry.repo}")
    try:
        path = service.download(entry.id, _DownloadLine())
    except KeyboardInterrupt:
        warn(f"\nStopped: `desktop-rag models download {entry.id}` resumes where it stopped.")
        raise
    if args.json:
        emit_json({"id": entry.id, "path": str(path), "state": "downloaded"})
    else:
        say(f"{entry.id} is ready at {path}")
        say(f"Use it with: desktop-rag models use {entry.id}")
    return 0


def run_use(args: argparse.Namespace) -> int:
    from desktop_rag.config import save_settings

    service = _service(args)
    choice = service.choose(args.model)
    if choice.embedder_dir is not None:
        outcome = _switch_embedder(args, choice.embedder_dir, choice.entry.id)
        result: dict[str, Any] = {"id": choice.entry.id, "kind": "embedder", "switch": outcome}
    else:
        new = _file_settings(service).updated(choice.changes)
        save_settings(new, service.paths.settings_file)
        result = {"id": choice.entry.id, "kind": choice.entry.kind, "settings": choice.changes}
    if args.json:
        emit_json(result)
    else:
        outcome = result.get("switch")
        say(_use_text(choice.entry.kind, choice.entry.id, service.paths.settings_file, outcome))
    return 0


def _file_settings(service: ModelsService) -> Any:
    """The saved settings (a --profile given for this run is not written back)."""
    from desktop_rag.config import load_settings

    return load_settings(service.paths.settings_file)


def _use_text(kind: str, entry_id: str, settings_file: Path, outcome: object = None) -> str:
    if kind == "embedder" and getattr(outcome, "status", "") == "cancelled":
        return (f"The switch to {entry_id} stopped; search still uses the previous embedder. "
                f"Run `desktop-rag models use {entry_id}` again to resume it.")
    if kind == "embedder":
        return f"The library is now searched with {entry_id}."
    if kind == "chat":
        return f"{entry_id} answers the next question (saved in {settings_file})."
    return f"{entry_id} re-ranks the next search (saved in {settings_file})."


def _switch_embedder(args: argparse.Namespace, folder: Path, name: str) -> object:
    from desktop_rag.bootstrap import build_context
    from desktop_rag.catalog.service import load_switch
    from desktop_rag.domain.progress import CancelToken

    switch = SWITCH or load_switch()
    ctx = build_context(args.data_dir, args.profile)
    try:
        return switch(ctx, folder, name, _switch_progress, CancelToken())
    finally:
        ctx.close()


def _switch_progress(event: ProgressEvent) -> None:
    total = f"/{event.total}" if event.total else ""
    text = f"{event.stage}: {event.done}{total} {event.message}"[:150]
    live = sys.stderr.isatty()
    sys.stderr.write(("\r\033[K" + text) if live else text + "\n")
    if live and event.total and event.done >= event.total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def run_remove(args: argparse.Namespace) -> int:
    service = _service(args)
    folder = service.remove(args.model)
    if args.json:
        emit_json({"id": args.model, "removed": str(folder)})
    else:
        say(f"Removed {args.model} ({folder})")
    return 0
