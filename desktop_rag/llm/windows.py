"""Tighter passages: each passage cut down to the sentences that match the question best, with
the sentence before and after each, for a prompt of fewer tokens (`retrieval.passage_sentences`).

Why it is measured and not assumed: the prompt's prefill is most of a cold answer's wait on a
CPU (about 160 tokens/s here), so half the tokens is half the wait; but a small model may need
the sentences around a fact to read it. Tables (lines of figures) are kept whole: a row means
nothing without its header. The citations, evidence and support checks still read the whole
chunk; only what the model is shown is cut.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Sequence

from desktop_rag.domain import Passage
from desktop_rag.llm.claims import Claim
from desktop_rag.locate import sentence_spans

GAP = " … "


def tightened(question: str, passages: Sequence[Passage], keep: int) -> list[Passage]:
    """Each passage with only its `keep` best sentences and their neighbours (0: unchanged)."""
    if keep <= 0:
        return list(passages)
    spans = [sentence_spans(p.text) for p in passages]
    sentences = [p.text[a:b] for p, s in zip(passages, spans, strict=True) for a, b in s]
    weights = question_term_weights(question, sentences)
    return [_tight(p, s, weights, keep) for p, s in zip(passages, spans, strict=True)]


def question_term_weights(question: str, sentences: Sequence[str]) -> dict[str, float]:
    """The question's words and numbers, the rarer among the sentences the heavier."""
    asked = Claim(question)
    terms = asked.content | asked.numbers
    vocab = [Claim(s).vocabulary for s in sentences]
    df = Counter(t for v in vocab for t in terms & v)
    return {t: math.log(1 + (len(sentences) + 1) / (df[t] + 0.5)) for t in terms}


def _tight(
    passage: Passage, spans: Sequence[tuple[int, int]], weights: dict[str, float], keep: int
) -> Passage:
    if len(spans) <= 3 * keep or looks_tabular(passage.text):
        return passage
    scores = [_score(passage.text[a:b], weights) for a, b in spans]
    best = sorted(range(len(spans)), key=lambda i: -scores[i])[:keep]
    chosen = sorted({j for i in best for j in (i - 1, i, i + 1) if 0 <= j < len(spans)})
    return dataclasses.replace(passage, text=_joined(passage.text, spans, chosen))


def _score(sentence: str, weights: dict[str, float]) -> float:
    return sum(w for t, w in weights.items() if t in Claim(sentence).vocabulary)


def _joined(text: str, spans: Sequence[tuple[int, int]], chosen: Sequence[int]) -> str:
    """The chosen sentences in order, a gap mark where sentences were left out."""
    out: list[str] = []
    for k, i in enumerate(chosen):
        if k and i != chosen[k - 1] + 1:
            out.append(GAP.strip())
        out.append(text[spans[i][0] : spans[i][1]])
    lead = "… " if chosen and chosen[0] > 0 else ""
    tail = " …" if chosen and chosen[-1] < len(spans) - 1 else ""
    return lead + " ".join(out) + tail


def looks_tabular(text: str) -> bool:
    """Lines of figures (a table's rows, labelled or not): kept whole."""
    lines = [line for line in text.splitlines() if line.strip()]
    with_figures = sum(1 for line in lines if sum(c.isdigit() for c in line) >= 3)
    return len(lines) >= 3 and with_figures * 2 >= len(lines)
