"""QtPdf page view that draws the cited passage's line boxes on top of the rendered page."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from PySide6.QtCore import QModelIndex, QObject, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen, QResizeEvent
from PySide6.QtPdf import QPdfDocument, QPdfSearchModel
from PySide6.QtPdfWidgets import QPdfView
from PySide6.QtWidgets import QWidget

from desktop_rag.domain import LineBox
from desktop_rag.domain.errors import DesktopRagError
from desktop_rag.gui.geometry import (
    Layout,
    Rect,
    box_to_view,
    fit_width_zoom,
    page_rects,
    scroll_target,
)

log = logging.getLogger(__name__)
HIGHLIGHT_FILL = QColor(255, 214, 0, 90)
HIGHLIGHT_EDGE = QColor(230, 140, 0, 220)
CONTEXT_FILL = QColor(255, 214, 0, 32)  # the rest of the passage around the evidence


class PdfPane(QPdfView):
    """One PDF at a time; `show_location` jumps to a page and highlights line boxes."""

    page_changed = Signal(int, int)  # 1-based page, page count

    def __init__(self, owner: QObject, parent: QWidget | None = None) -> None:
        """`owner` holds the document: it must not be a child of the view, because deleting
        a QPdfDocument emits statusChanged, which a half-destroyed QPdfView cannot handle."""
        super().__init__(parent)  # type: ignore[arg-type]
        self.pdf = QPdfDocument(owner)
        self.setDocument(self.pdf)
        self.setPageMode(QPdfView.PageMode.MultiPage)
        self.setZoomMode(QPdfView.ZoomMode.Custom)
        self.search = QPdfSearchModel(owner)
        self.search.setDocument(self.pdf)
        self.setSearchModel(self.search)
        self.path = ""
        self._boxes: list[LineBox] = []
        self._context: list[LineBox] = []
        self._fit = True
        self.pageNavigator().currentPageChanged.connect(self._emit_page)

    # ---- loading and navigation -------------------------------------------------------
    def load(self, path: str) -> None:
        if path == self.path and self.pdf.status() == QPdfDocument.Status.Ready:
            return
        error = self.pdf.load(path)
        if error != QPdfDocument.Error.None_:
            self.path = ""
            raise DesktopRagError(f"Cannot open {path} in the viewer ({error.name})",
                                  "check that the file still exists and is a valid PDF")
        self.path = path
        self._fit = True
        self._apply_fit()

    def page_count(self) -> int:
        return int(self.pdf.pageCount())

    def show_location(
        self, page: int, boxes: Sequence[LineBox] = (), context: Sequence[LineBox] = ()
    ) -> None:
        """Shows 1-based `page` with `boxes` highlighted (and `context`, the rest of the
        passage, lightly), scrolled to the first box on it."""
        self._boxes = list(boxes)
        self._context = [b for b in context if _where(b) not in {_where(x) for x in boxes}]
        page = self._clamp(page)
        on_page = [r for b, r in self._box_rects(True) if b.page == page]
        self._scroll_to(on_page[0] if on_page else self.page_geometry()[page - 1], page)

    def go_to_page(self, page: int) -> None:
        page = self._clamp(page)
        self._scroll_to(self.page_geometry()[page - 1], page)

    def _clamp(self, page: int) -> int:
        return min(max(page, 1), max(self.page_count(), 1))

    def _scroll_to(self, target: Rect, page: int) -> None:
        self.verticalScrollBar().setValue(scroll_target(target, self.viewport().height()))
        self.pageNavigator().update(page - 1, QPointF(0, 0), self.zoomFactor())
        self.viewport().update()

    # ---- zoom ------------------------------------------------------------------------
    def zoom_by(self, factor: float) -> None:
        self._fit = False
        self._set_zoom(min(max(self.zoomFactor() * factor, 0.2), 6.0))

    def _set_zoom(self, zoom: float) -> None:
        """Changes the zoom keeping the same part of the document at the top of the view."""
        bar = self.verticalScrollBar()
        ratio = bar.value() / max(bar.maximum() + bar.pageStep(), 1)
        self.setZoomFactor(zoom)
        bar.setValue(round(ratio * (bar.maximum() + bar.pageStep())))

    def fit_width(self) -> None:
        self._fit = True
        self._apply_fit()

    def _apply_fit(self) -> None:
        if self._fit and self.page_count() > 0:
            width = self.pdf.pagePointSize(0).width()
            self._set_zoom(fit_width_zoom(width, self.viewport().width(), self._layout(1.0)))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._apply_fit()

    # ---- geometry ----------------------------------------------------------------------
    def _layout(self, zoom: float | None = None) -> Layout:
        m = self.documentMargins()
        resolution = self.logicalDpiY() / 72.0
        return Layout((m.left(), m.top(), m.right(), m.bottom()), self.pageSpacing(),
                      resolution, self.zoomFactor() if zoom is None else zoom)

    def _page_sizes(self) -> list[tuple[float, float]]:
        sizes = (self.pdf.pagePointSize(i) for i in range(self.page_count()))
        return [(s.width(), s.height()) for s in sizes]

    def page_geometry(self) -> list[Rect]:
        """Every page's rectangle in document coordinates."""
        return page_rects(self._page_sizes(), self._layout(), self.viewport().width())

    def highlight_rects(self, page: int | None = None) -> list[Rect]:
        """The highlight rectangles in viewport coordinates (of one 1-based page if given)."""
        return [r for b, r in self._box_rects(False) if page is None or b.page == page]

    def context_rects(self, page: int | None = None) -> list[Rect]:
        """The light (passage context) rectangles in viewport coordinates."""
        pairs = self._box_rects(False, self._context)
        return [r for b, r in pairs if page is None or b.page == page]

    def _box_rects(
        self, document_coords: bool, boxes: Sequence[LineBox] | None = None
    ) -> list[tuple[LineBox, Rect]]:
        pages, sizes = self.page_geometry(), self._page_sizes()
        dx = 0 if document_coords else -self.horizontalScrollBar().value()
        dy = 0 if document_coords else -self.verticalScrollBar().value()
        out = []
        for b in self._boxes if boxes is None else boxes:
            if 1 <= b.page <= len(pages):
                rect = box_to_view((b.x0, b.y0, b.x1, b.y1), pages[b.page - 1], sizes[b.page - 1])
                out.append((b, rect.translated(dx, dy)))
        return out

    # ---- painting ----------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self._boxes:
            return
        painter = QPainter(self.viewport())
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(CONTEXT_FILL)
        for r in self.context_rects():
            painter.drawRect(QRectF(r.x - 2, r.y - 1, r.w + 4, r.h + 2))
        painter.setPen(QPen(HIGHLIGHT_EDGE, 1.5))
        painter.setBrush(HIGHLIGHT_FILL)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        for r in self.highlight_rects():
            painter.drawRect(QRectF(r.x - 2, r.y - 1, r.w + 4, r.h + 2))
        painter.end()

    def _emit_page(self, page: int) -> None:
        self.page_changed.emit(page + 1, self.page_count())

    def find_text(self, text: str, forward: bool = True) -> bool:
        if self.search.searchString() != text:
            self.search.setSearchString(text)
            self.setCurrentSearchResultIndex(-1)
        count = self.search.rowCount(QModelIndex())
        if count == 0:
            return False
        step = 1 if forward else -1
        self.setCurrentSearchResultIndex((self.currentSearchResultIndex() + step) % count)
        self._scroll_to_search_result()
        return True

    def _scroll_to_search_result(self) -> None:
        link = self.search.resultAtIndex(self.currentSearchResultIndex())
        rects = link.rectangles()
        page = link.page()
        if rects and 0 <= page < self.page_count():
            r = rects[0]
            box = (r.left(), r.top(), r.right(), r.bottom())
            target = box_to_view(box, self.page_geometry()[page], self._page_sizes()[page])
            self._scroll_to(target, page + 1)


def _where(box: LineBox) -> tuple[int, float, float, float, float]:
    return (box.page, box.x0, box.y0, box.x1, box.y1)
