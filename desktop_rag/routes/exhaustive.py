"""The exhaustive route: lists and counts from every passage in scope, never from a top-k
sample.

The scope is the documents the user chose, else those the question names by title, else the
library. Every chunk of them is read from the catalog and split into items (lines, sentences);
matching decides what it can (stems of the thing asked for, its condition, exact identifiers,
phrase occurrences); similarity finds the paraphrases matching misses; the chat model judges,
in batches, what matching could not decide; the count is the number of items, counted here.
The same library and model give the same answer: the reading order is fixed, the matching is
rules, and the judge decodes greedily.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from desktop_rag.domain import Answer, AnswerStage, Chunk, Document, Stage
from desktop_rag.domain.progress import CancelToken
from desktop_rag.routes.base import RouteRequest
from desktop_rag.routes.compose import Reading, compose, ordered
from desktop_rag.routes.dense import Paraphrases
from desktop_rag.routes.judge import BatchSink, Verdicts
from desktop_rag.routes.matching import Found, Matches, match_items
from desktop_rag.routes.parts import PartsCount, count_parts, parse_parts
from desktop_rag.routes.scope import documents_asked
from desktop_rag.routes.slots import another_value
from desktop_rag.routes.target import Mode, Target, parse
from desktop_rag.routes.units import ChunkSource, ItemUnit, distinct, names_its_page, units_of
from desktop_rag.routes.values import ValuesCount, count_values, parse_values
from desktop_rag.text.words import stem_set


class Judge(Protocol):
    def judge(
        self,
        question: str,
        wanted: str,
        lines: Sequence[str],
        cancel: CancelToken | None = None,
        on_batch: BatchSink | None = None,
        anchors: Sequence[str] = (),
    ) -> Verdicts: ...


@dataclass(frozen=True, slots=True)
class ExhaustiveSettings:
    list_limit: int = 25  # items written in the answer; the rest are "and N more" (all in JSON)
    # candidates the model judges per question at most; None: all of them (a count must not
    # come from a sample: the judge reports its progress batch by batch and can be cancelled)
    max_judged: int | None = None


@dataclass(slots=True)
class _Scan:
    """What one question's reading has gathered so far."""

    docs: list[Document]
    chunks: list[Chunk] = field(default_factory=list)
    units: list[ItemUnit] = field(default_factory=list)
    details: dict[str, int] = field(default_factory=dict)


class ExhaustiveRoute:
    """Reads the catalog (`source`); `paraphrases` (made on first use: it needs the embedder,
    which a count of phrases never loads) and `judge` are optional: without a judge the
    candidates are reported as undecided, never counted."""

    def __init__(
        self,
        source: ChunkSource,
        paraphrases: Callable[[], Paraphrases] | None,
        judge: Judge | None,
        settings: ExhaustiveSettings = ExhaustiveSettings(),
        gpu_offload: Callable[[], bool] = lambda: False,
    ) -> None:
        self.source = source
        self.paraphrases = paraphrases
        self.judge = judge
        self.settings = settings
        self.gpu_offload = gpu_offload

    def answer(self, request: RouteRequest) -> Answer:
        target = parse(request.query)
        scan = self._read(request)
        asked = parse_parts(request.query, target.head_noun)
        parts = count_parts(asked, scan.units) if asked is not None else None
        if parts is not None:
            return self._parts_answer(request, target, scan, parts)
        wanted = parse_values(request.query, target.head_noun)
        values = count_values(wanted, scan.units) if wanted is not None else None
        if values is not None:
            scan.details.update(items=values.count, values_found=values.count)
            return self._composed(request, target, scan, values.found, (0, ""), values)
        matches = match_items(scan.units, target)
        candidates = matches.candidates + self._paraphrases(target, scan, matches, request.cancel)
        found, undecided, why = self._judged(target, candidates, scan, request,
                                             [u.text for u in matches.anchors])
        found = ordered(matches.items + found, {d.doc_id: i for i, d in enumerate(scan.docs)})
        scan.details.update(items=len(found), matched=len(matches.items),
                            candidates=len(candidates), undecided=undecided)  # fmt: skip
        return self._composed(request, target, scan, found, (undecided, why))

    def _parts_answer(
        self, request: RouteRequest, target: Target, scan: _Scan, parts: PartsCount
    ) -> Answer:
        """A count of labelled parts (tables, appendices, exhibits), counted by their labels."""
        scan.details.update(items=parts.count, parts_found=len(parts.found))
        return self._composed(request, target, scan, parts.found, (0, ""), parts)

    def _composed(
        self,
        request: RouteRequest,
        target: Target,
        scan: _Scan,
        found: list[Found],
        left: tuple[int, str],
        parts: PartsCount | ValuesCount | None = None,
    ) -> Answer:
        undecided, why = left
        library = request.scope.whole_library and not scan.details.get("named")
        reading = Reading(scan.docs, library, len(scan.chunks), _pages(scan.docs), undecided, why,
                          scan.details)  # fmt: skip
        text, answer = compose(target, found, reading, request.info, self.settings.list_limit,
                               parts)  # fmt: skip
        if request.on_token is not None:
            request.on_token(text)
        return dataclasses.replace(answer, question=request.question, chat_id=request.chat_id,
                                   gpu_offload=self.gpu_offload(),
                                   timings=_timings(request.started, scan.details))  # fmt: skip

    def _read(self, request: RouteRequest) -> _Scan:
        """Every chunk of every document in scope, in reading order, as items."""
        start = time.perf_counter()
        docs, named = documents_asked(self.source, request.query, request.scope)
        scan = _Scan(docs)
        scan.details["named"] = named
        total = sum(d.chunks for d in scan.docs)
        for doc in scan.docs:
            _scanning(request, len(scan.chunks), total)
            if request.cancel is not None:
                request.cancel.raise_if_cancelled()
            chunks = self.source.chunks_of(doc.doc_id)
            scan.chunks += chunks
            scan.units += [u for c in chunks for u in units_of(c)]
        _scanning(request, len(scan.chunks), len(scan.chunks))
        scan.units = [u for u in distinct(scan.units) if not names_its_page(u)]  # no header
        scan.details.update(documents=len(scan.docs), passages_read=len(scan.chunks),
                            lines_read=len(scan.units),
                            scan_ms=round((time.perf_counter() - start) * 1000))  # fmt: skip
        return scan

    def _paraphrases(
        self, target: Target, scan: _Scan, matches: Matches, cancel: CancelToken | None
    ) -> list[ItemUnit]:
        """Candidates by similarity, for a count or list of a thing (not for exact phrases or
        identifiers, nor when a condition already sends every item of the head to the judge).
        Where the text states the condition in the question's words ("Maria Lopez"), a
        paraphrase of the thing must state it too: the similarity is then to the thing alone
        ("action item"), so that lines naming only the condition do not come close."""
        if self.paraphrases is None or target.mode is Mode.MENTIONS or target.identifiers:
            return []
        if not matches.condition_stated:
            return []
        taken = matches.decided  # an item of the head is settled, whatever its condition
        by_chunk: dict[str, list[ItemUnit]] = {}
        for unit in scan.units:  # not a register's other lines: no record, no item
            if unit.place not in taken and unit.chunk.doc_id not in matches.registers:
                by_chunk.setdefault(unit.chunk.chunk_id, []).append(unit)
        wanted = target.head_noun if target.condition else target.description
        result = self.paraphrases().find(wanted or target.description, scan.chunks,
                                       lambda c: by_chunk.get(c.chunk_id, []), cancel)  # fmt: skip
        found = [u for u in result.candidates if set(target.condition) <= stem_set(u.text)]
        scan.details.update(dense_embedded=result.embedded, dense_left=result.left,
                            dense_candidates=len(found))  # fmt: skip
        return found

    def _judged(
        self, target: Target, candidates: list[ItemUnit], scan: _Scan, request: RouteRequest,
        anchors: Sequence[str] = (),
    ) -> tuple[list[Found], int, str]:
        """The candidates the judge said yes to; how many stay undecided, and why."""
        if not candidates:
            return [], 0, ""
        if self.judge is None:
            return [], len(candidates), "no model to judge them"
        asked = candidates[: self.settings.max_judged]  # [:None]: all
        verdicts = self._verdicts(request, target, [u.text for u in asked], anchors)
        scan.details.update(judged=len(asked), model_calls=verdicts.calls,
                            prompt_tokens=verdicts.prompt_tokens,
                            generated_tokens=verdicts.generated_tokens)  # fmt: skip
        found = [Found(u, "model") for u, said in zip(asked, verdicts.said, strict=True) if said]
        unanswered = sum(1 for said in verdicts.said if said is None)
        over = len(candidates) - len(asked)
        why = f"the model judges {len(asked)} per question" if over else "the model gave no verdict"
        return found, over + unanswered, why

    def _verdicts(
        self, request: RouteRequest, target: Target, lines: list[str], anchors: Sequence[str]
    ) -> Verdicts:
        """The judge's verdict on each line. With anchors (lines that state the condition as
        asked), a line stating another value in their place is no item, unasked
        (routes/slots.py), and the judge measures the others against the anchors."""
        judge = self.judge
        assert judge is not None
        progress = _judging(request)
        progress(0, len(lines))
        asked = (request.question, target.description)
        if not anchors:
            return judge.judge(*asked, lines, request.cancel, progress)
        other = another_value(anchors, lines, target.condition)
        read = [i for i, is_other in enumerate(other) if not is_other]
        got = judge.judge(*asked, [lines[i] for i in read], request.cancel, progress, anchors)
        said: list[bool | None] = [False] * len(lines)
        for i, verdict in zip(read, got.said, strict=True):
            said[i] = verdict
        return dataclasses.replace(got, said=said)


def _scanning(request: RouteRequest, done: int, total: int) -> None:
    note = f"Reading every passage in scope: {done:,} of {total:,}\u2026"
    _stage(request, Stage.SCANNING, done, total, note)


def _judging(request: RouteRequest) -> BatchSink:
    """The judge's progress as the answer's judging stage: lines judged of lines to judge."""

    def progress(done: int, total: int) -> None:
        note = f"Checking {total:,} candidate lines with the model: {done:,} of {total:,}\u2026"
        _stage(request, Stage.JUDGING, done, total, note)

    return progress


def _stage(request: RouteRequest, stage: Stage, done: int, total: int, note: str) -> None:
    if request.on_stage is not None:
        request.on_stage(AnswerStage(stage, (), 0, done, total, note))


def _pages(docs: Sequence[Document]) -> int:
    return sum(d.pages for d in docs)


def _timings(started: float, details: dict[str, int]) -> dict[str, float]:
    total = round((time.perf_counter() - started) * 1000, 2)
    return {"retrieve_ms": float(details.get("scan_ms", 0)), "rerank_ms": 0.0, "ttft_ms": total,
            "total_ms": total, "prompt_tokens": float(details.get("prompt_tokens", 0)),
            "cached_tokens": 0.0,
            "generated_tokens": float(details.get("generated_tokens", 0))}  # fmt: skip
