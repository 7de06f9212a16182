"""Shared CLI helpers: building the services, JSON and human output, errors."""

from __future__ import annotations

import argparse
import dataclasses
import json
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from desktop_rag.domain.errors import DesktopRagError
from desktop_rag.domain.progress import CancelToken

if TYPE_CHECKING:
    from desktop_rag.bootstrap import PartName
    from desktop_rag.services import Services


class CommandFailed(Exception):
    """Raised after a command has printed its own failure; carries the exit code."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


@contextmanager
def open_services(
    args: argparse.Namespace, preload: Sequence[PartName] = ()
) -> Iterator[Services]:
    """The services over the command's library. `preload` names the heavy parts the command
    will need (the chat model to answer, the embedder to search), started on threads of their
    own before the services are even imported: on a cold `ask` the model load is the longest
    wait before the prompt, and it then overlaps the imports and the search."""
    from desktop_rag.bootstrap import build_context

    ctx = build_context(args.data_dir, args.profile)
    for part in preload:
        ctx.preload(part)
    from desktop_rag.services import Services

    services = Services(ctx)
    try:
        yield services
    finally:
        services.close()


@contextmanager
def jsonl_records(path: Path) -> Iterator[Callable[[dict[str, Any]], None]]:
    """A writer of one JSON line per record into `path`, flushed each time: a long evaluation
    that stops early keeps what it has. The file is made at the first record, so that a run
    that fails before it (a bad question file) leaves an earlier run's records as they were."""
    opened: list[IO[str]] = []

    def write(record: dict[str, Any]) -> None:
        if not opened:
            path.parent.mkdir(parents=True, exist_ok=True)
            opened.append(path.open("w", encoding="utf-8"))
        opened[0].write(json.dumps(record, ensure_ascii=False) + "\n")
        opened[0].flush()

    try:
        yield write
    finally:
        for out in opened:
            out.close()


def emit_report(
    report: dict[str, Any], records: Path, as_json: bool, show: Callable[[dict[str, Any]], None]
) -> int:
    """An evaluation's report, naming its records file: one JSON document, or lines to read."""
    report["records"] = str(records)
    if as_json:
        emit_json(report)
    else:
        show(report)
    return 0


def to_jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_jsonable(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


def emit_json(data: Any) -> None:
    json.dump(to_jsonable(data), sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
    sys.stdout.flush()


def say(text: str = "") -> None:
    """Human output on stdout."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def warn(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def emit_error(exc: DesktopRagError, as_json: bool) -> None:
    if as_json:
        emit_json({"error": {"type": type(exc).__name__, "message": exc.message, "hint": exc.hint}})
    warn(f"error: {exc.message}")
    if exc.hint:
        warn(f"hint: {exc.hint}")


@contextmanager
def cancel_on_interrupt(token: CancelToken) -> Iterator[None]:
    """Ctrl-C cancels the running operation cleanly (an ingestion leaves the library
    consistent; an answer stops streaming), instead of killing the process mid-write."""
    previous = signal.signal(signal.SIGINT, lambda *_: token.cancel())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
