"""Faster stand-ins for PyMuPDF table-refinement helpers that cost the table pass most of its
time outside the layout model, giving exactly the same results.

Profiled on the queued pages of a 10-K (cProfile, 20 pages): `find_tables(union=True,
refine=True)` spent a fifth of its time in `_refine_cell_background_rects`, which compares every
shaded rectangle near a table with every other through pymupdf.Rect objects (221,000 `&`
operations on 20 pages: a report's shaded rows make hundreds of rectangles a page). The same
test over numpy arrays takes milliseconds. Coordinates are the rectangles' own (float32 values
from MuPDF, held as Python floats), and intersection, area and the two comparisons are computed
in the same double arithmetic as Rect does, so the rectangles kept are the same ones.

Measured again on 40 queued pages of two 10-Ks (py-spy), three more stand-ins, each giving
the same tables (tests/test_table_chars.py): the character list built in numpy
(ingest/table_chars.py), one text page per kind while a page is read (`shared_textpages`), and
the header finder's cell and row tests remembered. A page took 0.345 s in one process before
them and 0.27 s after; two workers read 6.0 queued pages a second instead of 4.7.

`install()` replaces each helper only when PyMuPDF still has it (another PyMuPDF version keeps
its own code), once per process; table_extract calls it before it reads a page's tables.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import numpy as np

log = logging.getLogger(__name__)
_BLOCK = 256  # rows of the pairwise comparison at a time (256 x n doubles)
_MEMO = 16_384  # cells and rows whose header features a worker keeps
_CELL_TESTS = ("cell_type", "numeric_like", "date_or_period_like")  # text -> its kind
_ROW_TESTS = ("row_vector", "row_features")  # a row's cell texts -> its features
_installed = False
_replaced: dict[str, Any] = {}  # PyMuPDF's own helpers, by name (the tests compare with them)


def install() -> None:
    global _installed
    if _installed:
        return
    _installed = True
    try:
        from pymupdf import _table_refine
    except ImportError:
        return
    from pymupdf import table

    from desktop_rag.ingest import table_chars

    table_chars.install(table)
    _remember_header_tests()
    name = "_refine_cell_background_rects"
    if hasattr(_table_refine, name):
        _replaced[name] = getattr(_table_refine, name)
        setattr(_table_refine, name, background_rects)
    else:
        log.debug("PyMuPDF has no _refine_cell_background_rects: its own refinement is used")


def _remember_header_tests() -> None:
    """PyMuPDF's header finder classifies each cell's text, and each row's, again every time it
    tries a header region (105,000 cell classifications on 40 pages of 10-Ks, 5% of a page's
    time). They are pure functions of the texts: each is remembered, and a row's features come
    back as a new dictionary, as PyMuPDF made them."""
    try:
        from pymupdf import _table_headers as headers
    except ImportError:
        return
    for name in _CELL_TESTS:
        if callable(getattr(headers, name, None)):
            setattr(headers, name, lru_cache(maxsize=_MEMO)(getattr(headers, name)))
    for name in _ROW_TESTS:
        if callable(getattr(headers, name, None)):
            setattr(headers, name, _row_memo(getattr(headers, name)))


def _row_memo(own: Callable[[list[str]], dict[str, float]]) -> Callable[[list[str]], Any]:
    @lru_cache(maxsize=_MEMO)
    def remembered(texts: tuple[str, ...]) -> dict[str, float]:
        return own(list(texts))

    def features(texts: list[str]) -> dict[str, float]:
        return dict(remembered(tuple(texts)))

    features.own = own  # type: ignore[attr-defined]
    return features


def background_rects(raw_rects: Sequence[Any], *, contain_frac: float = 0.9) -> list[Any]:
    """The rectangles with an area that no other, more than 5% larger, covers to `contain_frac`
    of their area (PyMuPDF's cell backgrounds: the innermost shading of each cell)."""
    n = len(raw_rects)
    if n == 0:
        return []
    box = np.array([(r.x0, r.y0, r.x1, r.y1) for r in raw_rects], dtype=np.float64)
    area = np.maximum(box[:, 2] - box[:, 0], 0.0) * np.maximum(box[:, 3] - box[:, 1], 0.0)
    nested = np.zeros(n, dtype=np.bool_)
    for lo in range(0, n, _BLOCK):
        part = box[lo : lo + _BLOCK]
        width = np.minimum(part[:, None, 2], box[None, :, 2]) - np.maximum(
            part[:, None, 0], box[None, :, 0])  # fmt: skip
        height = np.minimum(part[:, None, 3], box[None, :, 3]) - np.maximum(
            part[:, None, 1], box[None, :, 1])  # fmt: skip
        inter = np.maximum(width, 0.0) * np.maximum(height, 0.0)
        own = area[lo : lo + _BLOCK, None]
        covered = (inter >= contain_frac * own) & (area[None, :] > own * 1.05)
        rows = np.arange(len(part))
        covered[rows, rows + lo] = False
        nested[lo : lo + len(part)] = covered.any(axis=1)
    return [rect for rect, a, inside in zip(raw_rects, area, nested, strict=True)
            if a > 0 and not inside]  # fmt: skip


@contextmanager
def shared_textpages(page: Any) -> Iterator[None]:
    """While reading one page: each kind of text page (flags, clip, matrix) is made once.

    Reading a page's tables made 7 text pages of it (PyMuPDF's table finder, its refinement and
    the layout model each ask for their own; MuPDF parses the page's content each time), four
    of them with the same flags: about 10 ms of a page's 0.35 s. A text page is read-only and
    the page does not change while its tables are read, so the same flags give the same text
    page. Nested uses share the outer one's."""
    if "get_textpage" in vars(page):
        yield
        return
    made: dict[tuple[Any, ...], Any] = {}
    own = page.get_textpage

    def textpage(clip: Any = None, flags: int = 0, matrix: Any = None) -> Any:
        key = (flags, _key(clip), _key(matrix))
        if key not in made:
            made[key] = own(clip=clip, flags=flags, matrix=matrix)
        return made[key]

    page.get_textpage = textpage
    try:
        yield
    finally:
        del page.get_textpage


def _key(value: Any) -> tuple[float, ...] | None:
    return None if value is None else tuple(value)


def one_onnx_thread() -> None:
    """In a page worker: ONNX Runtime sessions made from now on (the layout model's) run on one
    thread. The table pass runs one worker per core, and each session would otherwise start a
    thread per core as well: twice as many busy threads as cores, spinning against each other."""
    try:
        import onnxruntime as ort
    except ImportError:
        return
    options = ort.SessionOptions
    if getattr(options, "one_thread", False):
        return

    def single(*args: Any, **kwargs: Any) -> Any:
        made = options(*args, **kwargs)
        made.intra_op_num_threads = 1
        made.inter_op_num_threads = 1
        return made

    single.one_thread = True  # type: ignore[attr-defined]
    ort.SessionOptions = single
