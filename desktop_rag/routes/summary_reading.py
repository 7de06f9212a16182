"""The model's passes of a summary: each section summarised (or taken from the store), in
reading order, with progress and Cancel; then the final summary, streamed through the gate that
holds it to the bullets asked for.

Progress goes two ways: as the answer's stage (what the chat shows while it waits) and as a
ProgressEvent (sections done of total, with an ETA from the time each pass has taken so far).
Cancel is checked before each pass and handed to the model, whose prompt evaluation and
generation both stop on it, so a Stop ends the work within a second or so of the model's step.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from desktop_rag.domain import AnswerStage, Stage
from desktop_rag.domain.errors import CancelledError
from desktop_rag.domain.progress import CancelToken, ProgressCallback, ProgressEvent
from desktop_rag.domain.protocols import (
    ChatEngine,
    ChatMessage,
    Generation,
    PrefillCallback,
    TokenCallback,
    TokenGenerating,
)
from desktop_rag.llm.worker import interleaving, run_on_engine, token_generating, unwrap
from desktop_rag.routes.sections import Section
from desktop_rag.routes.summary_format import BulletGate, Format, LinkedCancel
from desktop_rag.routes.summary_prompts import SECTION_TOKENS, map_messages
from desktop_rag.routes.summary_store import Identity, SummaryStore

StageSink = Callable[[AnswerStage], None]


@dataclass(slots=True)
class Tally:
    """What the passes cost: model calls, tokens, sections read and reused."""

    calls: int = 0
    prompt_tokens: int = 0
    generated_tokens: int = 0
    read: int = 0
    reused: int = 0
    ms: list[float] = field(default_factory=list)
    picked: int = 0  # key sentences the final pass was given (routes/key_sentences)

    def add(self, generation: Generation, ms: float) -> None:
        self.calls += 1
        self.prompt_tokens += generation.prompt_tokens
        self.generated_tokens += generation.generated_tokens
        self.ms.append(ms)


@dataclass(frozen=True, slots=True)
class Passes:
    """Where the passes report and what stops them."""

    engine: Callable[[], ChatEngine]
    store: SummaryStore
    who: Identity
    on_stage: StageSink | None
    progress: ProgressCallback
    cancel: CancelToken | None


def eta(tally: Tally, left: int) -> float | None:
    """Seconds left: the mean time of the passes read so far, times the passes left."""
    return None if not tally.ms else round(sum(tally.ms) / len(tally.ms) * left / 1000, 1)


def _say_eta(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 60:
        return f", about {seconds:.0f} s left"
    return f", about {int(seconds // 60)} min {int(seconds % 60)} s left"


def _report(passes: Passes, done: int, total: int, note: str, left: float | None) -> None:
    if passes.on_stage is not None:
        passes.on_stage(AnswerStage(Stage.READING, (), 0, done, total, note))
    passes.progress(ProgressEvent("answer", done, total, note, eta_s=left))


def _check(cancel: CancelToken | None) -> None:
    if cancel is not None:
        cancel.raise_if_cancelled()


def generate(
    engine: ChatEngine,
    messages: Sequence[ChatMessage],
    max_tokens: int,
    on_token: TokenCallback | None,
    cancel: CancelToken | None,
    on_prefill: PrefillCallback,
) -> Generation:
    """The model's pass; an engine with token access reports its prompt evaluation, so that a
    part taking minutes to read shows how far it is."""
    if not isinstance(unwrap(engine), TokenGenerating):
        return engine.generate(messages, max_tokens, on_token, cancel)
    token = interleaving(engine, on_token)

    def run(chat: ChatEngine) -> Generation:
        e = token_generating(chat)
        tokens = e.tokenize_prompt(e.render(messages))
        return e.generate_tokens(tokens, max_tokens, token, cancel, on_prefill=on_prefill)

    return run_on_engine(engine, run)


def _reading(passes: Passes, done: int, total: int, note: str) -> PrefillCallback:
    """The prefill progress of one pass, as the pass's note with a percentage."""

    def report(evaluated: int, tokens: int) -> None:
        if passes.on_stage is not None and tokens > 0:
            share = f": read {evaluated / tokens:.0%}" if evaluated < tokens else ""
            passes.on_stage(AnswerStage(Stage.READING, (), tokens, done, total,
                                        f"{note.rstrip(chr(0x2026))}{share}\u2026"))  # fmt: skip

    return report


def summarise_sections(
    passes: Passes, titles: dict[str, str], shas: dict[str, str], todo: Sequence[Section],
    tally: Tally,
) -> dict[int, str]:  # fmt: skip
    """Each section's summary by its number: from the store when kept, else from the model
    (and then kept). `titles` and `shas` give each document's title and content hash."""
    out: dict[int, str] = {}
    total = len(todo)
    for i, section in enumerate(todo):
        _check(passes.cancel)
        kept = passes.store.section(section.key, passes.who)
        if kept is not None:
            out[section.n] = kept
            tally.reused += 1
            continue
        left = eta(tally, total - i)
        note = (f"Summarising part {i + 1} of {total} ({section.place or section.label})"
                f"{_say_eta(left)}\u2026")  # fmt: skip
        _report(passes, i, total, note, left)
        doc = section.chunks[0].doc_id
        reading = _reading(passes, i, total, note)
        out[section.n] = _one(passes, titles[doc], section, (i + 1, total), tally, reading)
        passes.store.put_section(section.key, passes.who, shas[doc], section.place,
                                 out[section.n])  # fmt: skip
    _report(passes, total, total, f"Read all {total} parts; writing the summary\u2026", 0.0)
    return out


def _one(
    passes: Passes, title: str, section: Section, place: tuple[int, int], tally: Tally,
    reading: PrefillCallback,
) -> str:  # fmt: skip
    start = time.perf_counter()
    messages = map_messages(title, section, *place)
    generation = generate(passes.engine(), messages, SECTION_TOKENS, None, passes.cancel, reading)
    if generation.stopped_by == "cancel":
        raise CancelledError()
    tally.add(generation, (time.perf_counter() - start) * 1000)
    tally.read += 1
    return generation.text.strip()


def write_final(
    passes: Passes,
    messages: Sequence[ChatMessage],
    form: Format,
    max_tokens: int,
    sink: Callable[[str], None],
    tally: Tally,
) -> str:
    """The final summary, streamed to `sink` through the bullet gate; a Stop before its first
    word raises CancelledError, after it keeps what was written."""
    stop = LinkedCancel(passes.cancel)
    gate = BulletGate(sink, form.bullets, stop)
    start = time.perf_counter()
    reading = _reading(passes, 0, 0, "Writing the summary\u2026")
    generation = generate(passes.engine(), messages, max_tokens, gate, stop, reading)
    gate.flush()
    tally.add(generation, (time.perf_counter() - start) * 1000)
    if stop.by_user and not gate.text.strip():
        raise CancelledError()
    return gate.text or generation.text


def generate_more(
    passes: Passes, messages: Sequence[ChatMessage], missing: int, tally: Tally
) -> str:
    """One more pass for bullets the summary lacks (not streamed: they are added whole)."""
    _check(passes.cancel)
    stop = LinkedCancel(passes.cancel)
    gate = BulletGate(lambda _piece: None, missing, stop)
    start = time.perf_counter()
    generation = passes.engine().generate(messages, 60 * missing, gate, stop)
    gate.flush()
    tally.add(generation, (time.perf_counter() - start) * 1000)
    if stop.by_user:
        raise CancelledError()
    return gate.text
