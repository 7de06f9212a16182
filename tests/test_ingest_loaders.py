"""Loaders through real PyMuPDF: pages, reading order, line boxes; Markdown; text; bad input."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from desktop_rag.domain import DocKind, Reason
from desktop_rag.ingest.loaders import SCANNED, load
from desktop_rag.ingest.notes import load_markdown
from desktop_rag.ingest.segments import LoadError, decode_text
from tests.ingest_docs import (
    KNOWN,
    NOTE,
    make_encrypted_pdf,
    make_pdf,
    make_scanned_pdf,
    make_truncated_pdf,
)


def test_pdf_known_sentence_has_its_page_span_and_line_box(tmp_path: Path) -> None:
    loaded = load(make_pdf(tmp_path / "a.pdf", pages=3, known_page=2))
    assert (loaded.kind, loaded.pages, loaded.title) == (DocKind.PDF, 3, "Test document a")
    segments = list(loaded.segments)
    assert {s.page for s in segments} == {1, 2, 3}
    (seg,) = [s for s in segments if KNOWN in s.text]
    assert seg.page == 2
    (line,) = seg.lines
    box = line.box
    assert box.page == 2
    assert box.x0 == pytest.approx(72, abs=1)
    assert 385 < box.y0 < 400 < box.y1 < 406  # top-left origin: baseline 400 is near the bottom
    assert line.end - line.start == len(KNOWN)


def test_pdf_segments_index_the_page_text(tmp_path: Path) -> None:
    segments = list(load(make_pdf(tmp_path / "a.pdf", pages=1, known_page=1)).segments)
    assert segments[0].start == 0
    for before, after in itertools.pairwise(segments):
        assert after.start == before.end + 2  # blocks are separated by a blank line
    assert all(len(s.text) == s.end - s.start for s in segments)


def test_words_broken_across_lines_are_joined_in_chunks(tmp_path: Path) -> None:
    import pymupdf

    from desktop_rag.domain.fakes import HashEmbedder, WordTokenCounter
    from desktop_rag.ingest.chunker import Chunker

    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "The quick brown fox demon-\nstrates hyphen-\nation.")
    doc.save(tmp_path / "hy.pdf")
    doc.close()
    segments = list(load(tmp_path / "hy.pdf").segments)
    assert all(len(s.text) == s.end - s.start for s in segments)  # offsets stay exact
    (draft,) = Chunker(HashEmbedder(), WordTokenCounter()).chunk(segments)
    assert draft.text == "The quick brown fox demonstrates hyphenation."
    assert len(draft.bboxes) == 3


def test_markdown_front_matter_title_and_heading_paths(tmp_path: Path) -> None:
    path = tmp_path / "garden.md"
    path.write_text(NOTE, encoding="utf-8")
    loaded = load_markdown(path)
    assert loaded.title == "Garden notes"
    segments = list(loaded.segments)
    assert "tags" not in " ".join(s.text for s in segments)
    aphids = next(s for s in segments if "Aphids" in s.text)
    assert aphids.heading_path == ("Garden", "Pests")
    ladybirds = next(s for s in segments if "Ladybirds" in s.text)
    assert ladybirds.heading_path == ("Garden", "Pests", "Remedies")
    assert NOTE[ladybirds.start : ladybirds.end].startswith("Ladybirds")


def test_markdown_code_fences_keep_hashes_and_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "code.md"
    path.write_text("# Title\n\n```\n# not a heading\n\nstill code\n```\n\nAfter.\n")
    segments = list(load_markdown(path).segments)
    assert [s.is_heading for s in segments] == [True, False, False]
    assert "# not a heading" in segments[1].text and "still code" in segments[1].text


def test_markdown_links_read_as_their_words(tmp_path: Path) -> None:
    path = tmp_path / "links.md"
    path.write_text("See [[Other Note]], [[Target#Part|the alias]] and [docs](https://x.org/a).\n"
                    "\n![](picture.png)\n")
    (segment,) = load_markdown(path).segments
    assert segment.text == "See Other Note, the alias and docs."


def test_text_decoding_falls_back_and_says_so() -> None:
    assert decode_text("héllo".encode()) == ("héllo", None)
    fallback = ("héllo", "not valid UTF-8; read as Windows-1252")
    assert decode_text("héllo".encode("cp1252")) == fallback
    assert decode_text("hi".encode("utf-16"))[0] == "hi"
    with pytest.raises(LoadError) as info:
        decode_text(b"\x00\x01\x02binary")
    assert info.value.code is Reason.BINARY


@pytest.mark.parametrize(
    ("maker", "code"),
    [
        (lambda d: make_encrypted_pdf(d / "locked.pdf"), Reason.ENCRYPTED),
        (lambda d: _write(d / "random.pdf", os.urandom(5000)), Reason.CORRUPT),
        (lambda d: _write(d / "binary.md", b"\x00\x00\xff\xfe\x00binary"), Reason.BINARY),
        (lambda d: _write(d / "deep.html", b"<div>" * 5000), Reason.TOO_NESTED),
        (lambda d: _write(d / "empty.epub", b""), Reason.EMPTY),
    ],
)
def test_bad_files_raise_a_clear_reason(tmp_path: Path, maker: object, code: Reason) -> None:
    path = maker(tmp_path)  # type: ignore[operator]
    with pytest.raises(LoadError) as info:
        loaded = load(path)
        list(loaded.segments)
    assert info.value.code is code and info.value.reason


def test_truncated_pdf_keeps_what_can_be_read_and_says_it_is_damaged(tmp_path: Path) -> None:
    source = make_pdf(tmp_path / "src.pdf", pages=5, known_page=1)
    loaded = load(make_truncated_pdf(tmp_path / "cut.pdf", source))
    assert loaded.note is not None and loaded.note_code is Reason.REPAIRED
    assert any(KNOWN in s.text for s in loaded.segments)


def test_scanned_pdf_has_no_segments_and_says_ocr_is_unavailable(tmp_path: Path) -> None:
    loaded = load(make_scanned_pdf(tmp_path / "scan.pdf"))
    assert list(loaded.segments) == []
    assert loaded.empty_reason == SCANNED and not loaded.empty_is_skip
    assert loaded.empty_code is Reason.SCANNED


def test_html_is_paged_through_pymupdf(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text("<html><head><title>Ocelots</title></head><body><h1>Cats</h1>"
                    "<p>The ocelot paragraph lives in HTML.</p></body></html>")
    loaded = load(path)
    assert (loaded.kind, loaded.title) == (DocKind.OTHER, "Ocelots")
    texts = [s.text for s in loaded.segments]
    assert "The ocelot paragraph lives in HTML." in texts


def test_unsupported_extension_is_a_skip(tmp_path: Path) -> None:
    with pytest.raises(LoadError) as info:
        load(_write(tmp_path / "photo.png", b"\x89PNG"))
    assert info.value.skip and info.value.code is Reason.UNSUPPORTED


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path
