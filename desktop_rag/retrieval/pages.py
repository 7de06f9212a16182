"""Page references in a question: "on page 14", "pages 15 and 16", "the first page", "page two",
"the last page". A search within chosen documents gives the passages of the pages named a bonus,
as a reader who asks about page 14 expects page 14 first."""

from __future__ import annotations

import re

from desktop_rag.domain import PageRefs

_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
          "eight": 8, "nine": 9, "ten": 10}  # fmt: skip
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
             "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10}  # fmt: skip
_NUMBERED = re.compile(
    r"\b(?:pages?|pp?\.)\s*\(?\s*(\d{1,5}(?:\s*(?:,|and|&|to|-|–)\s*\d{1,5})*)", re.IGNORECASE
)
_SPELLED = re.compile(rf"\bpage\s+({'|'.join(_WORDS)})\b", re.IGNORECASE)
_ORDINAL = re.compile(rf"\b({'|'.join(_ORDINALS)}|last|final)\s+page\b", re.IGNORECASE)
_RANGE = re.compile(r"(\d{1,5})\s*(?:to|-|–)\s*(\d{1,5})")
MAX_RANGE = 20


def page_references(question: str) -> PageRefs:
    numbers: set[int] = set()
    for match in _NUMBERED.finditer(question):
        numbers |= _numbers(match.group(1))
    numbers |= {_WORDS[m.group(1).lower()] for m in _SPELLED.finditer(question)}
    ordinals = [m.group(1).lower() for m in _ORDINAL.finditer(question)]
    numbers |= {_ORDINALS[o] for o in ordinals if o in _ORDINALS}
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
