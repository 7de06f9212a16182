"""CLI commands of the library area: ingest, sync, folders, list, remove, rename."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop_rag.cli.output import cancel_on_interrupt, emit_json, open_services, say
from desktop_rag.cli.tables_stage import table_pass
from desktop_rag.domain import Document, FileOutcome, IngestReport, Outcome, Reason
from desktop_rag.domain.outcomes import TablesReport
from desktop_rag.domain.progress import CancelToken, ProgressEvent

ORDER = [o.value for o in Outcome]


def register(sub: Any) -> None:  # argparse's _SubParsersAction is private
    ingest = sub.add_parser(
        "ingest", help="add files or folders to the library (folders are followed)",
        description="Index PDFs, Markdown and text files (folders are walked recursively). "
        "Unchanged files are skipped; changed ones are re-indexed; files gone from a re-ingested "
        "folder are removed. Folders are followed from then on: see `sync`. Exit code 1 if any "
        "file failed.",
    )
    ingest.add_argument("paths", nargs="+", metavar="PATH")
    ingest.add_argument("--json", action="store_true", help="one JSON document on stdout")
    _tables_later_option(ingest)
    ingest.set_defaults(func=run_ingest)
    sync = sub.add_parser(
        "sync", help="catch up with the followed folders (new, changed and deleted files)",
        description="Walk every folder added to the library again and re-check every other "
        "document's file: new files are indexed, changed ones re-indexed, files deleted from a "
        "followed folder removed. A folder or file missing altogether (moved, or on a drive "
        "not mounted) is reported and its documents are kept. Exit code 1 if any file failed.",
    )
    sync.add_argument("--json", action="store_true", help="one JSON document on stdout")
    _tables_later_option(sync)
    sync.set_defaults(func=run_sync)
    folders = sub.add_parser("folders", help="list the folders the library follows")
    folders.add_argument("--json", action="store_true", help="one JSON document on stdout")
    folders.set_defaults(func=run_folders)
    unfollow = sub.add_parser(
        "unfollow", help="stop following folders, keeping their documents",
        description="Stop following folders (a sync no longer adds their new files or drops "
        "the deleted ones); their documents stay in the library. To remove the documents too, "
        "use: desktop-rag remove FOLDER",
    )
    unfollow.add_argument("paths", nargs="+", metavar="FOLDER")
    unfollow.add_argument("--json", action="store_true", help="one JSON document on stdout")
    unfollow.set_defaults(func=run_unfollow)
    listing = sub.add_parser("list", help="list the documents in the library")
    listing.add_argument("--json", action="store_true", help="one JSON document on stdout")
    listing.set_defaults(func=run_list)
    remove = sub.add_parser("remove", help="remove documents (by path, folder or doc id)")
    remove.add_argument("paths", nargs="+", metavar="PATH")
    remove.add_argument("--json", action="store_true", help="one JSON document on stdout")
    remove.set_defaults(func=run_remove)
    rename = sub.add_parser(
        "rename", help="give a document the title you want",
        description="Show a document under a title of your choice (in `list`, the app and the "
        "sources of answers). The title stays when the file is moved or changed and read "
        "again; its old titles and file name stay searchable.",
    )
    rename.add_argument("path", metavar="PATH", help="the document's file (or its doc id)")
    rename.add_argument("title", metavar="TITLE")
    rename.add_argument("--json", action="store_true", help="one JSON document on stdout")
    rename.set_defaults(func=run_rename)


def _tables_later_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tables-later", action="store_true",
        help="exit once the text is searchable; the tables of PDF pages that look tabular are "
        "read by the next ingest, sync or the app (by default they are read before exiting)",
    )


class _Progress:
    """One updating line on stderr when it is a terminal."""

    def __init__(self) -> None:
        self.live = sys.stderr.isatty()

    def __call__(self, event: ProgressEvent) -> None:
        if not self.live:
            return
        if event.stage == "scan" and event.files_total:  # the catch-up (ingest/catch_up.py)
            line = f"[{event.files_done}/{event.files_total} documents] {event.message}"
        elif event.stage in ("embed", "file-done"):
            eta = f", about {event.eta_s:.0f} s left" if event.eta_s is not None else ""
            line = (f"[{event.files_done}/{event.files_total} files, {event.pages_done} pages, "
                    f"{event.chunks_done} chunks{eta}] {event.message}")
        else:
            return
        sys.stderr.write("\r\033[K" + line[:150])
        sys.stderr.flush()

    def end(self) -> None:
        if self.live:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def run_ingest(args: argparse.Namespace) -> int:
    """The text first (searchable, and reported, at once), then the table pass."""
    token, progress = CancelToken(), _Progress()
    with open_services(args) as services, cancel_on_interrupt(token):
        report = services.ingest(args.paths, progress=progress, cancel=token, tables_now=False)
        progress.end()
        _show_report(args, report)
        tables = table_pass(args, services, token)
    return _finish(args, report, token, tables)


def run_sync(args: argparse.Namespace) -> int:
    token, progress = CancelToken(), _Progress()
    with open_services(args) as services, cancel_on_interrupt(token):
        if not args.json and not services.followed_folders() and not services.list_documents():
            say("Nothing to sync: the library is empty. Add documents with: "
                "desktop-rag ingest PATH")
            return 0
        report = services.sync(progress=progress, cancel=token, tables_now=False)
        progress.end()
        _show_report(args, report, changes_only=True)
        tables = table_pass(args, services, token)
    return _finish(args, report, token, tables)


def _show_report(
    args: argparse.Namespace, report: IngestReport, changes_only: bool = False
) -> None:
    """The outcomes (with `changes_only`, the human form leaves out unchanged files) and totals
    (the JSON form waits for the table pass: one document)."""
    if args.json:
        return
    shown = [o for o in report.outcomes if not (changes_only and o.outcome is Outcome.UNCHANGED)]
    _print_outcomes(shown)
    caught_up = _caught_up(report)
    if caught_up:
        say(caught_up)
    elif changes_only and not shown:
        say("Everything is up to date.")
    say(f"\n{_summary(_counts(report.outcomes))} in {report.seconds:.1f} s.")


def _caught_up(report: IngestReport) -> str:
    """What the catch-up with the current table and picture readers queued ("" when nothing)."""
    done = report.caught_up
    if done is None or not done.checked:
        return ""
    failed = "".join(f"\n  not checked: {f}" for f in done.failures)
    return (f"{_n(done.checked, 'PDF')} read before this version's table and picture reading: "
            f"{_n(done.pages, 'page')} of {_n(done.queued, 'document')} to read again for "
            f"tables and words in pictures{failed}")


def _finish(
    args: argparse.Namespace, report: IngestReport, token: CancelToken, tables: TablesReport
) -> int:
    """The JSON document; the exit code: 130 when cancelled, 1 when a file failed."""
    if args.json:
        emit_json({"outcomes": report.outcomes, "totals": _counts(report.outcomes),
                   "seconds": report.seconds, "embedded_chunks": report.embedded_chunks,
                   "caught_up": report.caught_up, "tables": tables})
    if token.cancelled:
        return 130
    return 1 if report.failed else 0


def run_folders(args: argparse.Namespace) -> int:
    with open_services(args) as services:
        folders = services.followed_folders()
    if args.json:
        emit_json({"folders": folders})
    elif not folders:
        say("No folder is followed. Add one with: desktop-rag ingest FOLDER")
    for folder in [] if args.json else folders:
        state = "" if folder.present else "  (missing: moved, or a drive not mounted)"
        say(f"{folder.path}  {_n(folder.documents, 'document')}{state}")
    return 0


def run_remove(args: argparse.Namespace) -> int:
    with open_services(args) as services:
        return _show_outcomes(args, services.remove(args.paths))


def run_unfollow(args: argparse.Namespace) -> int:
    with open_services(args) as services:
        return _show_outcomes(args, services.unfollow(args.paths))


def run_rename(args: argparse.Namespace) -> int:
    with open_services(args) as services:
        doc = services.rename(args.path, args.title)
    if args.json:
        emit_json({"document": doc})
    else:
        say(f"renamed   {doc.path}: now titled \"{doc.title}\"")
    return 0


def _show_outcomes(args: argparse.Namespace, outcomes: Sequence[FileOutcome]) -> int:
    if args.json:
        emit_json({"outcomes": outcomes, "totals": _counts(outcomes)})
    else:
        _print_outcomes(outcomes)
    return 0


def run_list(args: argparse.Namespace) -> int:
    with open_services(args) as services:
        docs, tables = services.list_documents(), services.tables_pending()
    if args.json:
        emit_json({"documents": docs, "tables_pending": tables})
        return 0
    if not docs:
        say("The library is empty. Add documents with: desktop-rag ingest PATH")
        return 0
    for doc in docs:
        say(_document_line(doc, tables.get(doc.doc_id, 0)))
    say(f"\n{_n(len(docs), 'document')}, {_n(sum(d.chunks for d in docs), 'chunk')}.")
    return 0


def _document_line(doc: Document, table_pages: int = 0) -> str:
    """`table_pages`: pages whose tables (or pictures' words) the table pass has yet to read."""
    pages = f"{_n(doc.pages, 'page')}, " if doc.pages else ""
    when = f", ingested {doc.ingested_at}" if doc.ingested_at else ""
    error = f"\n    error: {doc.error}" if doc.error else ""
    chunks = _n(doc.chunks, "chunk")
    tables = (f"\n    tables pending: {_n(table_pages, 'page')} (read by the next ingest or "
              "sync)") if table_pages else ""
    return (f"{doc.status.value:<9} {doc.path}\n    title: {doc.title} ({pages}{chunks}"
            f"{when}; sha256 {doc.sha256[:12]}…, id {doc.doc_id}){error}{tables}")


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _counts(outcomes: Sequence[FileOutcome]) -> dict[str, int]:
    counts = Counter(o.outcome.value for o in outcomes)
    return {name: counts[name] for name in ORDER if counts[name]}


def _summary(counts: dict[str, int]) -> str:
    if not counts:
        return "No files found"
    return ", ".join(f"{n} {name}" for name, n in counts.items())


def _print_outcomes(outcomes: Sequence[FileOutcome]) -> None:
    """One line per file, except files of types the library does not read: one line for all."""
    other_types = Counter(
        Path(o.path).suffix.lower() or "(none)" for o in outcomes if _unsupported(o)
    )
    for o in (o for o in outcomes if not _unsupported(o)):
        pages = f"{_n(o.pages, 'page')}, " if o.pages else ""
        detail = f" ({pages}{_n(o.chunks, 'chunk')})" if o.chunks else ""
        reason = f": {o.reason}" if o.reason else ""
        say(f"{o.outcome.value:<9} {o.path}{detail}{reason}")
    if other_types:
        kinds = ", ".join(f"{suffix} ({n})" for suffix, n in other_types.most_common())
        say(f"{'skipped':<9} {_n(other_types.total(), 'file')} of types the library does not "
            f"read: {kinds}")


def _unsupported(outcome: FileOutcome) -> bool:
    return outcome.outcome is Outcome.SKIPPED and outcome.code is Reason.UNSUPPORTED
