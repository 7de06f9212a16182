"""Page-layout arithmetic for the PDF viewer, kept free of Qt so it can be tested alone.

Mirrors QPdfView's document layout in MultiPage mode with a custom zoom factor: each page is
`round(points * dpi/72 * zoom)` pixels, pages are stacked top to bottom with `spacing` between
them inside `margins`, and each is centred horizontally in max(document width, viewport width).
Line boxes come from PyMuPDF in PDF points with a top-left origin (y grows downwards), the same
orientation as Qt's, so only scaling and the page offset are needed — no y flip.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Rect:
    x: float
    y: float
    w: float
    h: float

    @property
    def bottom(self) -> float:
        return self.y + self.h

    @property
    def right(self) -> float:
        return self.x + self.w

    def translated(self, dx: float, dy: float) -> Rect:
        return Rect(self.x + dx, self.y + dy, self.w, self.h)


@dataclass(frozen=True, slots=True)
class Layout:
    margins: tuple[int, int, int, int] = (6, 6, 6, 6)  # left, top, right, bottom
    spacing: int = 3
    resolution: float = 96 / 72  # logical pixels per point at zoom 1
    zoom: float = 1.0


def page_pixel_size(size_pt: tuple[float, float], layout: Layout) -> tuple[int, int]:
    scale = layout.resolution * layout.zoom
    return round(size_pt[0] * scale), round(size_pt[1] * scale)


def page_rects(
    sizes_pt: Sequence[tuple[float, float]], layout: Layout, viewport_width: int
) -> list[Rect]:
    """Each page's rectangle in document coordinates (before scrolling)."""
    left, top, right, _bottom = layout.margins
    sizes = [page_pixel_size(s, layout) for s in sizes_pt]
    total_width = max((w for w, _ in sizes), default=0) + left + right
    rects: list[Rect] = []
    y = top
    for w, h in sizes:
        x = (max(total_width, viewport_width) - w) // 2
        rects.append(Rect(x, y, w, h))
        y += h + layout.spacing
    return rects


def box_to_view(
    box: tuple[float, float, float, float], page_rect: Rect, page_size_pt: tuple[float, float]
) -> Rect:
    """A PDF-point box (top-left origin) on a page, in the same coordinates as `page_rect`."""
    sx = page_rect.w / page_size_pt[0]
    sy = page_rect.h / page_size_pt[1]
    x0, y0, x1, y1 = box
    return Rect(page_rect.x + x0 * sx, page_rect.y + y0 * sy, (x1 - x0) * sx, (y1 - y0) * sy)


def fit_width_zoom(page_width_pt: float, viewport_width: int, layout: Layout) -> float:
    left, _top, right, _bottom = layout.margins
    usable = max(viewport_width - left - right, 50)
    return usable / (page_width_pt * layout.resolution)


def scroll_target(rect: Rect, viewport_height: int) -> int:
    """A vertical scroll position that shows `rect` about a third of the way down."""
    return max(0, int(rect.y - viewport_height / 3))
