"""`desktop-rag` command line: argparse over the service facade.

Exit codes: 0 success, 1 partial failure, 2 usage or configuration error. With `--json`, stdout
carries exactly one JSON document; logs and progress go to stderr.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from desktop_rag import __version__
from desktop_rag.cli import (
    commands_answer,
    commands_doctor,
    commands_eval,
    commands_library,
    commands_models,
    commands_search,
)
from desktop_rag.cli.output import CommandFailed, emit_error
from desktop_rag.domain.errors import DesktopRagError

log = logging.getLogger("desktop_rag")

AREAS = (
    commands_doctor, commands_library, commands_search, commands_answer, commands_eval,
    commands_models,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="desktop-rag", description="Chat with your own documents, offline."
    )
    parser.add_argument("--version", action="version", version=f"desktop-rag {__version__}")
    parser.add_argument("--data-dir", metavar="DIR", help="keep config, data and caches under DIR")
    parser.add_argument("--profile", choices=("default", "tiny"), help="model profile")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for area in AREAS:
        area.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    for offline in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        os.environ.setdefault(offline, "1")  # models are local; never reach a hub implicitly
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    try:
        code: int = args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (`desktop-rag list | head`): no traceback
        _silence_stdout()
        return 141
    except CommandFailed as exc:
        return exc.code
    except DesktopRagError as exc:
        emit_error(exc, getattr(args, "json", False))
        return exc.exit_code
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)  # noqa: T201
        return 130
    return code


def _silence_stdout() -> None:
    """Points stdout at /dev/null so that the interpreter's last flush does not fail again."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # a replaced stream (tests) has no descriptor
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
