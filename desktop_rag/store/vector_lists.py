"""Inverted lists over the vector copy, so that a search of a big library reads a few percent of
its vectors instead of all of them.

Brute force over the memory-mapped copy is exact and fast while the copy is small (about 20 ms
at 100,000 rows on this project's 2-core machine), but it grows with every row: 56 ms at
300,000, and the whole 1.5 GB at a million. Past `LIST_MIN_ROWS` the copy is written grouped by
the nearest of `sqrt(rows)` centroids (spherical k-means on a sample), and a search scores the
centroids, then only the rows of the `probe` best lists. The rows of a list lie next to each
other, so a probe reads contiguous pages. Scoped searches (one document, ten documents) stay
exact: they score only their own rows.

The copy's rows keep their meaning (row i is still `ids[i]`); the lists only say where each
list's rows start (`offsets`), so masks, removals and the journal work on rows as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

LIST_MIN_ROWS = 150_000  # below it the copy is searched exactly
FILE = "lists.npz"
_SAMPLE_PER_LIST = 48  # training rows per centroid
_ITERATIONS = 10
_BLOCK = 32_768  # rows scored against the centroids at a time
PROBE_SHARE = 0.2  # of the lists read per search: the smallest share with recall@10 >= 0.99 on dev
MIN_PROBE = 24


@dataclass(frozen=True, slots=True)
class Lists:
    centroids: npt.NDArray[np.float32]  # (lists, dims), unit rows
    offsets: npt.NDArray[np.int64]  # list l holds rows offsets[l]:offsets[l+1]
    share: float = PROBE_SHARE  # of the lists, read per search

    @property
    def probe(self) -> int:
        return min(len(self.centroids), max(MIN_PROBE, round(len(self.centroids) * self.share)))

    def scored(
        self, vectors: Any, query: npt.NDArray[np.float32]  # an array, or vector_tail.Stacked
    ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float32]]:
        """The rows of the lists nearest `query` and every row past the listed ones, with their
        scores; each list is one contiguous slice of `vectors` (nothing gathered)."""
        scores = self.centroids @ query
        probe = self.probe
        chosen = (np.sort(np.argpartition(-scores, probe - 1)[:probe]) if probe < len(scores)
                  else np.arange(len(scores)))  # fmt: skip
        spans = [(int(self.offsets[c]), int(self.offsets[c + 1])) for c in chosen]
        spans.append((int(self.offsets[-1]), len(vectors)))
        rows = np.concatenate([np.arange(lo, hi) for lo, hi in spans])
        sims = np.concatenate([np.asarray(vectors[lo:hi]) @ query for lo, hi in spans])
        return rows, sims.astype(np.float32, copy=False)


def list_count(rows: int) -> int:
    return max(1, int(np.sqrt(rows)))


def train(vectors: npt.NDArray[np.float32], lists: int, seed: int = 0) -> npt.NDArray[np.float32]:
    """`lists` unit centroids from spherical k-means on a sample of `vectors`' rows."""
    rng = np.random.default_rng(seed)
    take = min(len(vectors), lists * _SAMPLE_PER_LIST)
    sample = np.asarray(vectors[np.sort(rng.choice(len(vectors), take, replace=False))])
    centroids = sample[rng.choice(take, lists, replace=False)].copy()
    for _ in range(_ITERATIONS):
        labels = assign(sample, centroids)
        sums = np.zeros_like(centroids)
        np.add.at(sums, labels, sample)
        empty = ~sums.any(axis=1)
        sums[empty] = sample[rng.choice(take, int(empty.sum()), replace=False)]
        centroids = _unit(sums)
    return centroids


def assign(
    vectors: npt.NDArray[np.float32], centroids: npt.NDArray[np.float32]
) -> npt.NDArray[np.intp]:
    """The nearest centroid of each row, in blocks (the copy may be memory-mapped)."""
    out = np.empty(len(vectors), dtype=np.intp)
    for lo in range(0, len(vectors), _BLOCK):
        block = np.asarray(vectors[lo : lo + _BLOCK])
        out[lo : lo + len(block)] = np.argmax(block @ centroids.T, axis=1)
    return out


def grouped(
    labels: npt.NDArray[np.intp], lists: int
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.int64]]:
    """The row order that groups rows by list (stable), and where each list starts."""
    order = np.argsort(labels, kind="stable")
    offsets = np.zeros(lists + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(np.bincount(labels, minlength=lists))
    return order, offsets


def save(build: Path, lists: Lists) -> None:
    np.savez(build / FILE, centroids=lists.centroids, offsets=lists.offsets)


def load(build: Path, rows: int) -> Lists | None:
    """The build's lists (None: it has none, or they do not fit its rows)."""
    try:
        with np.load(build / FILE) as data:
            found = Lists(data["centroids"].astype(np.float32), data["offsets"].astype(np.int64))
    except (OSError, ValueError, KeyError):
        return None
    offsets = found.offsets
    if len(offsets) != len(found.centroids) + 1 or offsets[0] != 0 or offsets[-1] > rows:
        return None
    return found if bool(np.all(np.diff(offsets) >= 0)) else None


def _unit(rows: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return (rows / np.where(norms == 0, 1, norms)).astype(np.float32)


def list_of_rows(lists: Lists, rows: npt.NDArray[np.intp]) -> npt.NDArray[np.intp]:
    """The list each row of a listed copy belongs to (rows past the lists: the nearest list is
    unknown, -1)."""
    found = np.searchsorted(lists.offsets, rows, side="right") - 1
    return np.where(rows < lists.offsets[-1], found, -1).astype(np.intp)


def regrouped(
    lists: Lists, kept: npt.NDArray[np.intp], added: npt.NDArray[np.float32],
    old: Any,  # the old copy's rows: an array, or vector_tail.Stacked
) -> tuple[npt.NDArray[np.intp], Lists]:
    """How a listed copy changes when only `kept` of its rows stay and `added` rows join: the
    order of the new rows (indexes below len(kept) are kept rows, the others added ones) and the
    new offsets. Only the added rows (and any unlisted kept row) are scored against the
    centroids, so a small change to a big copy costs little beyond copying it."""
    labels = np.concatenate([list_of_rows(lists, kept), assign(added, lists.centroids)])
    unknown = np.flatnonzero(labels < 0)
    if len(unknown):
        labels[unknown] = assign(np.asarray(old[kept[unknown]]), lists.centroids)
    order, offsets = grouped(labels, len(lists.centroids))
    return order, Lists(lists.centroids, offsets)
