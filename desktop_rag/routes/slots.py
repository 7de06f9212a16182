"""Lines that put another value where other lines state the condition.

A register repeats one template: "Invoice INV-20028 from Acme Ltd: 5233.00 EUR, due 2024-03-10,
paid 2024-04-10 (late)." and, 528 times, the same with "(on time)" in that place; a sheet's rows
say "Category: food" and "Category: travel". When a count asks for "paid late", the lines that
say "late" are items by matching; the others go to the judge (routes/matching.py), except those
that differ from a stated line in that place and only in short places besides (each line's own
number, name or item): they state another value of the same thing ("on time", "early",
"travel"), and are not items. Asking the model about them would make one wrong verdict a
hundred wrong items: the test profile's small model took 5 of a budget sheet's other
categories for "food". Lines phrased otherwise ("overdue when it came back") are judged.

What this cannot see: a synonym in the same place ("returned overdue" beside "returned 3 weeks
late") is taken for another value. Lines that share less than half their words are no template
("Table 6: Statistics of nine datasets used." beside "We run experiments on nine widely-used
datasets").

Words with a digit and capitalised words (identifiers, amounts, dates, names, titles) are one
placeholder per run when lines are compared, so that each line's own values do not break the
template.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

from desktop_rag.text.words import stem_set

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
SLOT = 3  # words at most in a place where a line differs from a line stating the condition
PROBES = 5  # stating lines each line is compared with

Shape = tuple[tuple[str, ...], tuple[str, ...]]


def _shape(text: str) -> Shape:
    """(the line's words, lowercased; the same with one placeholder for each run of values:
    "'The Hobbit'" and "'Dune'" are both one value)."""
    words: list[str] = []
    shape: list[str] = []
    for word in _TOKEN.findall(text):
        value = any(c.isdigit() for c in word) or word[:1].isupper()
        if value and shape and shape[-1] == "#":
            words[-1] += " " + word.lower()
            continue
        words.append(word.lower())
        shape.append("#" if value else word.lower())
    return tuple(words), tuple(shape)


def _another_value(
    stated: tuple[tuple[frozenset[str], ...], tuple[str, ...]],
    line: tuple[str, ...],
    lacking: frozenset[str],
) -> bool:
    """Whether the line (its shape) is the stated one (its words' stems, its shape) with other
    words where the stated line says the condition's words the line lacks, and differs from it
    elsewhere only in short places."""
    s_stems, s_shape = stated
    saying = {i for i, word in enumerate(s_stems) if word & lacking}
    if not saying:
        return False
    there, same = False, 0
    matcher = SequenceMatcher(None, s_shape, line, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            same += i2 - i1
            continue
        if i2 - i1 > SLOT or j2 - j1 > SLOT:
            return False
        if saying & set(range(i1, i2)):
            if j1 == j2 or not saying <= set(range(i1, i2)):
                return False  # nothing in its place, or the condition split over places
            there = True
    return there and 2 * same >= len(s_shape)  # a template: at least half its words the same


def another_value(
    stated: Sequence[str], lines: Sequence[str], condition: Sequence[str]
) -> list[bool]:
    """For each of `lines`: whether it states another value where a stated line (of the first
    `PROBES`) states the condition. Each text is stemmed once."""
    wanted = frozenset(condition)
    probes = []
    for text in stated[:PROBES]:
        words, shape = _shape(text)
        probes.append((tuple(stem_set(word) for word in words), shape))
    out = []
    for text in lines:
        words, shape = _shape(text)
        lacking = wanted - stem_set(" ".join(words))
        out.append(bool(lacking) and any(_another_value(p, shape, lacking) for p in probes))
    return out
