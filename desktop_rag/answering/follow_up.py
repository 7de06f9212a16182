"""Follow-up questions ("and in 2019?") rewritten into standalone retrieval queries."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from desktop_rag.answering.citations import content_words
from desktop_rag.domain.progress import CancelToken
from desktop_rag.domain.protocols import ChatEngine, ChatMessage

log = logging.getLogger(__name__)

REWRITE_INSTRUCTIONS = (
    "Rewrite the user's last question as one standalone question that can be understood "
    "without the conversation. Keep every name, number and date. Output only the question."
)
_REFERS_BACK = re.compile(
    r"\b(it|its|they|them|their|this|that|these|those|he|she|him|her|there|then|the same|"
    r"what about|how about|also|else|more|why|which one)\b|^\W*(and|or|but)\b",
    re.IGNORECASE,
)  # "and" only opening a question ("and in 2019?"): "in 2019 and 2021" is no reference back
MAX_REWRITE_TOKENS = 48


def needs_rewrite(question: str) -> bool:
    """Short questions, or ones that point back at the conversation, depend on the history."""
    words = question.split()
    return len(words) < 6 or bool(_REFERS_BACK.search(question))


def rewrite_messages(history: Sequence[tuple[str, str]], question: str) -> list[ChatMessage]:
    lines = [f"{role.capitalize()}: {' '.join(text.split())[:400]}" for role, text in history]
    conversation = "\n".join(lines)
    return [
        ChatMessage("system", REWRITE_INSTRUCTIONS),
        ChatMessage("user", f"Conversation:\n{conversation}\n\nLast question: {question}"),
    ]


def fallback_query(history: Sequence[tuple[str, str]], question: str) -> str:
    """The follow-up plus the previous user question: always keeps both topics."""
    previous = next((text for role, text in reversed(history) if role == "user"), "")
    return f"{previous.strip()} {question.strip()}".strip()


def acceptable(candidate: str, history: Sequence[tuple[str, str]], question: str) -> bool:
    """A rewrite must keep the follow-up's words and bring in words from the conversation."""
    words = content_words(candidate)
    if not candidate or "\n" in candidate or len(candidate) > 4 * (len(question) + 80):
        return False
    context = content_words(" ".join(text for _, text in history)) - content_words(question)
    return content_words(question) <= words and bool(words & context)


def standalone_query(
    engine: ChatEngine,
    history: Sequence[tuple[str, str]],
    question: str,
    cancel: CancelToken | None = None,
) -> str:
    """The query to retrieve with: the question itself, or a standalone rewrite of it (which a
    Stop cuts short: the caller then ends the answer)."""
    if not history or not needs_rewrite(question):
        return question
    messages = rewrite_messages(history[-4:], question)
    generation = engine.generate(messages, MAX_REWRITE_TOKENS, cancel=cancel)
    candidate = " ".join(generation.text.strip().strip('"').split("\n")[0].split())
    if acceptable(candidate, history, question):
        return candidate
    log.debug("rewrite %r rejected; using the previous question as context", candidate)
    return fallback_query(history, question)
