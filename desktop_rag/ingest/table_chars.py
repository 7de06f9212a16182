"""A faster stand-in for PyMuPDF's `make_chars` (the character list every table search starts
from) and for `chars_in_rect` (whether a graphics box holds text), giving the same results.

Profiled on the queued pages of two 10-Ks (py-spy, one process), `make_chars` took a sixth of
a page's time: for each of a page's 3,000-6,000 characters it made a Rect, a Point and two
transformed copies through SWIG objects, about 9% of the page for arithmetic on six numbers.
Here the page's characters are transformed at once in numpy, in float32 as MuPDF's
`fz_transform_rect` and `fz_transform_point` compute them (each product and sum rounded to
float32, a box's top and bottom swapped first where the matrix mirrors the y axis), for
matrices without shear or rotation (b = c = 0: every page's here, a page with /Rotate
included). Any other page goes to PyMuPDF's own code. The dictionaries are the ones PyMuPDF
makes, key for key: tests/test_table_chars.py compares them on the table test PDFs (rotated
and with a moved media box too), and they were compared on all 2,532 MMLongBench pages.

`chars_in_rect` compared every character with each candidate box in a Python generator; here
the page's character boxes are kept as arrays beside the list they came from.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

_own: dict[str, Any] = {}  # PyMuPDF's own functions, by name (fallback, and the tests)
_boxes: dict[str, Any] = {}  # the character list last seen by chars_in_rect, with its arrays


def install(table: Any) -> None:
    """Puts the stand-ins into `pymupdf.table` (when it still has the functions they replace)."""
    for name, ours in (("make_chars", make_chars), ("chars_in_rect", chars_in_rect)):
        if callable(getattr(table, name, None)) and name not in _own:
            _own[name] = getattr(table, name)
            setattr(table, name, ours)


def make_chars(page: Any, clip: Any = None) -> Any:
    """PyMuPDF's make_chars: fills pymupdf.table.CHARS with the page's characters (pdfplumber's
    keys) and returns the text page they were read from."""
    from pymupdf import table

    ctm = page.transformation_matrix
    if ctm.b != 0 or ctm.c != 0:
        return _own["make_chars"](page, clip)
    textpage = page.get_textpage(clip=clip, flags=table.FLAGS)
    blocks = page.get_text("rawdict", textpage=textpage)["blocks"]
    spans, chars = _spans(blocks)
    if chars:
        listed: list[dict[str, Any]] = table.CHARS._list()  # type: ignore[no-untyped-call]
        _append(listed, page, spans, chars, _moved(chars, ctm))
    return textpage


_Span = tuple[tuple[float, float], str, float, bool, Any, int]  # dir, font, size, bold, colour, n


def _spans(blocks: Sequence[dict[str, Any]]) -> tuple[list[_Span], list[dict[str, Any]]]:
    """The page's spans in PyMuPDF's order (by line, each line's spans and each span's
    characters from left to right), with how many characters each has, and the characters."""
    import pymupdf

    spans: list[_Span] = []
    chars: list[dict[str, Any]] = []
    for block in blocks:
        for line in block["lines"]:
            line_dir = (round(line["dir"][0], 4), round(line["dir"][1], 4))
            for span in sorted(line["spans"], key=lambda s: s["bbox"][0]):
                bold = bool(span["flags"] & pymupdf.TEXT_FONT_BOLD or span["char_flags"] & 8)
                colour = pymupdf.sRGB_to_pdf(span["color"])
                own = sorted(span["chars"], key=lambda c: c["bbox"][0])
                spans.append((line_dir, span["font"], span["size"], bold, colour, len(own)))
                chars += own
    return spans, chars


def _moved(chars: Sequence[dict[str, Any]], ctm: Any) -> tuple[list[Any], list[Any]]:
    """Each character's box top and bottom and its origin under `ctm` (b = c = 0), computed as
    MuPDF does: in float32, one rounding per product and sum, the box's corners swapped first
    along an axis the matrix mirrors."""
    a, d, e, f = (np.float32(v) for v in (ctm.a, ctm.d, ctm.e, ctm.f))
    box = np.array([c["bbox"] for c in chars], dtype=np.float32)
    origin = np.array([c["origin"] for c in chars], dtype=np.float32)
    top, bottom = (box[:, 3], box[:, 1]) if d < 0 else (box[:, 1], box[:, 3])
    zero = np.float32(0.0)
    ys = np.stack([(top * d + zero) + f, (bottom * d + zero) + f], axis=1)
    xs = (origin[:, 0] * a + zero) + e
    oys = (origin[:, 1] * d + zero) + f
    return ys.tolist(), np.stack([xs, oys], axis=1).tolist()


def _append(
    out: list[dict[str, Any]], page: Any, spans: Sequence[_Span],
    chars: Sequence[dict[str, Any]], moved: tuple[list[Any], list[Any]],
) -> None:
    ys, origins = moved
    page_number, number = page.number + 1, page.number
    doctop_base = page.rect.height * number
    k = 0
    for line_dir, font, size, bold, colour, count in spans:
        upright = line_dir[1] == 0
        for char in chars[k : k + count]:
            x0, y0, x1, y1 = char["bbox"]
            (top, bottom), (ox, oy) = ys[k], origins[k]
            k += 1
            out.append({
                "adv": x1 - x0 if upright else y1 - y0, "bottom": y1,
                "doctop": y0 + doctop_base, "fontname": font, "height": y1 - y0,
                "matrix": (line_dir[0], -line_dir[1], line_dir[1], line_dir[0], ox, oy),
                "ncs": "DeviceRGB", "non_stroking_color": colour,
                "non_stroking_pattern": None, "object_type": "char",
                "page_number": page_number, "size": size if upright else y1 - y0,
                "stroking_color": colour, "stroking_pattern": None, "bold": bold,
                "text": char["c"], "top": y0, "upright": upright, "width": x1 - x0,
                "x0": x0, "x1": x1, "y0": top, "y1": bottom,
            })


def chars_in_rect(chars: Any, rect: Sequence[float]) -> bool:
    """Whether any character lies wholly inside `rect` (PyMuPDF's chars_in_rect)."""
    x0, y0, x1, y1 = _char_boxes(chars)
    return bool(np.any(
        (rect[0] <= x0) & (x1 <= rect[2]) & (rect[1] <= y0) & (rect[3] >= y1)
    ))


def _char_boxes(chars: Any) -> Any:
    """The x0, y0, x1, y1 of the characters in `chars` (PyMuPDF's CHARS or a list), as arrays;
    kept while the list holds the same characters (its first and last one, and its length)."""
    listed = chars._list() if hasattr(chars, "_list") else chars
    held = _boxes.get("chars")
    if held is not None and held[0] is listed and len(listed) == held[1] and (
            not listed or (listed[0] is held[2] and listed[-1] is held[3])):  # fmt: skip
        return _boxes["arrays"]
    keys = ("x0", "y0", "x1", "y1")
    arrays = tuple(np.array([c[key] for c in listed], dtype=np.float64) for key in keys)
    ends = (listed[0], listed[-1]) if listed else (None, None)
    _boxes["chars"], _boxes["arrays"] = (listed, len(listed), *ends), arrays
    return arrays
