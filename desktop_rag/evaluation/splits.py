"""The dev/test split of every evaluation set, by one rule fixed before any change was measured.

A question (or labelled pair) is in `test` when the first byte of the sha256 of its id is a
multiple of 3 (about a third of every set), else in `dev`. The rule reads nothing but the id, so
it cannot be bent towards questions that a change happens to answer: rules and constants are
tuned on `dev`, and `test` says whether the gain holds on questions nobody read while tuning.
A rephrasing of a question keeps its original's split (`original` id): a question and its
rewordings are never on both sides.

Every `eval` command takes `--split dev|test|all` and reports the two side by side.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

DEV, TEST, ALL = "dev", "test", "all"
SPLITS = (DEV, TEST, ALL)
T = TypeVar("T")


def split_of(qid: str) -> str:
    """`test` for about a third of all ids (sha256's first byte divisible by 3), else `dev`."""
    first = hashlib.sha256(qid.strip().encode("utf-8")).digest()[0]
    return TEST if first % 3 == 0 else DEV


def base_id(qid: str) -> str:
    """The original's id of a rephrasing ("mmlb-0007~r1" -> "mmlb-0007"): its split's key."""
    return qid.split("~", 1)[0]


def in_split(qid: str, split: str) -> bool:
    """Whether the question `qid` (or the original of a rephrasing) belongs to `split`."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; use {', '.join(SPLITS)}")
    return split == ALL or split_of(base_id(qid)) == split


def only(items: Iterable[T], split: str, qid: Callable[[T], str]) -> list[T]:
    """The items of `split` (all of them for `all`), in their order."""
    return [item for item in items if in_split(qid(item), split)]


def side_by_side(
    records: Sequence[dict[str, Any]],
    summarise: Callable[[Sequence[dict[str, Any]]], dict[str, Any]],
    key: str = "id",
) -> dict[str, dict[str, Any]]:
    """`summarise` over the dev records and over the test records (a side without records is
    left out), so every report shows whether a figure holds on the held-out third."""
    out: dict[str, dict[str, Any]] = {}
    for name in (DEV, TEST):
        part = [r for r in records if split_of(base_id(str(r[key]))) == name]
        if part:
            out[name] = summarise(part)
    return out
