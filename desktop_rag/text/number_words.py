"""Numbers written as words, cardinal or ordinal, up to ninety-nine: "fourteen", "twenty-one",
"fourteenth", "twenty first". A reader asks about "page fourteen" as often as "page 14"."""

from __future__ import annotations

import re

_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
          "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
          "eighteen", "nineteen"]  # fmt: skip
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}  # fmt: skip
_ORDINAL_UNITS = {"first": 1, "second": 2, "third": 3, "fifth": 5, "eighth": 8, "ninth": 9,
                  "twelfth": 12}  # fmt: skip
CARDINALS = {w: n for n, w in enumerate(_UNITS)} | _TENS
ORDINALS = ({w + "th": n for w, n in CARDINALS.items() if n >= 4 and w[-1] not in "ty"}
            | {w[:-1] + "ieth": n for w, n in _TENS.items()} | _ORDINAL_UNITS)  # fmt: skip
_UNIT = "|".join(sorted(set(CARDINALS) | set(ORDINALS), key=len, reverse=True))
_TEN = "|".join(_TENS)
PATTERN = rf"(?:(?:{_TEN})[\s-]+(?:{_UNIT})|{_UNIT})"  # one number in words, as a regex part
_ORDINAL = "|".join(sorted(ORDINALS, key=len, reverse=True))
ORDINAL_PATTERN = rf"(?:(?:{_TEN})[\s-]+(?:{_ORDINAL})|{_ORDINAL})"  # "fourteenth", "twenty-first"
_SPLIT = re.compile(r"[\s-]+")


def word_number(text: str) -> int | None:
    """The value of a number in words ("twenty-one", "Fourteenth"), else None."""
    parts = _SPLIT.split(text.strip().lower())
    values = [CARDINALS.get(p, ORDINALS.get(p)) for p in parts]
    if not parts or None in values or len(parts) > 2:
        return None
    if len(parts) == 2:
        tens, unit = values
        if parts[0] not in _TENS or not (unit and 0 < unit < 10):
            return None
        return int(tens) + int(unit)  # type: ignore[arg-type]
    return values[0]
