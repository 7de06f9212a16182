"""PyMuPDF is imported without its layout model (about 0.4 s and 56 MB in every process that
opens a PDF), and the table reader turns it on where it reads tables, with the same tables;
threads that open their first PDFs at once each get the whole module."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.table_pdfs import table_pdf

pytest.importorskip("pymupdf")

SCRIPT = """
import sys
from desktop_rag.ingest.pdf_pages import open_pdf, page_text
with open_pdf(sys.argv[1]) as doc:
    assert page_text(doc[0])["blocks"]
    assert "pymupdf.layout" not in sys.modules, "the layout model came with PyMuPDF"
    from desktop_rag.ingest.table_extract import page_tables
    tables = page_tables(doc[0], 1, strict=True)
import pymupdf
assert callable(pymupdf._get_layout), "the table reader did not turn the layout model on"
print(repr(tables))
"""


def test_the_layout_model_loads_only_for_tables(tmp_path: Path) -> None:
    pdf = table_pdf(tmp_path / "t.pdf", ruled=False)
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(pdf)], capture_output=True,
                         text=True, timeout=120, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    from desktop_rag.ingest.pdf_pages import open_pdf
    from desktop_rag.ingest.table_extract import page_tables

    with open_pdf(str(pdf)) as doc:  # this process imported PyMuPDF with its layout model
        assert run.stdout.strip() == repr(page_tables(doc[0], 1, strict=True))
    assert "TableBlock" in run.stdout


THREADS = """
import sys, threading
from desktop_rag.ingest.pdf_pages import open_pdf, page_text
texts = []
def read():
    with open_pdf(sys.argv[1]) as doc:
        texts.append(len(page_text(doc[0])["blocks"]))
threads = [threading.Thread(target=read) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
assert len(texts) == 8 and len(set(texts)) == 1 and texts[0] > 0, texts
assert "pymupdf.layout" not in sys.modules
print("ok")
"""


def test_threads_opening_their_first_pdfs_at_once(tmp_path: Path) -> None:
    pdf = table_pdf(tmp_path / "t.pdf", ruled=False)
    run = subprocess.run([sys.executable, "-c", THREADS, str(pdf)], capture_output=True,
                         text=True, timeout=120, check=False)  # fmt: skip
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr
