"""The map step of a long summary without the model: the document's key sentences, picked by
what they say and where, in reading order, for the final pass to write the summary from.

Why not the model for every section: on this project's 2-core machines a 1.5B model took 7-14
minutes to read a 9-36 page paper section by section, and its section summaries were vague
("the authors demonstrate the task in Figure 1"), so the final summary covered almost none of
the paper's own statement of what it does (0.07 of its abstract's key points, abstract held
out). A paper, a report or a manual states its aim, contribution and findings in sentences of
its own — "In this paper we propose…", "Results show…" — mostly in its opening and closing
parts. Those are found here in about a second: each sentence is scored by its closeness to the
document as a whole (the centroid of its sentences' embeddings), by wording that states a
contribution or a finding, and by its place; the best are chosen with a diversity penalty
(maximal marginal relevance), so that twelve sentences are not one point twelve times.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from desktop_rag.domain import PICTURE_TEXT
from desktop_rag.domain.protocols import Embedder
from desktop_rag.routes.sections import Section, flat
from desktop_rag.text.locate import sentence_spans

PICKER_VERSION = "key-sentences-v3"  # part of a kept summary's key: change it with the picking
MIN_WORDS, MAX_WORDS = 8, 60
DIVERSITY = 0.5  # the weight of a candidate's likeness to what was already picked
FRAMING = 0.10  # an introduction's or a conclusion's sentence (see `framing`)
OPENING, CLOSING = 0.2, 0.85  # shares of the document's sentences: its opening and its close
_STATES = re.compile(
    r"(?i)\b(?:we|our (?:study|work|method|approach|analysis|results?)|this (?:paper|work|study"
    r"|article|report|document|manual|guide|survey|review))(?: \w+){0,2}? (?:propose|present"
    r"|introduce|show|find|found|demonstrate|achiev|outperform|improv|develop|design|buil[dt]"
    r"|evaluat|define|conduct|observe|contribut|extend|stud|analy[sz]|uncover|describ|explain"
    r"|report|recommend|conclud|focus|review|survey|categori[sz]|examin|explor|hypothesi[sz])\w*"
)
_FRAMES = re.compile(
    "(?i)\\b(?:" + "|".join((
        r"in this (?:paper|work|study|article|report|survey)",
        r"our (?:main |key )?contributions?",
        r"in summary|to summari[sz]e|in conclusion|we conclude",
        r"results? (?:show|suggest|indicate)",
        r"the (?:main|key) (?:finding|result|contribution)s?",
        r"this (?:report|document|manual) (?:describes|covers|presents|explains)",
        r"(?:revenues?|sales|net income|earnings|profits?)(?: \w+){0,3} (?:rose|increased"
        r"|decreased|grew|declined|fell)",
        r"(?:is|are) (?:the|a) (?:world's )?(?:largest|leading)",
    )) + ")\\b"
)
_FRAMING_HEADING = re.compile(
    r"(?i)\b(?:introduction|overview|executive summary|summary|conclusions?|concluding"
    r"|discussion)\b"
)
_ENDED = re.compile(r"[.!?]['\"\u2019\u201d)\]]*$")
_CAPTION = re.compile(r"(?i)^\s*(?:fig(?:ure)?\.?|table|algorithm|listing)\s*\d")
_REFERENCE = re.compile(  # an entry of a reference list that the sections did not leave out
    r"(?i)^in proceedings of|\bproceedings of the\b|\bpages \d+\s*[\u2013-]\s*\d+|\bpp\. \d+"
    r"|\bvolume \d+ of\b|arxiv preprint|lecture notes in|^in advances in\b"
)
_CITATIONS = re.compile(r"\[\d+(?:[,\u2013-]\s*\d+)*\]|\bet al\b")
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")


@dataclass(frozen=True, slots=True)
class Candidate:
    section: int  # the number of its Section (the citation the final pass uses)
    order: int  # its place in the document's reading order
    text: str
    framing: bool = False  # in an introduction, a conclusion or a summary (see `framing`)


def candidates(parts: Sequence[Section]) -> list[Candidate]:
    """The sentences of the sections that could state a point: prose of 8-60 words, no
    caption, no link, not mostly numbers, and said once (a sentence on every page is a running
    header or a notice)."""
    found = [(s.n, text, framing(s.title)) for s in parts for text in _sentences(s)]
    seen = Counter(text.lower() for _, text, _ in found)
    kept = [(n, text, f) for n, text, f in found if seen[text.lower()] == 1 and _prose(text)]
    return [Candidate(n, order, text, f) for order, (n, text, f) in enumerate(kept)]


def framing(title: str) -> bool:
    """Whether a section's headings name the part where a document states its aim and its
    findings in its own words: an introduction, an overview, a summary, a conclusion."""
    return bool(_FRAMING_HEADING.search(title))


def _sentences(section: Section) -> list[str]:
    texts = [_without_pictures(c.text) for c in section.chunks]
    spans = [(text, a, b) for text in texts for a, b in sentence_spans(text, ".!?")]
    return [flat(text[a:b]) for text, a, b in spans]


def _without_pictures(text: str) -> str:
    """The chunk's text less the words OCR read in its pictures (one line each)."""
    return "\n".join(line for line in text.split("\n") if not line.startswith(PICTURE_TEXT))


def _prose(text: str) -> bool:
    words = text.split()
    if not MIN_WORDS <= len(words) <= MAX_WORDS or _CAPTION.match(text) or "http" in text:
        return False
    if not _ENDED.search(text):  # cut off at a chunk's end: "…the task of Knowledge-aware Language"
        return False
    if "|" in text or _REFERENCE.search(text):  # a table's row, a contents line, a reference
        return False
    alphabetic = sum(1 for w in words if any(ch.isalpha() for ch in w))
    numbers = len(_DIGITS.findall(text))  # a key figure or two is a point; a row of them is not
    return alphabetic >= 0.75 * len(words) and numbers <= max(3, len(words) // 4)


def cue(text: str) -> float:
    """What the wording says about the sentence: a contribution or a finding stated (0.15),
    a summarising frame (0.10), a sentence about others' work (-0.06 a citation). The spread of
    closeness to the centroid between a median and a top-decile sentence is about 0.1."""
    score = 0.15 if _STATES.search(text) else 0.0
    score += 0.10 if _FRAMES.search(text) else 0.0
    return score - 0.06 * min(len(_CITATIONS.findall(text)), 2)


def place(order: int, total: int) -> float:
    """The opening states the aim and the contribution, the close the findings."""
    share = order / max(total - 1, 1)
    return 0.08 if share <= OPENING else 0.04 if share >= CLOSING else 0.0


def scores(found: Sequence[Candidate], vectors: np.ndarray) -> np.ndarray:
    """Centrality (cosine with the centroid of the document's sentences) plus cue and place."""
    centroid = vectors.mean(axis=0)
    centroid /= np.linalg.norm(centroid) or 1.0
    central = vectors @ centroid
    extra = np.array([cue(c.text) + place(c.order, len(found)) + FRAMING * c.framing
                      for c in found])  # fmt: skip
    return np.asarray(central + extra)


def pick(found: Sequence[Candidate], vectors: np.ndarray, count: int) -> list[Candidate]:
    """`count` candidates by maximal marginal relevance, returned in reading order."""
    if not found:
        return []
    value = scores(found, vectors)
    chosen: list[int] = []
    likeness = np.full(len(found), -1.0)
    for _ in range(min(count, len(found))):
        gain = value - DIVERSITY * np.maximum(likeness, 0.0)
        gain[chosen] = -np.inf
        best = int(np.argmax(gain))
        chosen.append(best)
        likeness = np.maximum(likeness, vectors @ vectors[best])
    return [found[i] for i in sorted(chosen)]


def key_sentences(
    parts: Sequence[Section], embedder: Embedder, count: int
) -> dict[int, list[str]]:
    """Each section's picked sentences in reading order (sections with none left out), `count`
    of them over all the sections."""
    found = candidates(parts)
    if not found:
        return {}
    vectors = np.asarray(embedder.embed_documents([c.text for c in found]), dtype=np.float32)
    by_section: dict[int, list[str]] = {}
    for c in pick(found, vectors, count):
        by_section.setdefault(c.section, []).append(c.text)
    return by_section


def sentence_count(bullets: int) -> int:
    """How many sentences the final pass gets: two for each point asked, 12 at least, 20 at most."""
    return max(12, min(20, 2 * bullets))
