"""The MMLongBench documents with words in pictures, and their questions: `python -m
bench.picture_subset DOCS_DIR QUESTIONS_JSONL OUT` links OUT/documents/*.pdf and writes
OUT/questions.jsonl, for `desktop-rag eval pdfqa` or `eval answers` with `ingest.picture_text`
off and on (README, "Words in pictures").

Why a subset: only documents with a page that has a text layer and a large picture change when
pictures are read, and within-document scores of the others stay as they were; measuring on
these alone halves the ingestion time and says what picture text changes.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from desktop_rag.ingest.page_text import has_text
from desktop_rag.ingest.pdf_pages import open_pdf, page_text
from desktop_rag.ingest.picture_text import has_pictures


def picture_pages(path: Path) -> int:
    """How many pages of the PDF have a text layer and a picture that picture text reads."""
    with open_pdf(path) as doc:
        texts = ((page, page_text(page)) for page in doc)
        return sum(1 for page, text in texts if has_text(text) and has_pictures(page, text))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("docs", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    chosen = {p.name: n for p in sorted(args.docs.glob("*.pdf")) if (n := picture_pages(p))}
    (args.out / "documents").mkdir(parents=True, exist_ok=True)
    for name in chosen:
        link = args.out / "documents" / name
        if not link.exists():
            link.symlink_to((args.docs / name).resolve())
    lines = [line for line in args.questions.read_text(encoding="utf-8").splitlines()
             if line.strip() and json.loads(line)["doc"] in chosen]  # fmt: skip
    (args.out / "questions.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(chosen)} documents ({sum(chosen.values())} picture pages), "
          f"{len(lines)} questions in {args.out}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
