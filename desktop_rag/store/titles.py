"""Which title a document shows: the one its file states, or one made from its file name.

PDF metadata titles are often not titles at all: an SEC accession number ("0001065280-16-000047"
for Netflix's 10-K), a hash, the name of the file it was made from ("Microsoft Word - a.docx",
"doc1.dvi"), or an application's default ("Slide 1", "R Graphics Output"). A library full of
those cannot be read, so such a title gives way to the file's name, which the user chose
("Netflix_10K_2015.pdf" -> "Netflix 10K 2015"). Pure functions: no I/O, no PyMuPDF.

Here in the store, below ingestion, because both choose titles: ingestion for a file it reads,
the catalog's migration for the documents of an older library.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

MIN_LENGTH = 3  # "A", "x1": not a title
MAX_LENGTH = 250  # longer: a paragraph pasted into the field, not a title
FILE_SUFFIXES = frozenset({
    "pdf", "doc", "docx", "dot", "dotx", "odt", "rtf", "txt", "tex", "dvi", "ps", "eps", "ai",
    "indd", "qxd", "qxp", "pub", "ppt", "pptx", "pps", "ppsx", "odp", "key", "xls", "xlsx",
    "ods", "csv", "htm", "html", "xhtml", "xml", "md", "wpd", "wps", "pages", "numbers", "png",
    "jpg", "jpeg", "tif", "tiff", "gif", "bmp", "svg", "psd", "cdr",
})
# Words of the titles applications fill in by themselves ("PowerPoint Presentation", "Slide 1",
# "Layer 1", "R Graphics Output", "Adobe Illustrator Artwork", "Document1"): a title made of
# these words (and numbers) only says which program made the file.
DEFAULT_WORDS = frozenset({
    "slide", "slides", "page", "pages", "layer", "layout", "sheet", "book", "chart", "figure",
    "graphics", "output", "artwork", "presentation", "powerpoint", "präsentation",
    "presentación", "présentation", "diapositive", "folie", "ppt", "document", "doc", "docs",
    "word", "microsoft", "office", "excel", "adobe", "illustrator", "indesign", "photoshop",
    "acrobat", "pdf", "pdfmaker", "r", "title", "titel", "titre", "untitled", "new", "blank",
    "template", "cover", "draft", "final", "copy", "version", "print", "printer", "none",
    "null", "default", "test", "file", "keynote", "google", "canva", "anonymous", "unknown",
})
_WORDS = re.compile(r"[^\W_]+")
_PRODUCER_PREFIX = re.compile(
    r"^(microsoft\s+)?(word|powerpoint|excel|publisher|visio|office)\s*-\s", re.IGNORECASE
)
_SUFFIX = re.compile(r"\.([A-Za-z0-9]{1,5})$")
_DIGIT_RUN = re.compile(r"\d{5,}")
_HEXISH = re.compile(r"^[0-9A-Fa-f-]{8,}$")
_MOJIBAKE = re.compile(r"[\ufffd\x00-\x1f\x7f]|^(\xfe\xff|\xff\xfe)|\\\d{3}")  # bytes, not text
_LOOSE_HYPHEN = re.compile(r"(?<!\d)-|-(?!\d)")  # one not between two digits ("12-15-15" stays)
_SPACES = re.compile(r"\s+")


def shown_title(stated: str | None, path: str) -> str:
    """The title to show for the file at `path` whose metadata states `stated` (or nothing)."""
    title = clean(stated)
    return title if title and is_usable(title, path) else file_title(path)


def clean(title: str | None) -> str:
    """The title on one line, without a byte-order mark or surrounding blanks."""
    return _SPACES.sub(" ", (title or "").replace("\ufeff", "")).strip()


def file_title(path: str) -> str:
    """A title made from the file's name: extension dropped, underscores and hyphens (except
    between digits, as in a date) to spaces, %20 decoded."""
    stem = file_stem(path)
    text = unquote(stem) if re.search(r"%[0-9A-Fa-f]{2}", stem) else stem
    text = _SPACES.sub(" ", _LOOSE_HYPHEN.sub(" ", text.replace("_", " "))).strip()
    return text or stem or _name(path)


def is_usable(title: str, path: str) -> bool:
    """Whether a (cleaned) metadata title names the document, rather than being an identifier,
    a file name, garbled bytes or an application's default. A default gives way even when the
    file's name shares a word with it: "Presentation" says less than "sales presentation"."""
    if not MIN_LENGTH <= len(title) <= MAX_LENGTH or _MOJIBAKE.search(title):
        return False
    return not (is_identifier(title) or looks_like_file_name(title) or is_default(title)
                or _is_the_file_name(title, path))


def is_identifier(title: str) -> bool:
    """An accession number, a hash or UUID, a report number, an arXiv id: no letters at all, or
    one token holding a long run of digits or only hex digits."""
    if not any(c.isalpha() for c in title):
        return True
    if " " in title:
        return False
    has_digit = any(c.isdigit() for c in title)
    return bool(_DIGIT_RUN.search(title)) or (has_digit and bool(_HEXISH.match(title)))


def looks_like_file_name(title: str) -> bool:
    """"report.pdf", "doc1.dvi", "C:\\work\\slides.pptx", "Microsoft Word - Q3 notes": the name
    of a file (the one it was printed from), not a title."""
    found = _SUFFIX.search(title)
    suffixed = found is not None and found.group(1).lower() in FILE_SUFFIXES
    return suffixed or bool(_PRODUCER_PREFIX.match(title))


def is_default(title: str) -> bool:
    """Only words an application fills in by itself, and numbers ("Slide 1", "Layer 1"), or
    anything "Untitled..." ("Untitled-Project-3")."""
    words = [w.lower() for w in _WORDS.findall(title)]
    named = [w for w in words if not w.isdigit()]
    if named and _without_number(named[0]) == "untitled":
        return True
    return bool(named) and all(_without_number(w) in DEFAULT_WORDS for w in named)


def _is_the_file_name(title: str, path: str) -> bool:
    """The file's own name, as it stands ("NETFLIX_2015_10K"): shown tidied up instead."""
    return title.lower() in (file_stem(path).lower(), _name(path).lower())


def _without_number(word: str) -> str:
    """"document1" -> "document" (Word's "Document1", Illustrator's "Layer1")."""
    return word.rstrip("0123456789") or word


def _name(path: str) -> str:
    return re.split(r"[\\/]", path.rstrip("\\/"))[-1]


def file_stem(path: str) -> str:
    """The file's name without its extension (what older versions showed as the title)."""
    name = _name(path)
    dot = name.rfind(".")
    return name[:dot] if dot > 0 else name
