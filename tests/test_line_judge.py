"""The count's judge, line by line (judge-v4): each candidate line is asked on its own and the
model's probability of "yes" decides, so one verdict cannot be copied down a batch."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from desktop_rag.domain.fakes import FakeChatEngine
from desktop_rag.routes.judge import ModelJudge
from desktop_rag.routes.judge import verdicts as judged

LINES = [
    "INC-1 Power failure in the lab; closed after 18 minutes.",
    "INC-2 Printer jam in building A; closed after 9 minutes.",
    "INC-3 Power failure in floor 3; closed after 40 minutes.",
]


class ScoringEngine(FakeChatEngine):
    """Gives next-token logits as the llama.cpp engine does: "yes" for a line saying
    "Power failure", "no" for any other; remembers each prompt it scored."""

    def __init__(self) -> None:
        super().__init__("1: no\n2: no\n3: no")
        self.scored: list[str] = []
        self.generated = 0

    def render(self, messages: Any) -> str:
        return "\n".join(m.content for m in messages)

    def tokenize_prompt(self, text: str) -> list[int]:
        word = text.strip().lower()
        if word in ("yes", "no"):
            return [1 if word == "yes" else 2]
        self.scored.append(text)
        return [3, len(self.scored)]

    def next_token_logits(self, tokens: Sequence[int], candidates: Sequence[int]) -> list[float]:
        line = self.scored[tokens[-1] - 1].rsplit("Line: ", 1)[-1]
        yes = 4.0 if "Power failure" in line else -4.0
        return [yes if c == 1 else 0.0 for c in candidates]

    def generate(self, *args: Any, **kwargs: Any) -> Any:
        self.generated += 1
        return super().generate(*args, **kwargs)


def test_each_line_is_scored_on_its_own_after_the_shared_question() -> None:
    engine = ScoringEngine()
    progress: list[tuple[int, int]] = []
    verdicts = ModelJudge(lambda: engine).judge(
        "How many power failures happened?", "power failures happened", LINES,
        on_batch=lambda done, total: progress.append((done, total)),
    )  # fmt: skip
    assert verdicts.said == [True, False, True]
    assert engine.generated == 0 and verdicts.calls == 3
    assert progress == [(1, 3), (2, 3), (3, 3)]
    prompts = engine.scored
    assert all(p.startswith(prompts[0].rsplit("Line: ", 1)[0]) for p in prompts)  # one prefix


def test_an_engine_without_logits_is_judged_in_batches() -> None:
    engine = FakeChatEngine("1: yes\n2: no\n3: yes")
    verdicts = ModelJudge(lambda: engine).judge("How many?", "power failures", LINES)
    assert verdicts.said == [True, False, True] and verdicts.calls == 1


def test_the_real_model_gives_a_probability_for_every_line(tiny_chat_engine: Any) -> None:
    from desktop_rag.llm.line_judge import scores_lines, yes_probabilities

    assert scores_lines(tiny_chat_engine)
    asked = ("How many power failures happened?", "power failures happened")
    first = yes_probabilities(tiny_chat_engine, *asked, LINES)
    assert len(first) == 3 and all(0.0 < p < 1.0 for p in first)
    assert yes_probabilities(tiny_chat_engine, *asked, LINES) == first  # the same, read again
    # in another order a line is evaluated after another prefix: the same within rounding
    again = yes_probabilities(tiny_chat_engine, *asked, list(reversed(LINES)))
    assert all(abs(a - b) < 0.02 for a, b in zip(reversed(again), first, strict=True))
    verdicts = ModelJudge(lambda: tiny_chat_engine).judge(*asked, LINES)
    assert verdicts.said == judged(first)


def test_two_groups_are_cut_between_them_wherever_they_lie() -> None:
    # a claims register asked "turned down": the refusals well above the approvals, all low
    assert judged([0.29, 0.62, 0.26, 0.66, 0.31, 0.58]) == [False, True, False, True, False, True]
    # one group: the fixed level decides
    assert judged([0.52, 0.55, 0.49, 0.58, 0.51]) == [True, True, False, True, True]
    # too few lines to tell groups apart
    assert judged([0.3, 0.9]) == [False, True]


def test_without_two_groups_the_items_begin_where_the_bulk_of_the_lines_ends() -> None:
    # a call log asked "which calls went up to a supervisor": the ten handed on at 0.41-0.56,
    # the others bunched at 0.30-0.34; no step reaches GAP, and the fixed 0.5 found 4 of 10
    items = [0.56, 0.55, 0.53, 0.52, 0.45, 0.44, 0.43, 0.43, 0.42, 0.41]
    others = [0.34, 0.32, 0.32, 0.31, 0.31, 0.31, 0.31, 0.31, 0.30, 0.30, 0.30, 0.30]
    assert judged(others + items) == [False] * len(others) + [True] * len(items)
    # lines spread evenly, no end to a bulk: the fixed level decides
    even = [0.30, 0.34, 0.38, 0.42, 0.46, 0.50, 0.54, 0.58]
    assert judged(even) == [p >= 0.5 for p in even]


def test_lines_that_state_the_condition_set_the_level_the_others_must_reach() -> None:
    # "paid late": the register's "(late)" lines at 0.90, its "(on time)" ones all near 0.74;
    # alone, no two groups and the fixed level would make every invoice late
    assert judged([0.72, 0.71, 0.77, 0.74]) == [True, True, True, True]
    assert judged([0.72, 0.71, 0.77, 0.74], anchors=[0.907, 0.901]) == [False] * 4
    # "returned late": the paraphrases reach the anchors' group, "early" and "on time" do not
    loans = [0.784, 0.79, 0.293, 0.41, 0.495]
    assert judged(loans, anchors=[0.859]) == [True, True, False, False, False]
    # the level is one GAP below the lowest anchor, wherever the widest step lies
    assert judged([0.78, 0.075, 0.08, 0.77], anchors=[0.89, 0.92]) == [False] * 4
    assert judged([0.97, 0.3, 0.1], anchors=[0.95, 0.40]) == [True, True, False]


def test_the_anchors_are_scored_with_the_lines_and_get_no_verdict() -> None:
    engine = ScoringEngine()
    progress: list[tuple[int, int]] = []
    verdicts = ModelJudge(lambda: engine).judge(
        "How many power failures happened?", "power failures happened", LINES[1:],
        on_batch=lambda done, total: progress.append((done, total)), anchors=LINES[:1],
    )  # fmt: skip
    assert verdicts.said == [False, True] and verdicts.calls == 3
    assert progress[-1] == (3, 3) and "INC-1" in engine.scored[0]
