"""PowerPoint (.pptx, .pptm) files through python-pptx: the only module that imports it.

One slide is one page: its title first (a heading, so it opens the slide's first chunk), then
its shapes top to bottom and left to right (groups opened), each text frame's paragraphs with
their bullets, a table's rows as labelled lines, a chart's data as one labelled line per series,
and last the speaker notes, marked as notes.
Every segment of a slide carries "Slide N: title" as its heading path, which a citation names.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from desktop_rag.domain import DocKind
from desktop_rag.ingest.office_guard import guarded, parse_failure
from desktop_rag.ingest.office_text import PageText, cell_text
from desktop_rag.ingest.segments import LoadedDocument, LoadError, Segment
from desktop_rag.store.titles import clean, shown_title

MAX_GROUP_DEPTH = 20  # groups inside groups: deeper ones are not opened


def load_pptx(path: Path) -> LoadedDocument:
    deck = _open(path)
    stated = clean(deck.core_properties.title) or None
    slides = list(deck.slides)
    loaded = LoadedDocument(DocKind.OTHER, shown_title(stated, str(path)), len(slides),
                            iter(()), stated_title=stated)
    loaded.set_empty(loaded.empty_code, "no text on any slide")
    loaded.segments = guarded(_segments(slides))
    return loaded


def _open(path: Path) -> Any:
    import pptx

    try:
        return pptx.Presentation(str(path))
    except LoadError:
        raise
    except Exception as exc:  # python-pptx and lxml raise many kinds on a broken package
        raise parse_failure(exc) from exc


def _segments(slides: list[Any]) -> Iterator[Segment]:
    for number, slide in enumerate(slides, start=1):
        yield from slide_segments(slide, number)


def slide_segments(slide: Any, number: int) -> PageText:
    title_shape = slide.shapes.title
    title = " ".join((title_shape.text_frame.text if title_shape is not None else "").split())
    page = PageText(number, (f"Slide {number}: {title}" if title else f"Slide {number}",))
    if title:
        page.add(title, heading=True)
    skip = title_shape.shape_id if title_shape is not None else None
    for shape in _ordered(slide.shapes, 0):
        if shape.shape_id != skip:
            _add_shape(page, shape, title or f"Slide {number}")
    notes = _notes(slide)
    if notes:
        page.add(f"Speaker notes: {notes}")
    return page


def _ordered(shapes: Any, depth: int) -> Iterator[Any]:
    """Shapes in reading order (top, then left); a group's shapes in its place."""
    for shape in sorted(shapes, key=lambda s: (s.top or 0, s.left or 0)):
        inner = getattr(shape, "shapes", None)
        if inner is not None and depth < MAX_GROUP_DEPTH:
            yield from _ordered(inner, depth + 1)
        else:
            yield shape


def _add_shape(page: PageText, shape: Any, slide_title: str) -> None:
    if getattr(shape, "has_chart", False):
        _add_chart(page, shape.chart, slide_title)
    elif getattr(shape, "has_table", False):
        rows = [[" ".join(c.text.split()) for c in row.cells] for row in shape.table.rows]
        page.add_table(f"{slide_title} (table)", rows)
    elif getattr(shape, "has_text_frame", False):
        for paragraph in shape.text_frame.paragraphs:
            text = "".join(run.text for run in paragraph.runs) or paragraph.text
            if text.strip():
                page.add(f"\u2022 {text}" if paragraph.level > 0 else text)


def _add_chart(page: PageText, chart: Any, slide_title: str) -> None:
    """A chart's data as a table: one labelled line per series, its values by category
    ("Revenue — 2023: 1.2 | 2024: 1.5"), under the chart's title."""
    title = slide_title
    if chart.has_title and chart.chart_title.has_text_frame:
        title = " ".join(chart.chart_title.text_frame.text.split()) or slide_title
    for plot in chart.plots:
        categories = [cell_text(c) for c in plot.categories]
        rows = [["", *categories]]
        rows += [[series.name or "", *(cell_text(v) for v in series.values)]
                 for series in plot.series]
        page.add_table(f"{title} (chart)", rows)


def _notes(slide: Any) -> str:
    if not slide.has_notes_slide:
        return ""
    frame = slide.notes_slide.notes_text_frame
    return " ".join(frame.text.split()) if frame is not None else ""
