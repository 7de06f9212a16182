"""How far a measured share can be from the true one: 95% intervals for an accuracy and for the
gap between two accuracies (dev against test).

A split of 60 questions answered right 16 times is 0.267, but any rate from 0.17 to 0.39 gives
16 of 60 often enough; a dev/test gap of 6.7 points between two such splits is well within what
chance alone gives. Reporting the interval beside the figure keeps a reader (and a goal such as
"test within 3 points of dev") from reading noise as tuning or as a gain. Wilson's score
interval for one share (it stays inside 0-1 and behaves for small counts); Newcombe's hybrid
score interval (method 10 of his 1998 comparison) for the difference of two independent ones.
"""

from __future__ import annotations

import math
from typing import TypedDict

Z95 = 1.959964  # the normal quantile of a two-sided 95% interval


def wilson(right: int, total: int, z: float = Z95) -> tuple[float, float]:
    """The 95% score interval of `right` / `total` (0-1 when nothing was measured)."""
    if total <= 0:
        return 0.0, 1.0
    p = right / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, centre - half), min(1.0, centre + half)


def gap(a: tuple[int, int], b: tuple[int, int], z: float = Z95) -> tuple[float, float, float]:
    """The difference of two shares, a - b (each as right, total), with its 95% interval."""
    (ka, na), (kb, nb) = a, b
    pa, pb = ka / max(na, 1), kb / max(nb, 1)
    la, ua = wilson(ka, na, z)
    lb, ub = wilson(kb, nb, z)
    diff = pa - pb
    low = diff - math.sqrt((pa - la) ** 2 + (ub - pb) ** 2)
    high = diff + math.sqrt((ua - pa) ** 2 + (pb - lb) ** 2)
    return diff, max(-1.0, low), min(1.0, high)


def questions_for(half_width: float, share: float = 0.5, z: float = Z95) -> int:
    """Questions a split needs so that its gap to another split of the same size is known to
    within `half_width` (95%), at an accuracy near `share`."""
    variance = 2 * share * (1 - share)
    return math.ceil(variance * (z / half_width) ** 2)


class SplitGap(TypedDict):
    dev_minus_test: float
    interval_95: list[float]
    within_chance: bool


def split_gap(dev: tuple[int, int], test: tuple[int, int]) -> SplitGap:
    """Dev minus test accuracy, its 95% interval, and whether chance alone could give it (the
    interval holds 0): a gap inside chance neither shows tuning nor rules it out."""
    diff, low, high = gap(dev, test)
    return {"dev_minus_test": round(diff, 4), "interval_95": [round(low, 4), round(high, 4)],
            "within_chance": low <= 0.0 <= high}  # fmt: skip
