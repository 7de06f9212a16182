"""Ingest speed of Word, PowerPoint, Excel and e-mail files beside a PDF, on files built here.

    nice -n 10 .venv/bin/python -m bench.bench_office [--scale 1.0] [--out result.json]

Builds a Word report (paragraphs and tables), a slide deck, a workbook of one big sheet, a
mailbox of messages and, for comparison, a PDF of about as much text, each with the real
library (python-docx, python-pptx, openpyxl, the email package, PyMuPDF). For each file:
`extract_s` is reading it into segments (the loader alone), `ingest_s` is a whole ingestion
into a fresh library on disk (catalog, FTS5, Chroma, the packaged MiniLM embedder) until it is
searchable; speeds are the file's own units (paragraphs, slides, rows, messages, pages) per
second of each.
"""

from __future__ import annotations

import argparse
import json
import mailbox
import sys
import tempfile
import time
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path
from typing import Any

SENTENCE = ("The cooperative shipped {n} crates of apricot jam to the northern shops, and the "
            "board noted that orchard yields rose after the spring rains.")


def word(path: Path, paragraphs: int) -> int:
    import docx

    document = docx.Document()
    for n in range(paragraphs):
        if n % 25 == 0:
            document.add_heading(f"Section {n // 25 + 1}", level=1)
        document.add_paragraph(SENTENCE.format(n=n))
        if n % 100 == 99:
            table = document.add_table(rows=4, cols=3)
            for r in range(4):
                for c in range(3):
                    table.cell(r, c).text = "Region" if r == c == 0 else f"{r * 100 + c}"
    document.save(str(path))
    return paragraphs


def slides(path: Path, count: int) -> int:
    import pptx

    deck = pptx.Presentation()
    for n in range(count):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = f"Milestone {n}"
        frame = slide.placeholders[1].text_frame
        frame.text = SENTENCE.format(n=n)
        frame.add_paragraph().text = f"Owner: team {n % 7}; due in week {n % 52}."
        slide.notes_slide.notes_text_frame.text = f"Remember milestone {n}'s risks."
    deck.save(str(path))
    return count


def sheet(path: Path, rows: int) -> int:
    import openpyxl

    book = openpyxl.Workbook(write_only=True)
    ws = book.create_sheet("Orders")
    ws.append(["Order", "Customer", "Region", "Product", "Quantity", "Amount"])
    for n in range(rows):
        ws.append([f"O-{n:06d}", f"Customer {n % 311}", ("North", "South", "East")[n % 3],
                   f"Jam {n % 17}", n % 40 + 1, round((n % 40 + 1) * 3.75, 2)])
    book.save(str(path))
    return rows


def mails(path: Path, count: int) -> int:
    box = mailbox.mbox(str(path))
    for n in range(count):
        message = EmailMessage()
        message["From"] = f"Sender {n % 13} <sender{n % 13}@example.org>"
        message["To"] = "bob@example.org"
        message["Subject"] = f"Shipment {n}"
        message["Date"] = "Mon, 03 Mar 2025 09:30:00 +0000"
        message.set_content(SENTENCE.format(n=n) + "\n\n" + SENTENCE.format(n=n + 1))
        box.add(message)
    box.close()
    return count


def pdf(path: Path, pages: int) -> int:
    import pymupdf

    document = pymupdf.open()
    for p in range(pages):
        page = document.new_page()
        text = "\n\n".join(SENTENCE.format(n=p * 20 + i) for i in range(20))
        page.insert_textbox(pymupdf.Rect(50, 50, 545, 800), text, fontsize=9)
    document.save(str(path))
    document.close()
    return pages


BUILDERS: dict[str, tuple[str, str, Callable[[Path, int], int], int]] = {
    "word": ("report.docx", "paragraphs", word, 2000),
    "slides": ("deck.pptx", "slides", slides, 200),
    "sheet": ("orders.xlsx", "rows", sheet, 20000),
    "mail": ("inbox.mbox", "messages", mails, 500),
    "pdf": ("report.pdf", "pages", pdf, 100),
}


def measure(kind: str, scale: float, root: Path) -> dict[str, Any]:
    from desktop_rag.bootstrap import build_context
    from desktop_rag.ingest.loaders import load
    from desktop_rag.services import Services

    name, unit, build, size = BUILDERS[kind]
    folder = root / kind
    folder.mkdir()
    units = build(folder / name, max(1, int(size * scale)))
    start = time.perf_counter()
    segments = sum(1 for _ in load(folder / name).segments)
    extract_s = time.perf_counter() - start
    services = Services(build_context(str(root / f"lib-{kind}")))
    try:
        services.ctx.embedder.embed_query("warm up")  # the model's load is not the file's
        start = time.perf_counter()
        report = services.ingest([folder])
        ingest_s = time.perf_counter() - start
    finally:
        services.close()
    (outcome,) = report.outcomes
    return {"file": name, "unit": unit, "units": units, "bytes": (folder / name).stat().st_size,
            "segments": segments, "chunks": outcome.chunks, "outcome": outcome.outcome.value,
            "extract_s": round(extract_s, 2), "extract_units_per_s": round(units / extract_s, 1),
            "ingest_s": round(ingest_s, 2), "ingest_units_per_s": round(units / ingest_s, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=float, default=1.0, help="file sizes times this")
    parser.add_argument("--only", action="append", choices=sorted(BUILDERS))
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-office-") as tmp:
        for kind in args.only or list(BUILDERS):
            results[kind] = measure(kind, args.scale, Path(tmp))
            sys.stdout.write(f"{kind}: {json.dumps(results[kind])}\n")
            sys.stdout.flush()
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
