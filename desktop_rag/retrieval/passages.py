"""Splits a long text into passages the embedder reads whole.

MiniLM reads at most 256 word pieces and silently cuts the rest, so a long abstract is embedded
as several overlapping passages (each starting with the title) and scored by its best passage.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])")
SPECIAL_TOKENS = 2  # [CLS] and [SEP] count against the model's limit

CountFn = Callable[[Sequence[str]], list[int]]


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def _hard_split(sentence: str, pieces: int, budget: int) -> list[str]:
    """Cuts one over-long sentence into word runs of about `budget` word pieces."""
    words = sentence.split()
    parts = max(2, -(-pieces // max(budget, 1)))
    size = -(-len(words) // parts)
    return [" ".join(words[i : i + size]) for i in range(0, len(words), size)]


def _units(
    sentences: list[str], counts: list[int], budget: int, count: CountFn
) -> list[tuple[str, int]]:
    units: list[tuple[str, int]] = []
    for sentence, pieces in zip(sentences, counts, strict=True):
        if pieces <= budget:
            units.append((sentence, pieces))
            continue
        parts = _hard_split(sentence, pieces, budget)
        units.extend(zip(parts, count(parts), strict=True))
    return units


def _windows(units: list[tuple[str, int]], budget: int) -> list[str]:
    """Greedy windows of whole units, each next window repeating the previous last unit."""
    windows: list[str] = []
    start = 0
    while start < len(units):
        end, used = start, 0
        while end < len(units) and used + units[end][1] <= budget:
            used += units[end][1]
            end += 1
        end = max(end, start + 1)
        windows.append(" ".join(u[0] for u in units[start:end]))
        if end >= len(units):
            break
        start = end - 1 if end - 1 > start else end
    return windows


def split_passages(title: str, text: str, count: CountFn, max_word_pieces: int) -> list[str]:
    """`title. text` when it fits; otherwise overlapping sentence windows, each after the title."""
    head = f"{title.strip()}. " if title.strip() else ""
    whole = f"{head}{text.strip()}".strip()
    budget = max_word_pieces - SPECIAL_TOKENS
    if count([whole])[0] <= budget:
        return [whole]
    room = max(budget - count([head])[0], budget // 2)
    sentences = split_sentences(text)
    units = _units(sentences, count(sentences), room, count)
    return [f"{head}{w}" for w in _windows(units, room)]
