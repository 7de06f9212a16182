"""Words inside pictures on pages that have a text layer: a chart's labels and values, a
diagram's boxes, a screenshot, a slide exported as an image under a thin text layer.

Why: OCR used to run only on pages with no text layer at all, so the words of a picture on an
ordinary page were invisible to search and to the model. On MMLongBench, 75 of the 119
answerable chart and figure questions have a picture covering part of an evidence page, and a
question like "what percentage of the pie chart was iOS 9?" could only be refused. The table
pass (ingest/table_pass.py) reads these pages after the text, in its worker processes (about a
second a page here): each large picture is rendered at PICTURE_DPI and read by Tesseract, the
lines that look like words or numbers are kept (a photo gives OCR noise: "seeeeene", "|"), lines
the page's own text already has are dropped, and what is left becomes one text block at the
picture's place, opening with LABEL so that a reader (and the model) knows the words come from
a picture. Each kept line keeps its box on the page, so a citation highlights it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from desktop_rag.domain import PICTURE_TEXT
from desktop_rag.ingest.ocr import OcrConfig
from desktop_rag.ingest.pdf_pages import PageText, ocr_clip
from desktop_rag.ingest.table_model import Box

MIN_SIDE_PT = 72.0  # an inch each way: logos, icons and bullets are smaller
MIN_SHARE = 0.06  # of the page's area
PICTURE_DPI = 200  # chart labels are small print: more than the scanned pages' 150
LABEL = PICTURE_TEXT
SAME_AS_PAGE = 0.8  # a line with this share of its words in the page's own text is a repeat
# A picture holding this many words of the page's own text is a scan that carries its text (a
# "searchable PDF" from a scanner's OCR, a slide over a background photo): read already. On the
# MMLongBench and Debian PDFs, pictures hold 0-29 such words or 74 and more.
WRITTEN_WORDS = 50
_WORD = re.compile(r"^(?:[A-Z]?[a-z]{2,}|[A-Z]{2,}|[A-Z][a-z]?)$")
_NUMBER = re.compile(r"^[$€£]?[+-]?\d[\d,.]*(?:[-–]\d[\d,.]*)?[%x]?$")
_REPEATED = re.compile(r"(.)\1\1")
_VOWEL = re.compile(r"[aeiouyAEIOUY]")
_TOKEN_EDGES = ".,:;()[]{}\"'“”‘’!?*•·#"


@dataclass(frozen=True, slots=True)
class PictureText:
    """The kept lines of one picture, each with its box on the page."""

    box: Box
    lines: tuple[tuple[str, Box], ...]


def picture_boxes(page: Any, page_dict: PageText) -> list[Box]:
    """The boxes of the page's large pictures (clipped to the page), overlapping ones merged;
    not those whose words the page's text layer has already (WRITTEN_WORDS)."""
    page_box: Box = tuple(page.rect)
    area = _area(page_box)
    found = [_clipped(tuple(info["bbox"]), page_box) for info in page.get_image_info()]
    merged: list[Box] = []
    for box in sorted((b for b in found if _large(b, area)), key=lambda b: (b[1], b[0])):
        at = next((i for i, m in enumerate(merged) if _overlap(m, box)), None)
        if at is None:
            merged.append(box)
        else:
            merged[at] = _union(merged[at], box)
    lines = _dict_line_boxes(page_dict)
    return [box for box in merged if _words_inside(lines, box) < WRITTEN_WORDS]


def _words_inside(lines: list[tuple[str, Box]], box: Box) -> int:
    """The words of the text lines whose centre is inside `box`."""
    return sum(len(text.split()) for text, line in lines if _centre_in(line, box))


def _centre_in(line: Box, box: Box) -> bool:
    x, y = (line[0] + line[2]) / 2, (line[1] + line[3]) / 2
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def _clipped(box: Box, page: Box) -> Box:
    return (max(box[0], page[0]), max(box[1], page[1]), min(box[2], page[2]), min(box[3], page[3]))


def _area(box: Box) -> float:
    return max(box[2] - box[0], 0.0) * max(box[3] - box[1], 0.0)


def _large(box: Box, page_area: float) -> bool:
    width, height = box[2] - box[0], box[3] - box[1]
    return min(width, height) >= MIN_SIDE_PT and width * height >= MIN_SHARE * page_area


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _union(a: Box, b: Box) -> Box:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def has_pictures(page: Any, page_dict: PageText) -> bool:
    """Whether the page shows a picture large enough to hold words not in its text (its image
    list first: most pages have none, and listing them costs nothing)."""
    return bool(page.get_images()) and bool(picture_boxes(page, page_dict))


def read_pictures(page: Any, page_dict: PageText, ocr: OcrConfig) -> list[PictureText]:
    """The words of the page's large pictures, top to bottom; pictures with none left out."""
    known = _words(" ".join(_dict_lines(page_dict)))
    found = []
    for box in picture_boxes(page, page_dict):
        lines = [(t, b) for t, b in _ocr_lines(page, box, ocr) if _kept(t, known)]
        if lines:
            found.append(PictureText(box, tuple(lines)))
    return found


def _ocr_lines(page: Any, box: Box, ocr: OcrConfig) -> list[tuple[str, Box]]:
    """Tesseract's lines of the picture at `box`, in page coordinates."""
    found, scale = ocr_clip(page, box, max(PICTURE_DPI, ocr.dpi), ocr)
    return [(text, _placed(bbox, box, scale)) for text, bbox in _dict_line_boxes(found)]


def _placed(bbox: Box, picture: Box, scale: float) -> Box:
    x0, y0, x1, y1 = bbox
    return (picture[0] + x0 * scale, picture[1] + y0 * scale,
            picture[0] + x1 * scale, picture[1] + y1 * scale)  # fmt: skip


def _dict_line_boxes(page_dict: PageText) -> list[tuple[str, Box]]:
    out = []
    for block in page_dict.get("blocks", ()):
        for line in block.get("lines", ()):
            text = " ".join(" ".join(s.get("text", "") for s in line.get("spans", ())).split())
            if text:
                out.append((text, tuple(line["bbox"])))
    return out


def _dict_lines(page_dict: PageText) -> list[str]:
    return [text for text, _ in _dict_line_boxes(page_dict)]


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"\w+", text)}


def _kept(line: str, known: set[str]) -> bool:
    """A line of words or numbers, not OCR noise, and not a line of the page's own text."""
    words = _words(line)
    repeated = bool(words) and len(words & known) >= SAME_AS_PAGE * len(words)
    return plausible(line) and not repeated


def plausible(line: str) -> bool:
    """Whether an OCR'd line reads as words or numbers: at least half its tokens are words
    ("Fine-tuning", "iOS") or numbers ("0-375", "8%", "$1.2"), one of them a number or a word
    of three letters or more. Noise from photos and lines ("ee =", "|", "seeeeene", "Ld Co")
    is not."""
    tokens = [t.strip(_TOKEN_EDGES) for t in line.split()]
    tokens = [t for t in tokens if t]
    good = [t for t in tokens if _good_token(t)]
    anchored = any(len(t) >= 3 or _NUMBER.match(t) for t in good)
    return bool(tokens) and len(good) * 2 >= len(tokens) and anchored


def _good_token(token: str) -> bool:
    if _NUMBER.match(token):
        return True
    parts = re.split(r"[-/–]", token)
    return all(_good_word(p) for p in parts)


def _good_word(part: str) -> bool:
    if part[:1].isdigit():
        return bool(_NUMBER.match(part))
    word = part[:1].upper() + part[1:] if part[:1] == "i" and part[1:2].isupper() else part
    return bool(_WORD.match(word)) and not _REPEATED.search(word) and (
        len(word) <= 2 or word.isupper() or bool(_VOWEL.search(word))
    )


def picture_block(picture: PictureText) -> dict[str, Any]:
    """The picture's lines as a text block in PyMuPDF's "dict" layout, opening with LABEL
    (boxed as the whole picture), for page_text.page_segments."""
    lines = [_dict_line(LABEL, picture.box)] + [_dict_line(t, b) for t, b in picture.lines]
    return {"type": 0, "bbox": picture.box, "lines": lines}


def _dict_line(text: str, box: Box) -> dict[str, Any]:
    return {"bbox": box, "spans": [{"text": text, "bbox": box}]}


def with_pictures(page_dict: PageText, pictures: list[PictureText]) -> PageText:
    """The page's text dict with each picture's block placed among the blocks by its top edge
    (the reading order page_text's "sort" gives)."""
    blocks = list(page_dict.get("blocks", ()))
    for picture in pictures:
        top = picture.box[1]
        at = next((i for i, b in enumerate(blocks) if b["bbox"][1] > top), len(blocks))
        blocks.insert(at, picture_block(picture))
    return {**page_dict, "blocks": blocks}
