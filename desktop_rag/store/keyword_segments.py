"""One segment of the persisted keyword index: the term counts of some documents' chunks, saved
as .npy files that a new process memory-maps instead of indexing the library again.

Why term counts and not bm25s's saved index: bm25s stores finished scores, with the IDF and the
average chunk length of the corpus it was built from baked in. A library that changes would then
either rebuild one index whole after every change (45.9 s at 250,000 chunks) or rank each part
with its own statistics. A segment keeps what the scores are made of (per term: the rows that
hold it and how often), so the index (store/keyword_index.py) scores over all its segments with
the statistics of the whole live library, exactly the BM25 that one index over it would give.

Files of a segment folder (all written before the manifest names the folder):
  terms.npy    uint64, sorted: a stable 64-bit hash of each distinct term (searchsorted finds a
               term without loading a vocabulary)
  starts.npy   int64, len(terms) + 1: term i's postings are rows[starts[i]:starts[i+1]]
  rows.npy     int32 row of each posting; tfs.npy float32 its count in that row
  lengths.npy  float32 token count of each row; docs.npy int32 the row's document (its position
               in meta.json's "docs"); ids.npy fixed-width bytes, the row's chunk id
  meta.json    {"docs": [...], "revs": [...], "rows": n, "postings": m, "terms": t}
"""

from __future__ import annotations

import hashlib
import json
from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path

import numpy as np
import numpy.typing as npt

_ARRAYS = ("terms", "starts", "rows", "tfs", "lengths", "docs", "ids")


class DamagedSegment(Exception):
    """A segment's files are missing, truncated or do not agree with each other."""


def term_hash(term: str) -> int:
    """A hash that is the same in every process (Python's own hash() is salted per process)."""
    return int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=8).digest(), "little")


@dataclass(frozen=True, slots=True)
class Segment:
    """The arrays of one segment (memory-mapped when loaded) and the documents it holds."""

    terms: npt.NDArray[np.uint64]
    starts: npt.NDArray[np.int64]
    rows: npt.NDArray[np.int32]
    tfs: npt.NDArray[np.float32]
    lengths: npt.NDArray[np.float32]
    docs: npt.NDArray[np.int32]
    ids: npt.NDArray[np.bytes_]
    doc_ids: tuple[str, ...]
    revs: tuple[int, ...]

    @property
    def size(self) -> int:
        return len(self.lengths)

    def postings(self, term: int) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float32]]:
        """(rows, counts) of one term hash; empty arrays when no row holds it."""
        i = int(np.searchsorted(self.terms, np.uint64(term)))
        if i >= len(self.terms) or int(self.terms[i]) != term:
            return _NO_ROWS, _NO_TFS
        lo, hi = int(self.starts[i]), int(self.starts[i + 1])
        return self.rows[lo:hi], self.tfs[lo:hi]


_NO_ROWS = np.zeros(0, np.int32)
_NO_TFS = np.zeros(0, np.float32)
_NO_TERMS = np.zeros(0, np.uint64)


class SegmentBuilder:
    """Collects rows one at a time into compact arrays (a million chunks hold about 80 million
    postings: Python lists of them would take gigabytes)."""

    def __init__(self) -> None:
        self.doc_ids: list[str] = []
        self._codes: dict[str, int] = {}
        self._vocab: dict[str, int] = {}
        self._terms = array("I")
        self._rows = array("i")
        self._tfs = array("f")
        self._lengths = array("f")
        self._docs = array("i")
        self._ids: list[bytes] = []

    @property
    def size(self) -> int:
        return len(self._ids)

    def add(self, chunk_id: str, doc_id: str, tokens: list[str]) -> None:
        code = self._codes.get(doc_id)
        if code is None:
            code = self._codes[doc_id] = len(self.doc_ids)
            self.doc_ids.append(doc_id)
        row = len(self._ids)
        self._ids.append(chunk_id.encode("utf-8"))
        self._docs.append(code)
        self._lengths.append(len(tokens))
        vocab = self._vocab
        counts = Counter(tokens)
        terms = [vocab.setdefault(term, len(vocab)) for term in counts]
        self._terms.extend(terms)
        self._rows.extend(repeat(row, len(terms)))
        self._tfs.extend(counts.values())

    def finish(self, revs: dict[str, int]) -> Segment:
        hashes = np.fromiter((term_hash(t) for t in self._vocab), np.uint64, len(self._vocab))
        terms = hashes[np.frombuffer(self._terms, np.uint32)] if self._terms else _NO_TERMS
        ids = np.array(self._ids or [b""], dtype=np.bytes_)[: len(self._ids)]
        return _from_postings(
            terms, np.frombuffer(self._rows, np.int32).copy(),
            np.frombuffer(self._tfs, np.float32).copy(),
            np.frombuffer(self._lengths, np.float32).copy(),
            np.frombuffer(self._docs, np.int32).copy(), ids, tuple(self.doc_ids),
            tuple(revs[d] for d in self.doc_ids),
        )


def build_segment(
    rows: Iterable[tuple[str, str, list[str]]], revs: dict[str, int]
) -> Segment:
    """A segment from (chunk id, document id, tokens) rows."""
    builder = SegmentBuilder()
    for chunk_id, doc_id, tokens in rows:
        builder.add(chunk_id, doc_id, tokens)
    return builder.finish(revs)


def _from_postings(
    terms: npt.NDArray[np.uint64], rows: npt.NDArray[np.int32], tfs: npt.NDArray[np.float32],
    lengths: npt.NDArray[np.float32], docs: npt.NDArray[np.int32], ids: npt.NDArray[np.bytes_],
    doc_ids: tuple[str, ...], revs: tuple[int, ...],
) -> Segment:
    """Sorts postings by term (then row) and makes the term table."""
    order = np.lexsort((rows, terms))
    terms, rows, tfs = terms[order], rows[order], tfs[order]
    distinct, first = np.unique(terms, return_index=True)
    starts = np.append(first, len(terms)).astype(np.int64)
    return Segment(distinct.astype(np.uint64), starts, rows, tfs, lengths, docs, ids, doc_ids,
                   revs)  # fmt: skip


def merge_segments(parts: Sequence[tuple[Segment, npt.NDArray[np.bool_]]]) -> Segment:
    """One segment of the live rows (mask True) of several, without reading any text again."""
    all_terms, all_rows, all_tfs, lengths, docs, ids = [], [], [], [], [], []
    doc_ids: list[str] = []
    revs: list[int] = []
    base = 0
    for seg, alive in parts:
        renumber = np.cumsum(alive, dtype=np.int64) - 1 + base  # old row -> new row
        term_of = np.repeat(seg.terms, np.diff(seg.starts))
        keep = alive[seg.rows]
        all_terms.append(term_of[keep])
        all_rows.append(renumber[seg.rows[keep]].astype(np.int32))
        all_tfs.append(np.asarray(seg.tfs)[keep])
        used = np.unique(seg.docs[alive])
        recode = np.full(len(seg.doc_ids), -1, np.int32)
        recode[used] = np.arange(len(doc_ids), len(doc_ids) + len(used), dtype=np.int32)
        doc_ids += [seg.doc_ids[i] for i in used]
        revs += [seg.revs[i] for i in used]
        lengths.append(np.asarray(seg.lengths)[alive])
        docs.append(recode[seg.docs[alive]])
        ids.append(np.asarray(seg.ids)[alive])
        base += int(alive.sum())
    width = max((a.dtype.itemsize for a in ids), default=1)
    return _from_postings(
        np.concatenate(all_terms).astype(np.uint64), np.concatenate(all_rows),
        np.concatenate(all_tfs).astype(np.float32), np.concatenate(lengths).astype(np.float32),
        np.concatenate(docs).astype(np.int32),
        np.concatenate([a.astype(f"S{width}") for a in ids]), tuple(doc_ids), tuple(revs),
    )


def save_segment(seg: Segment, folder: Path) -> None:
    """Writes the arrays, then meta.json (its counts are what `load_segment` checks)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in _ARRAYS:
        np.save(folder / f"{name}.npy", np.asarray(getattr(seg, name)), allow_pickle=False)
    meta = {"docs": list(seg.doc_ids), "revs": list(seg.revs), "rows": seg.size,
            "postings": len(seg.rows), "terms": len(seg.terms)}  # fmt: skip
    (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")


def load_segment(folder: Path) -> Segment:
    """Memory-maps a saved segment; DamagedSegment when a file is missing or does not fit."""
    name = "meta.json"
    try:
        meta = json.loads((folder / name).read_text(encoding="utf-8"))
        arrays = {}
        for name in (f"{n}.npy" for n in _ARRAYS):
            arrays[name[:-4]] = np.load(folder / name, mmap_mode="r", allow_pickle=False)
        seg = Segment(**arrays, doc_ids=tuple(meta["docs"]), revs=tuple(meta["revs"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DamagedSegment(f"{folder.name}/{name}: {exc}") from exc
    _check(seg, meta, folder)
    return seg


def _check(seg: Segment, meta: dict[str, int], folder: Path) -> None:
    rows, postings, terms = meta["rows"], meta["postings"], meta["terms"]
    fits = (
        len(seg.lengths) == len(seg.docs) == len(seg.ids) == rows
        and len(seg.rows) == len(seg.tfs) == postings
        and len(seg.terms) == terms and len(seg.starts) == terms + 1
        and len(seg.doc_ids) == len(seg.revs)
        and (terms == 0 or (int(seg.starts[0]) == 0 and int(seg.starts[-1]) == postings))
    )
    if not fits:
        raise DamagedSegment(f"{folder.name}: its files do not agree with meta.json")
