"""Builds the labelled support-check set from real PDFs (../shared/data/mmlongbench/documents).

Each pair is a claim and the passage (about 200 words of the page around a real sentence) a
model would have cited for it:
- supported: the sentence verbatim, a clause of it, it reworded (a lead-in, synonyms, a dropped
  aside), or two adjacent sentences merged;
- unsupported: the sentence with a changed number, a changed date, another name from the same
  document, or its negation flipped.
Deterministic (a fixed seed); `split` is "tune" or "held-out" by a hash of the source sentence,
so that constants are chosen on one half and the figures quoted from the other.

    .venv/bin/python -m bench.support_set [DOCS_DIR] [OUT_JSONL]
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pymupdf

DOCS = Path(__file__).resolve().parents[2] / "shared" / "data" / "mmlongbench" / "documents"
OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "support_pairs.jsonl"
PER_DOCUMENT = 4
SUPPORTED = ("verbatim", "clause", "reworded", "merged")
WINDOW_WORDS = 100  # words kept either side of the sentence in its passage
_SENT = re.compile(r"(?<=[a-z0-9%)][.!?])\s+(?=[A-Z])")
_NUM = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")
_YEAR = re.compile(r"\b(19[5-9]\d|20[0-4]\d)\b")
_MONTHS = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
]  # fmt: skip
_NAME = re.compile(r"(?<=[a-z,] )[A-Z][a-z]{2,}(?: [A-Z][a-z]{2,})?")
_NEGATABLE = re.compile(r"\b(is|are|was|were|can|will|has|have|does|do|did|should|could)\b")
_SYNONYMS = {
    "increase": "rise", "increased": "rose", "decrease": "decline", "decreased": "declined",
    "shows": "indicates", "show": "indicate", "large": "big", "small": "little",
    "important": "significant", "use": "utilize", "used": "utilized", "help": "assist",
    "begin": "start", "began": "started", "however": "but", "about": "around",
    "approximately": "roughly", "percent": "%", "company": "firm", "buy": "purchase",
    "many": "numerous", "need": "require", "needs": "requires", "people": "individuals",
    "found": "discovered", "make": "create", "provides": "offers", "provide": "offer",
}  # fmt: skip


def page_texts(pdf: Path) -> list[str]:
    with pymupdf.open(pdf) as doc:
        return [" ".join(page.get_text().split()) for page in doc]


def good_sentence(s: str) -> bool:
    words = s.split()
    letters = sum(c.isalpha() for c in s)
    whole = bool(s) and s[-1] in ".!?" and not re.search(r"\s\d+\.$", s) and s[0].isalnum()
    return 10 <= len(words) <= 40 and letters > 0.7 * len(s.replace(" ", "")) and whole


def candidates(pages: list[str]) -> Iterator[tuple[int, str, list[str], int]]:
    for page_no, text in enumerate(pages, start=1):
        sentences = _SENT.split(text)
        for i, s in enumerate(sentences):
            if good_sentence(s):
                yield page_no, text, sentences, i


def passage_around(text: str, sentence: str, rng: random.Random) -> str:
    at = text.find(sentence)
    before = text[:at].split()[-rng.randint(WINDOW_WORDS // 2, WINDOW_WORDS) :]
    after = text[at + len(sentence) :].split()[: rng.randint(WINDOW_WORDS // 2, WINDOW_WORDS)]
    return " ".join([*before, sentence, *after])


# ---- supported variants -------------------------------------------------------------------
def clause(s: str) -> str | None:
    parts = [p.strip() for p in re.split(r",\s+|;\s+", s[:-1]) if len(p.split()) >= 6]
    return (parts[0][0].upper() + parts[0][1:] + ".") if parts and parts[0] != s[:-1] else None


def reworded(s: str, rng: random.Random) -> str | None:
    out = re.sub(r"\s*\([^)]*\)", "", s)
    words = out.split()
    swaps = [i for i, w in enumerate(words) if w.lower() in _SYNONYMS]
    for i in rng.sample(swaps, min(2, len(swaps))):
        words[i] = _SYNONYMS[words[i].lower()]
    out = " ".join(words)
    lead = rng.choice(("According to the document, ", "The source states that ", "", "Notably, "))
    if lead:
        out = lead + out[0].lower() + out[1:] if not out[:2].isupper() else lead + out
    return out if out != s else None


def merged(sentences: list[str], i: int) -> str | None:
    if i + 1 >= len(sentences) or not good_sentence(sentences[i + 1]):
        return None
    nxt = sentences[i + 1]
    return f"{sentences[i][:-1]}, and {nxt[0].lower()}{nxt[1:]}"


# ---- unsupported variants -----------------------------------------------------------------
def changed_number(s: str, rng: random.Random) -> str | None:
    found = [m for m in _NUM.finditer(s) if not _YEAR.fullmatch(m.group(0))]
    if not found:
        return None
    m = rng.choice(found)
    digits = m.group(0)
    spot = rng.choice([i for i, c in enumerate(digits) if c.isdigit()])
    new = digits[:spot] + str((int(digits[spot]) + rng.randint(1, 8)) % 10) + digits[spot + 1 :]
    if new.lstrip("0") == "" or new == digits:
        return None
    return s[: m.start()] + new + s[m.end() :]


def changed_date(s: str, rng: random.Random) -> str | None:
    year = _YEAR.search(s)
    if year:
        shifted = str(int(year.group(0)) + rng.choice((-2, -1, 1, 2)))
        return s[: year.start()] + shifted + s[year.end() :]
    for month in _MONTHS:
        if month in s:
            return s.replace(month, rng.choice([m for m in _MONTHS if m != month]), 1)
    return None


def changed_name(s: str, names: list[str], rng: random.Random) -> str | None:
    own = _NAME.findall(s)
    others = [n for n in names if n not in s and n.lower() not in s.lower()]
    if not own or not others:
        return None
    return s.replace(rng.choice(own), rng.choice(others), 1)


def flipped(s: str) -> str | None:
    if re.search(r"\bnot\b", s):
        return re.sub(r"\s+not\b", "", s, count=1)
    m = _NEGATABLE.search(s)
    return s[: m.end()] + " not" + s[m.end() :] if m else None


def pairs_for(pdf: Path, rng: random.Random) -> Iterator[dict[str, object]]:
    pages = page_texts(pdf)
    names = sorted({n for p in pages for n in _NAME.findall(p)})
    pool = list(candidates(pages))
    rng.shuffle(pool)
    for page_no, text, sentences, i in pool[:PER_DOCUMENT]:
        s = sentences[i]
        passage = passage_around(text, s, rng)
        variants = {
            "verbatim": s, "clause": clause(s), "reworded": reworded(s, rng),
            "merged": merged(sentences, i), "number": changed_number(s, rng),
            "date": changed_date(s, rng), "name": changed_name(s, names, rng),
            "negation": flipped(s),
        }  # fmt: skip
        for kind, claim in variants.items():
            if not claim:
                continue
            if kind == "merged" and sentences[i + 1] not in passage:
                passage += " " + sentences[i + 1]
            yield {"doc": pdf.name, "page": page_no, "kind": kind, "claim": claim, "source": s,
                   "passage": passage, "supported": kind in SUPPORTED}  # fmt: skip


def main(argv: list[str]) -> int:
    docs = Path(argv[0]) if argv else DOCS
    out = Path(argv[1]) if len(argv) > 1 else OUT
    rng = random.Random(20261201)
    rows = [row for pdf in sorted(docs.glob("*.pdf")) for row in pairs_for(pdf, rng)]
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as f:
        for n, row in enumerate(rows):
            row_id = f"sp-{n:04d}"
            key = f"{row['doc']}:{row['source']}"  # a sentence's variants share a half
            half = int(hashlib.sha256(key.encode()).hexdigest(), 16) % 2
            f.write(json.dumps({"id": row_id, "split": ("tune", "held-out")[half], **row}) + "\n")
    print(f"{len(rows)} pairs -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
