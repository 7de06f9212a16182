"""The table pass as `ingest` and `sync` run it after the text: its stages on stderr."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from desktop_rag.cli.output import warn
from desktop_rag.domain.outcomes import TablesReport
from desktop_rag.domain.progress import CancelToken, ProgressEvent

if TYPE_CHECKING:
    from desktop_rag.services import Services


def table_pass(args: argparse.Namespace, services: Services, token: CancelToken) -> TablesReport:
    """The tables of the documents queued for them (these and any a stopped run left), its
    stages on stderr; none with --tables-later or after a cancel."""
    if args.tables_later or token.cancelled:
        return TablesReport(left=len(services.tables_pending()))
    progress = _TablesProgress()
    tables = services.enrich_tables(progress=progress, cancel=token)
    progress.end(tables)
    return tables


class _TablesProgress:
    """The table pass's stages on stderr: what it reads, each document when it is a terminal,
    and what it found."""

    def __init__(self) -> None:
        self.live, self.started = sys.stderr.isatty(), False

    def __call__(self, event: ProgressEvent) -> None:
        if not self.started:
            self.started = True
            warn(f"tables: {event.message}\u2026")
        elif self.live:
            line = f"tables: [{event.files_done}/{event.files_total} documents] {event.message}"
            sys.stderr.write("\r\033[K" + line[:150])
            sys.stderr.flush()

    def end(self, report: TablesReport) -> None:
        if self.live and self.started:
            sys.stderr.write("\r\033[K")
        for failure in report.failures:
            warn(f"tables: not read: {failure} (its text is searchable)")
        if self.started:
            read = report.pictures
            pictures = f", words read in {_n(read, 'picture')}" if read else ""
            warn(f"tables: {_n(report.tables, 'table')} in {_n(report.documents, 'document')}"
                 f"{pictures}, {report.seconds:.1f} s")
        if report.left:
            warn(f"tables: {_n(report.left, 'document')} left for the next ingest or sync")


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"
