"""The stages of one answer, reported as each begins, so that a 15-70 s wait is visible.

`StageReporter` is also the answer's token sink: the first piece of text begins the writing
stage. Travelling with the tokens, it reaches the engine call where the prompt's size and the
prefill progress become known, without a stage parameter on every step in between.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from desktop_rag.domain import AnswerStage, Passage, Stage
from desktop_rag.domain.progress import CancelToken
from desktop_rag.domain.protocols import (
    ChatEngine,
    ChatMessage,
    Generation,
    TokenCallback,
    TokenGenerating,
)

StageSink = Callable[[AnswerStage], None]


class StageReporter:
    """The stages of one answer to `on_stage` (if any); pieces of text go on to `on_token`."""

    def __init__(self, on_token: TokenCallback | None, on_stage: StageSink | None) -> None:
        self.on_token = on_token
        self.on_stage = on_stage
        self.passages: tuple[Passage, ...] = ()
        self.prompt_tokens = 0
        self._writing = False
        self._hold_for = ""  # text held back while the answer so far begins it
        self._held = ""

    def searching(self) -> None:
        self._emit(Stage.SEARCHING)

    def found(self, passages: Sequence[Passage]) -> None:
        """Retrieval has ended: every later stage carries the answer's passages."""
        self.passages = tuple(passages)

    def restoring(self) -> None:
        self._emit(Stage.RESTORING)

    def reading(self, prompt_tokens: int) -> None:
        self.prompt_tokens = prompt_tokens
        self._emit(Stage.READING)

    def prefill(self, done: int, total: int) -> None:
        """The engine's prefill callback: `done` of `total` prompt tokens are evaluated."""
        self._emit(Stage.READING, done, total)

    def hold_while(self, text: str) -> None:
        """Pieces are held back while the answer so far is the beginning of `text` (a refusal
        that a post-step may replace), and passed on as soon as it is not."""
        self._hold_for, self._held = text.lower(), ""

    def release(self) -> None:
        """The held text is the answer after all: pass it on."""
        held, self._held, self._hold_for = self._held, "", ""
        if held:
            self._forward(held)

    def discard(self) -> None:
        """The held text is replaced: drop it."""
        self._held, self._hold_for = "", ""

    def __call__(self, piece: str) -> None:
        if not self._writing:
            self._writing = True
            self._emit(Stage.WRITING)
        if self._hold_for:
            self._held += piece
            flat = " ".join(self._held.split()).lower()
            if self._hold_for.startswith(flat) or flat.startswith(self._hold_for):
                return
            piece, self._held, self._hold_for = self._held, "", ""
        self._forward(piece)

    def _forward(self, piece: str) -> None:
        if self.on_token is not None:
            self.on_token(piece)

    def _emit(self, stage: Stage, done: int = 0, total: int = 0, note: str = "") -> None:
        if self.on_stage is not None:
            self.on_stage(AnswerStage(stage, self.passages, self.prompt_tokens, done, total, note))


def reporter_of(on_token: TokenCallback | None) -> StageReporter:
    """The reporter that `ask` passed down as the token sink (a plain sink gets a silent one)."""
    return on_token if isinstance(on_token, StageReporter) else StageReporter(on_token, None)


def prompt_size(engine: ChatEngine, messages: Sequence[ChatMessage]) -> int:
    """The prompt's tokens as far as an engine without token access can say (an LLM server)."""
    return sum(engine.count_tokens(m.content) for m in messages)


def check(cancel: CancelToken | None) -> None:
    """A Stop before the model writes ends the answer at once: there is nothing to keep."""
    if cancel is not None:
        cancel.raise_if_cancelled()


def generate_in_steps(
    engine: TokenGenerating,
    messages: Sequence[ChatMessage],
    max_tokens: int,
    on_token: TokenCallback | None,
    cancel: CancelToken | None,
    stages: StageReporter,
) -> Generation:
    """On the engine thread: what LlamaEngine.generate does, with the prompt's size and the
    prefill progress reported."""
    tokens = engine.tokenize_prompt(engine.render(messages))
    stages.reading(len(tokens))
    return engine.generate_tokens(tokens, max_tokens, on_token, cancel, on_prefill=stages.prefill)
