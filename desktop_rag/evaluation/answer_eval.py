"""Answer accuracy over questions about PDFs (MMLongBench-Doc style): the questions with their
gold answers, a representative subset for short runs, one record per answer, and the report.

The report tells retrieval misses from model failures: every answerable question is put under
whether a gold evidence page was among the passages the model was given.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from desktop_rag.domain import Answer, Passage
from desktop_rag.evaluation.answer_scoring import is_unanswerable, says_not_found, score_answer
from desktop_rag.evaluation.pdfqa import PdfQuestion, on_gold_page, question_of, read_rows

ALL = "all"
NO_SOURCE = "none"
GIVEN, MISSED, NO_GOLD_PAGES = "gold page given", "gold page missed", "no gold pages"
# A gold page given, split by whether the benchmark says its evidence is in a picture (a chart
# or a figure: the page's text may not hold the answer at all, so a text-only reader's refusal
# there is not the model's failure alone) or in the text, tables and layout only.
GIVEN_TEXT, GIVEN_IMAGE = "gold page given: text evidence", "gold page given: chart or figure"
IMAGE_SOURCES = ("Chart", "Figure")
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class AnswerQuestion:
    base: PdfQuestion  # id, document, question, gold pages, evidence sources
    gold: str
    fmt: str  # Int, Float, Str, List or None ("Not answerable")

    @property
    def answerable(self) -> bool:
        return not is_unanswerable(self.gold, self.fmt)


def load_answer_questions(path: Path) -> list[AnswerQuestion]:
    out = []
    for row in read_rows(path):
        gold = str(row.get("answer", ""))
        fmt = str(row.get("answer_format") or ("None" if is_unanswerable(gold, "") else "Str"))
        out.append(AnswerQuestion(question_of(row), gold, fmt))
    return out


# ---- a representative subset -------------------------------------------------------------------
def _grouped(items: Iterable[T], key: Callable[[T], str]) -> list[list[T]]:
    groups: dict[str, list[T]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return [groups[k] for k in sorted(groups)]


def stratum(q: AnswerQuestion) -> str:
    if not q.answerable:
        return "Not answerable"
    return q.base.sources[0] if q.base.sources else NO_SOURCE


SOURCE_NAMES = {"text": "Pure-text", "table": "Table", "layout": "Layout", "chart": "Chart",
                "figure": "Figure", "none": "Not answerable"}  # fmt: skip


def of_sources(items: Sequence[AnswerQuestion], names: Sequence[str]) -> list[AnswerQuestion]:
    """The questions with an evidence source among `names` (see SOURCE_NAMES; "none": the
    unanswerable ones); every question when `names` is empty."""
    if not names:
        return list(items)
    wanted = [SOURCE_NAMES[n].lower() for n in names]
    return [q for q in items if any(w in s.lower() for w in wanted for s in _sources_of(q))]


def _sources_of(q: AnswerQuestion) -> list[str]:
    return ["Not answerable"] if not q.answerable else list(q.base.sources)


def select(items: Sequence[AnswerQuestion], limit: int | None) -> list[AnswerQuestion]:
    """`limit` questions spread over evidence sources (round-robin by first source, unanswerable
    ones as a source of their own) and over documents (each pick from a document not picked yet,
    while there is one); in file order. Deterministic, so that short runs ask the same ones."""
    if limit is None or limit >= len(items):
        return list(items)
    queues = _grouped(range(len(items)), lambda i: stratum(items[i]))
    chosen: list[int] = []
    used: set[str] = set()
    while len(chosen) < limit:
        for queue in (q for q in queues if q):
            if len(chosen) < limit:
                chosen.append(_take(queue, items, used))
    return [items[i] for i in sorted(chosen)]


def _take(queue: list[int], items: Sequence[AnswerQuestion], used: set[str]) -> int:
    """The queue's first question from an unused document (else its first), marked used;
    once every document has been used, they all are unused again."""
    pick = next((i for i in queue if items[i].base.doc not in used), queue[0])
    queue.remove(pick)
    used.add(items[pick].base.doc)
    if used >= {q.base.doc for q in items}:
        used.clear()
    return pick


# ---- one record per answer ---------------------------------------------------------------------
def gold_page_given(q: AnswerQuestion, passages: Sequence[Passage]) -> bool | None:
    """A passage of the question's own document spans a gold page; None without gold pages."""
    if not q.answerable or not q.base.pages:
        return None
    return any(on_gold_page(q.base, p.chunk) for p in passages)


def record(q: AnswerQuestion, answer: Answer) -> dict[str, Any]:
    """Everything needed to read (or re-score) one answer later, as JSON-ready values."""
    score = score_answer(q.gold, q.fmt, answer.answer, answer.refused, answer.route.count)
    return {
        "id": q.base.qid,
        "original": q.base.qid.split("~", 1)[0] if "~" in q.base.qid else None,
        "doc": q.base.doc,
        "question": q.base.question,
        "gold": q.gold,
        "format": q.fmt,
        "sources": list(q.base.sources),
        "evidence_pages": sorted(q.base.pages),
        "answer": answer.answer,
        "refused": answer.refused or says_not_found(answer.answer),
        "score": score.score,
        "correct": score.correct,
        "gold_page_given": gold_page_given(q, answer.passages),
        "citations": [
            {"n": c.n, "path": c.chunk.path, "pages": list(c.chunk.pages), "support": c.support}
            for c in answer.citations
        ],
        "timings": dict(answer.timings),
        "calculations": [c.to_record() for c in answer.calculations],
        "route": answer.route.to_record(),
    }


# ---- the report --------------------------------------------------------------------------------
@dataclass(slots=True)
class Tally:
    """Per group: questions, correct, partial-credit score and refusals."""

    rows: dict[str, list[float]] = field(default_factory=dict)

    def add(self, keys: Iterable[str], rec: dict[str, Any]) -> None:
        for key in dict.fromkeys(keys):
            row = self.rows.setdefault(key, [0, 0, 0.0, 0])
            row[0] += 1
            row[1] += bool(rec["correct"])
            row[2] += float(rec["score"])
            row[3] += bool(rec["refused"])

    def report(self) -> dict[str, dict[str, float]]:
        ordered = sorted(self.rows.items(), key=lambda kv: (kv[0] != ALL, kv[0]))
        return {key: _rates(row) for key, row in ordered}


def _rates(row: list[float]) -> dict[str, float]:
    n = max(row[0], 1)
    return {
        "questions": int(row[0]),
        "accuracy": round(row[1] / n, 4),
        "score": round(row[2] / n, 4),
        "refused": round(row[3] / n, 4),
    }


def _retrieval_keys(rec: dict[str, Any]) -> tuple[str, ...]:
    given = rec["gold_page_given"]
    if not given:
        return (NO_GOLD_PAGES if given is None else MISSED,)
    image = any(source in IMAGE_SOURCES for source in rec["sources"])
    return GIVEN, GIVEN_IMAGE if image else GIVEN_TEXT


def _median(records: Sequence[dict[str, Any]], name: str) -> float | None:
    values = [float(r["timings"][name]) for r in records if name in r["timings"]]
    return round(statistics.median(values), 1) if values else None


def _f1(records: Sequence[dict[str, Any]]) -> float:
    """MMLongBench's F1: recall over answerable questions, precision over the answers that
    are not refusals; so refusing everything or answering everything both score low."""
    answerable = [r for r in records if not is_unanswerable(r["gold"], r["format"])]
    right = sum(bool(r["correct"]) for r in answerable)
    attempted = sum(not r["refused"] for r in records)
    recall, precision = right / max(len(answerable), 1), right / max(attempted, 1)
    return round(2 * recall * precision / (recall + precision), 4) if right else 0.0


def summarise(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Accuracy overall, by answer format, by evidence source and by whether retrieval gave the
    model a gold page; refusal rates; median latencies."""
    by_format, by_source, by_retrieval = Tally(), Tally(), Tally()
    for rec in records:
        by_format.add((ALL, rec["format"]), rec)
        by_source.add((ALL, *(rec["sources"] or [NO_SOURCE])), rec)
        if not is_unanswerable(rec["gold"], rec["format"]):
            by_retrieval.add((ALL, *_retrieval_keys(rec)), rec)
    formats, retrieval = by_format.report(), by_retrieval.report()
    overall = formats.get(ALL, _rates([0, 0, 0.0, 0]))
    return {
        "questions": len(records),
        "answerable": retrieval.get(ALL, {}).get("questions", 0),
        "accuracy": overall["accuracy"],
        "score": overall["score"],
        "f1": _f1(records),
        "refusal_rate_unanswerable": formats.get("None", {}).get("refused"),
        "false_refusal_rate": {k: v["refused"] for k, v in retrieval.items()},
        "list_overlap": formats.get("List", {}).get("score"),
        "by_format": formats,
        "by_source": by_source.report(),
        "by_retrieval": retrieval,
        "ttft_ms_p50": _median(records, "ttft_ms"),
        "total_ms_p50": _median(records, "total_ms"),
        "prompt_tokens_p50": _median(records, "prompt_tokens"),
    }


def running_accuracy(records: Sequence[dict[str, Any]]) -> float:
    return sum(bool(r["correct"]) for r in records) / max(len(records), 1)
