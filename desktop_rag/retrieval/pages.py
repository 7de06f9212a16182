"""Page references in a question: "on page 14", "pages 15 and 16", "the first page", "page two",
"page fourteen", "the 14th page", "the twenty-first page", "the last page". A search within
chosen documents gives the passages of the pages named a bonus, as a reader who asks about
page 14 expects page 14 first."""

from __future__ import annotations

import re

from desktop_rag.domain import PageRefs
from desktop_rag.text.number_words import ORDINAL_PATTERN, PATTERN, word_number

_NUMBERED = re.compile(
    r"\b(?:pages?(?:\s+(?:number|no\.?))?|pp?\.)\s*\(?\s*"
    r"(\d{1,5}(?:\s*(?:,|and|&|to|-|–)\s*\d{1,5})*)",
    re.IGNORECASE,
)
_SPELLED = re.compile(rf"\bpages?\s+(?:number\s+)?({PATTERN})\b", re.IGNORECASE)
_ORDINAL = re.compile(rf"\b({ORDINAL_PATTERN}|\d{{1,5}}(?:st|nd|rd|th)|last|final)\s+page\b",
                      re.IGNORECASE)  # fmt: skip
_RANGE = re.compile(r"(\d{1,5})\s*(?:to|-|–)\s*(\d{1,5})")
MAX_RANGE = 20


def page_references(question: str) -> PageRefs:
    numbers: set[int] = set()
    for match in _NUMBERED.finditer(question):
        numbers |= _numbers(match.group(1))
    for match in _SPELLED.finditer(question):
        numbers.add(word_number(match.group(1)) or 0)
    ordinals = [m.group(1).lower() for m in _ORDINAL.finditer(question)]
    for ordinal in ordinals:
        digits = re.match(r"\d+", ordinal)
        numbers.add(int(digits.group()) if digits else (word_number(ordinal) or 0))
    last = any(o in ("last", "final") for o in ordinals)
    return PageRefs(frozenset(n for n in numbers if n > 0), last)


def _numbers(run: str) -> set[int]:
    """The page numbers of "15 and 16", "3, 5", "10-12" (a range of at most MAX_RANGE pages)."""
    found = {int(n) for n in re.findall(r"\d+", run)}
    for start, end in _RANGE.findall(run):
        low, high = int(start), int(end)
        if 0 < high - low <= MAX_RANGE:
            found |= set(range(low, high + 1))
    return found
