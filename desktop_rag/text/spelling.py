"""Words one typo apart: a name typed fast in a question ("neflix", "netfilx" for "netflix"), a
word the question misspelt and the answer spelt right ("labled", "labeled"). The document
focus and the answer's consistency check both ask it."""

from __future__ import annotations


def near(word: str, other: str) -> bool:
    """One edit apart (a typo: "neflix" for "netflix"; two neighbours swapped, "netfilx", count
    as one), for words of five letters or more."""
    if min(len(word), len(other)) < 5 or abs(len(word) - len(other)) > 1:
        return False
    if len(word) == len(other):
        return _one_slip(word, other)
    short, long = sorted((word, other), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _one_slip(word: str, other: str) -> bool:
    """Words of one length that differ by one letter, or by two neighbours swapped (the
    commonest typo of a name typed fast)."""
    differ = [i for i, (a, b) in enumerate(zip(word, other, strict=True)) if a != b]
    if len(differ) != 2:
        return len(differ) == 1
    i, j = differ
    return j == i + 1 and word[i] == other[j] and word[j] == other[i]
