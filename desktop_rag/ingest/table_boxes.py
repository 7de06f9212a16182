"""Box arithmetic of the table pass: overlaps of PyMuPDF's table boxes, and a box carried from
an upright copy of a rotated page back to the page's own coordinates."""

from __future__ import annotations

from typing import Any

from desktop_rag.ingest.table_model import Box


def as_box(rect: Any) -> Box:
    """A PyMuPDF Rect (or any 4 numbers) as plain floats."""
    x0, y0, x1, y1 = rect
    return float(x0), float(y0), float(x1), float(y1)


def area(box: Box) -> float:
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def common(a: Box, b: Box) -> float:
    """The area the two boxes share."""
    return area((max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])))


def share_inside(box: Box, outer: Box, share: float) -> bool:
    """Whether more than `share` of the box's area lies in `outer`."""
    return common(box, outer) > share * area(box)


def iou(a: Box, b: Box) -> float:
    """Intersection over union."""
    shared = common(a, b)
    return shared / max(1e-9, area(a) + area(b) - shared)


def transformed(box: Box, m: Any) -> Box:
    """The box through the matrix `m` (a PyMuPDF Matrix), as the box around its corners."""
    corners = ((box[0], box[1]), (box[2], box[3]))
    xs = [m.a * x + m.c * y + m.e for x, y in corners]
    ys = [m.b * x + m.d * y + m.f for x, y in corners]
    return min(xs), min(ys), max(xs), max(ys)
