"""How sure a model was of a token: the softmax probability of the token it chose and of the
best other one, from one row of logits. What tells a refusal the model was unsure of from one
it was sure of (services/unsure_refusal.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from desktop_rag.protocols import TokenChoice

Logits = npt.NDArray[np.float32]


def choice_of(logits: Logits, token: int) -> TokenChoice:
    """`token`'s probability under `logits` and the most probable token other than it."""
    row = np.asarray(logits, dtype=np.float64)
    top = row.max()
    weights = np.exp(row - top)
    total = float(weights.sum())
    best_two = np.argpartition(row, -2)[-2:]
    others = [int(t) for t in best_two[np.argsort(-row[best_two])] if int(t) != token]
    alternative = others[0]
    return TokenChoice(token, float(weights[token]) / total, alternative,
                       float(weights[alternative]) / total)  # fmt: skip


def opening(choices: Sequence[TokenChoice], piece: Callable[[int], bytes], ends_at: str) -> int:
    """How many of the first tokens it takes for the text to contain `ends_at` (all of them
    when it never does): the opening words whose probability is the model's decision."""
    text = b""
    for count, choice in enumerate(choices, start=1):
        text += piece(choice.token)
        if ends_at in text.decode("utf-8", errors="replace").lower():
            return count
    return len(choices)


def probability(choices: Sequence[TokenChoice]) -> float:
    """The probability of these tokens together (the product of their choices)."""
    return float(np.prod([c.p for c in choices])) if choices else 1.0


def least_sure(choices: Sequence[TokenChoice]) -> int:
    """The position of the choice the model was least sure of (where another answer begins)."""
    return int(np.argmin([c.p for c in choices]))
