"""A deterministic chat model for the exhaustive route's tests: it answers the judge's numbered
lines by a rule of the test's choosing, and anything else with a scripted reply."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence
from typing import Any

from desktop_rag.domain.fakes import FakeChatEngine
from desktop_rag.domain.protocols import ChatMessage, Generation
from desktop_rag.routes.judge import SYSTEM

_LINE = re.compile(r"^(\d+)\) (.*)$", re.MULTILINE)
_DATES = re.compile(r"due (\d{4}-\d\d-\d\d), paid (\d{4}-\d\d-\d\d)")


def paid_late(line: str) -> bool:
    """The truth of "paid late" for a register line: paid after its due date."""
    found = _DATES.search(line)
    return bool(found) and dt.date.fromisoformat(found[2]) > dt.date.fromisoformat(found[1])


def not_denied(line: str) -> bool:
    return " no " not in f" {line.lower()} "


class JudgeEngine(FakeChatEngine):
    """Says yes to the judged lines `rule` accepts; counts the judge's calls and lines."""

    def __init__(
        self, rule: Callable[[str], bool] = not_denied, reply: str = "I don't know."
    ) -> None:
        super().__init__(reply)
        self.rule = rule
        self.judge_calls = 0
        self.judged: list[str] = []

    def generate(
        self,
        messages: Sequence[ChatMessage],
        max_tokens: int,
        on_token: Any = None,
        cancel: Any = None,
    ) -> Generation:
        if messages[0].content != SYSTEM:
            return super().generate(messages, max_tokens, on_token, cancel)
        self.judge_calls += 1
        lines = _LINE.findall(messages[-1].content)
        self.judged += [text for _, text in lines]
        verdicts = "\n".join(f"{n}: {'yes' if self.rule(t) else 'no'}" for n, t in lines)
        return Generation(verdicts, 10 * len(lines), 0, 2 * len(lines))
