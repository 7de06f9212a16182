"""A refusal the model was unsure of is reconsidered: its best other answer is taken instead,
when the sources support it.

Why: on MMLongBench the default 1.5B model refused about a third of the answerable questions
whose evidence page it had been given, and the greedy decoder turns a 45% refusal into the
whole answer as surely as a 99% one. The probability the model gave its refusal's opening words
("The documents do not") says how sure it was. Below `llm.refusal_threshold` the decoder
starts again from the token it was least sure of, with the best other token there, and the
answer it then writes replaces the refusal only when it is not a refusal itself and the support
check flags none of its sentences (an answer to a question the sources cannot answer usually
states a number or a name they do not hold). The threshold was chosen on part of a measured set
(README, "Fewer false refusals"); a refusal is final when the model was sure of it.

The prompt's KV cache is reused, so the cost is the new answer's tokens only; engines that
give no token choices (an LLM server) keep their refusals.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from desktop_rag.bootstrap import AppContext
from desktop_rag.domain import Passage, Reconsidered
from desktop_rag.llm.calc_support import unsupported
from desktop_rag.llm.calculations import check_calculations
from desktop_rag.llm.citations import CitationChecker
from desktop_rag.llm.prompts import is_not_found
from desktop_rag.llm.token_choices import least_sure, opening, probability
from desktop_rag.llm.worker import run_on_engine, unwrap
from desktop_rag.progress import CancelToken
from desktop_rag.protocols import Branching, Generation
from desktop_rag.services.answer_timings import since
from desktop_rag.services.stages import StageReporter

REFUSAL_TURN = " not"  # the refusal's opening words end with its negation ("do not contain")
# The other answer declines in other words ("The document does not contain this information.",
# "The figure does not mention any numbers"): measured on MMLongBench, both were taken as answers.
_DECLINES = re.compile(r"\b(?:do|does|did)\s+not\s+(?:contain|mention|include|provide|say|state)\b"
                       r"|\bno\s+(?:information|mention)\b", re.IGNORECASE)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Branch:
    """What the engine thread found: the refusal opening's probability, where the other answer
    begins, and that answer (None when the model was sure)."""

    p: float
    at: int
    text: str | None


class UnsureRefusals:
    """Reconsiders the refusals the model was unsure of (see the module text)."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx

    @property
    def threshold(self) -> float:
        return self.ctx.settings.llm.refusal_threshold

    @property
    def enabled(self) -> bool:
        return self.threshold > 0 and isinstance(unwrap(self.ctx.engine), Branching)

    def reconsider(
        self,
        question: str,
        generation: Generation,
        passages: Sequence[Passage],
        stages: StageReporter,
        cancel: CancelToken | None,
    ) -> tuple[str | None, Reconsidered | None]:
        """The answer that replaces the refusal in `generation` (None: it stands) and what was
        found; (None, None) when there is nothing to reconsider."""
        if not (self.enabled and generation.choices and passages):
            return None, None
        start = time.perf_counter()
        stages.reconsidering()
        branch = run_on_engine(self.ctx.engine, lambda e: self._branch(e, generation, cancel))
        found = Reconsidered("sure", branch.p, generation.text, branch.at, ms=since(start))
        if branch.text is None:
            return None, found
        return self._judged(question, branch.text, passages, found, cancel)

    def _branch(self, engine: Branching, generation: Generation, cancel: CancelToken | None
                ) -> Branch:  # fmt: skip
        """On the engine thread: the opening's probability and, below the threshold, the
        answer begun with the best other token where the model was least sure."""
        choices = generation.choices
        opened = choices[: opening(choices, engine.piece, REFUSAL_TURN)]
        p, at = probability(opened), least_sure(opened)
        if p >= self.threshold:
            return Branch(p, at, None)
        prefix = [c.token for c in choices[:at]] + [choices[at].alternative]
        limit = self.ctx.settings.llm.max_tokens
        rest = engine.branch(prefix, limit, None, cancel)
        head = b"".join(engine.piece(t) for t in prefix).decode("utf-8", errors="replace")
        return Branch(p, at, head + rest.text)

    def _judged(
        self,
        question: str,
        text: str,
        passages: Sequence[Passage],
        found: Reconsidered,
        cancel: CancelToken | None,
    ) -> tuple[str | None, Reconsidered]:
        """The other answer, kept only when it is no refusal and no sentence of it is flagged."""
        flagged = self._flagged(text, passages, question)
        outcome = ("cancelled" if cancel is not None and cancel.cancelled
                   else "refused_again" if declines(text)
                   else "unsupported" if flagged else "answered")  # fmt: skip
        judged = Reconsidered(outcome, found.p, found.first_answer, found.at, text.strip(),
                              flagged, found.ms)  # fmt: skip
        return (judged.alternative if judged.answered else None), judged

    def _flagged(self, text: str, passages: Sequence[Passage], question: str) -> int:
        """How many of its sentences the answer's own support check would flag."""
        sentences = CitationChecker(self.ctx.embedder).check(text, passages)
        return len(unsupported(sentences, check_calculations(text, passages, question), passages))


def declines(text: str) -> bool:
    """The answer is a refusal, in the prompt's words or in others."""
    return not text.strip() or is_not_found(text) or _DECLINES.search(text) is not None
