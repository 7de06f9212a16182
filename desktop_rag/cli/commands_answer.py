"""CLI commands of the answer area: ask, and core add/remove/list/build."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from desktop_rag.cli.commands_search import add_doc_option, focus_json
from desktop_rag.cli.output import cancel_on_interrupt, emit_json, open_services, say, warn
from desktop_rag.domain import Answer, AnswerStage, Citation, LineBox, Stage
from desktop_rag.domain.progress import CancelToken, ProgressEvent
from desktop_rag.text.places import place

if TYPE_CHECKING:  # the services package loads numpy: not for `--help`
    from desktop_rag.services.core import CoreStatus

TIMINGS = ("retrieve_ms", "rerank_ms", "ttft_ms", "total_ms", "prompt_tokens", "cached_tokens",
           "generated_tokens", "restore_ms")
ROUTES = ("lookup", "summary", "exhaustive", "compare")  # routed.RouteName's values
_OPEN_STAGES = (Stage.READING, Stage.SCANNING, Stage.JUDGING)  # with progress, updated in place


def register(sub: Any) -> None:  # argparse's _SubParsersAction is private
    ask = sub.add_parser(
        "ask", help="ask a question about your documents",
        description="Answers from your documents with numbered citations; says so when they "
        "do not contain the answer. The answer streams to stdout.",
    )
    ask.add_argument("question", metavar="QUESTION")
    ask.add_argument("--k", type=int, default=None, help="passages to retrieve")
    ask.add_argument("--chat", metavar="ID", help="continue this chat (follow-up questions)")
    add_doc_option(ask)
    ask.add_argument(
        "--route", choices=ROUTES, metavar="ROUTE",
        help="answer by this route instead of the router's choice: " + ", ".join(ROUTES),
    )  # fmt: skip
    ask.add_argument("--json", action="store_true", help="one JSON document on stdout")
    ask.set_defaults(func=run_ask)
    core = sub.add_parser("core", help="pin documents that are always in context (cached)")
    actions = core.add_subparsers(dest="core_action", metavar="ACTION", required=True)
    for name, text in (("add", "pin documents"), ("remove", "unpin documents")):
        action = actions.add_parser(name, help=text)
        action.add_argument("paths", nargs="+", metavar="PATH")
        action.add_argument("--json", action="store_true", help="one JSON document on stdout")
        action.set_defaults(func=run_core)
    for name, text in (("list", "show the core and its cache"), ("build", "build the cache")):
        action = actions.add_parser(name, help=text)
        action.add_argument("--json", action="store_true", help="one JSON document on stdout")
        action.set_defaults(func=run_core)


class Streamed:
    """The answer's text as it streams to stdout, kept so that the final answer can be told
    apart: the checks after generation may take a line back (a calculation the model wrote
    before saying that the documents do not hold the answer), and the terminal cannot unprint
    it. The GUI redraws the answer instead."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.text = ""

    def __call__(self, piece: str) -> None:
        self.text += piece
        self.stream.write(piece)
        self.stream.flush()

    def differs(self, final: str) -> bool:
        """Something was streamed and it is not `final` (whitespace aside)."""
        return bool(self.text.strip()) and self.text.split() != final.split()


class StageLines:
    """Each stage of an answer on a line of its own on stderr, so that the wait before the first
    word is not silent. On a terminal the prefill progress updates its line in place (\\r); in a
    log it would be one line per step, so there it is left out."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.stage: Stage | None = None
        self.width = 0  # of the line still open on a terminal (0: none)

    def __call__(self, stage: AnswerStage) -> None:
        if stage.stage is self.stage:
            if self.tty and stage.progress is not None:
                self._show(stage.describe(), "\r")
            return
        self.stage = stage.stage
        self._show(stage.describe(), "\n" if self.width else "")

    def _show(self, text: str, before: str) -> None:
        padded = text.ljust(self.width) if before == "\r" else text
        open_line = self.tty and self.stage in _OPEN_STAGES
        self.stream.write(before + padded + ("" if open_line else "\n"))
        self.stream.flush()
        self.width = len(padded) if open_line else 0

    def close(self) -> None:
        """Ends a progress line still open (a Stop while the prompt was read)."""
        if self.width:
            self.stream.write("\n")
            self.width = 0


def run_ask(args: argparse.Namespace) -> int:
    token, stages = CancelToken(), StageLines(sys.stderr)
    # the chat model and the embedder load while the services import and the library opens
    with (
        open_services(args, preload=("engine", "embedder")) as services,
        cancel_on_interrupt(token),
    ):
        streamed = Streamed(sys.stdout)
        on_token = None if args.json else streamed
        scope = services.scope_of(args.doc)
        try:
            answer = services.ask(args.question, chat_id=args.chat, k=args.k, on_token=on_token,
                                  cancel=token, scope=scope, on_stage=stages, route=args.route)
        finally:
            stages.close()
    if args.json:
        emit_json(answer_json(answer))
    else:
        _print_answer(answer, streamed)
    return 0


def answer_json(answer: Answer) -> dict[str, Any]:
    """The `ask --json` document, exactly as the CLI contract lists it; `calculations` holds
    each "Calculation:" line of the answer as the app checked and computed it; `route` how it
    was answered (the route chosen, the component that answered, why); `count` and `items` the
    number and every item of a list or count answer (`count` null for other answers); `focus`
    the documents the question named, searched first (null when it named none clearly)."""
    by_n = {p.n: p for p in answer.passages}
    t = answer.timings
    return {
        "answer": answer.answer,
        "chat_id": answer.chat_id,
        "citations": [_citation(c, by_n[c.n].text if c.n in by_n else c.chunk.text)
                      for c in answer.citations],
        "unsupported_sentences": list(answer.unsupported_sentences),
        "calculations": [c.to_record() for c in answer.calculations],
        "refused": answer.refused,
        "reranker": answer.reranker,
        "gpu_offload": answer.gpu_offload,
        "route": answer.route.to_record(),
        "count": answer.route.count,
        "items": [item.to_record() for item in answer.items],
        "focus": focus_json(answer.focus),
        "timings": {k: t.get(k, 0) for k in TIMINGS}
        | {"prefill_ms": t.get("generation_ttft_ms", 0)},  # the prompt's uncached part
    }


def _citation(c: Citation, text: str) -> dict[str, Any]:
    """`page` is the page of the best evidence (where the fact is); `pages` every page the
    chunk spans; `place` the slide, sheet and cells, section or message of a file without page
    geometry (else null); `evidence` the supporting source sentence(s) of each cited answer
    sentence."""
    chunk = c.chunk
    return {"n": c.n, "chunk_id": chunk.chunk_id, "doc_id": chunk.doc_id, "path": chunk.path,
            "title": chunk.title, "page": c.page, "pages": list(chunk.pages), "text": text,
            "place": place(chunk, c.evidence[0].text if c.evidence else ""),
            "char_span": list(chunk.char_span), "bboxes": _boxes(chunk.bboxes),
            "support": c.support, "inferred": c.inferred,
            "evidence": [e.to_record() for e in c.evidence]}  # fmt: skip


def _boxes(boxes: Sequence[LineBox]) -> list[list[float]]:
    return [[b.page, b.x0, b.y0, b.x1, b.y1] for b in boxes]


def _print_answer(answer: Answer, streamed: Streamed) -> None:
    if answer.refused and not answer.timings.get("generated_tokens"):
        say(answer.answer)  # nothing was streamed: the model was not asked
    elif streamed.differs(answer.answer):
        say("\n\nChecked answer (the text above was changed by the checks):")
        say(answer.answer)
    else:
        say()
    for c in answer.citations:
        where = place(c.chunk, c.evidence[0].text if c.evidence else "")
        page = f", {where}" if where else (f", page {c.page}" if c.page else "")
        mark = "* (attributed after generation)" if c.inferred else ""
        say(f"[{c.n}]{mark} {c.chunk.title}{page} ({c.chunk.path}) support {c.support:.2f}")
    for calculation in answer.calculations:
        say(calculation.describe())
    for sentence in answer.unsupported_sentences:
        warn(f"unsupported: {sentence}")
    _print_route(answer)
    if answer.focus is not None:
        warn(answer.focus.describe())
    mode = "GPU" if answer.gpu_offload else "CPU"
    t = answer.timings
    warn(f"chat {answer.chat_id} · {mode} · first token {t.get('ttft_ms', 0):.0f} ms · "
         f"{t.get('cached_tokens', 0):.0f}/{t.get('prompt_tokens', 0):.0f} prompt tokens cached")


def _print_route(answer: Answer) -> None:
    """The route on stderr, when it is not a plain lookup: what read the documents, and why."""
    r = answer.route
    if r.route == "lookup" and r.handled_by == "lookup":
        return
    by = "" if r.handled_by == r.route else f", answered by {r.handled_by.value}"
    warn(f"route {r.route.value}{by} ({r.reason})")


def run_core(args: argparse.Namespace) -> int:
    with open_services(args) as services:
        action = args.core_action
        if action == "add":
            status = services.core_add(args.paths)
        elif action == "remove":
            status = services.core_remove(args.paths)
        elif action == "build":
            status = services.core_build(progress=_build_progress)
        else:
            status = services.core_status()
    if args.json:
        emit_json(status_json(status))
    else:
        _print_status(status)
    return 0


def _build_progress(event: ProgressEvent) -> None:
    if sys.stderr.isatty():
        warn(event.message)


def status_json(status: CoreStatus) -> dict[str, Any]:
    return {
        "documents": [{"doc_id": d.doc_id, "path": d.path, "title": d.title, "tokens": d.tokens}
                      for d in status.docs],
        "total_tokens": status.total_tokens, "budget": status.budget, "state": status.state,
        "cache_file": status.cache_file, "cache_bytes": status.cache_bytes,
        "details": status.details,
    }


def _print_status(status: CoreStatus) -> None:
    if not status.docs:
        say("The core is empty. Pin documents with: desktop-rag core add PATH")
        return
    for d in status.docs:
        say(f"{d.tokens:>7} tokens  {d.title}  ({d.path})")
    say(f"{status.total_tokens:>7} tokens in total; budget {status.budget}; cache {status.state}")
