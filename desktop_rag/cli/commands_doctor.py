"""`desktop-rag doctor [--json] [--check]`: versions, models, GPU offload, folders, free disk."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from desktop_rag.cli.output import emit_json, say

if TYPE_CHECKING:
    from desktop_rag.services.doctor import Check, DoctorReport


def register(sub: Any) -> None:  # argparse's _SubParsersAction is private
    parser = sub.add_parser(
        "doctor", help="check the installation: versions, models, GPU offload, folders, disk"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument(
        "--check", action="store_true", help="also check the library's stores agree"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from desktop_rag.bootstrap import build_context
    from desktop_rag.services.doctor import other_profile_context, run_doctor

    ctx = build_context(args.data_dir, args.profile)
    other = other_profile_context(ctx)
    try:
        report = run_doctor(ctx, other, _services(ctx) if args.check else None)
    finally:
        ctx.close()
        if other is not None:
            other.close()
    if args.json:
        emit_json(report)
    else:
        _print(report)
    return 0 if report.ok else 1


def _services(ctx: Any) -> object:
    from desktop_rag.services import Services

    return Services(ctx)


def _print(report: DoctorReport) -> None:
    say(f"desktop-rag doctor: {'all OK' if report.ok else 'PROBLEMS FOUND'}")
    _section("Versions", report.versions)
    say("\nModels")
    for check in report.models + report.extra:
        _print_check(check)
    _section("GPU", report.gpu)
    if report.models_fit:
        _section("Models for this machine (desktop-rag models list)", report.models_fit)
    _section("Folders", report.folders)
    say("\nFree disk")
    for label in ("data", "models"):
        entry = report.disk[label]
        say(f"  {label:<28} {entry['free_gib']} GiB free at {entry['path']}")


def _print_check(check: Check) -> None:
    mark = "ok  " if check.ok else "FAIL"
    say(f"  [{mark}] {check.name:<22} {check.detail} ({check.seconds:.1f} s)")
    if check.path:
        say(f"         {'':<22} {check.path}")


def _section(title: str, values: dict[str, Any]) -> None:
    say(f"\n{title}")
    for key, value in values.items():
        say(f"  {key:<28} {value}")
