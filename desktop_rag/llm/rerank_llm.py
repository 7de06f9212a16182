"""The `llm` re-ranker: the loaded chat model's probability of "yes" to "does this passage answer
the question?". The question comes before the passage, so every passage reuses the KV cache of
the shared prompt prefix and only its own tokens are evaluated."""

from __future__ import annotations

import math
from collections.abc import Sequence

from desktop_rag.domain.errors import ConfigError
from desktop_rag.domain.protocols import ChatEngine, ChatMessage, TokenScoring
from desktop_rag.llm.worker import run_on_engine, unwrap
from desktop_rag.text.inert import neutralise

JUDGE = (
    "You judge search results. Reply with one word: yes if the passage answers the question, "
    "no if it does not."
)
MAX_PASSAGE_CHARS = 1500


class LlmReranker:
    name = "llm"

    def __init__(self, engine: ChatEngine) -> None:
        if not isinstance(unwrap(engine), TokenScoring):
            raise ConfigError(
                "The llm re-ranker needs the local llama.cpp model",
                "use --rerank cross-encoder or none with this engine",
            )
        self.engine = engine

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        return run_on_engine(self.engine, lambda e: [self._score(e, query, t) for t in texts])

    def _score(self, chat: ChatEngine, query: str, text: str) -> float:
        engine = _scoring(chat)
        messages = [
            ChatMessage("system", JUDGE),
            ChatMessage(
                "user",
                f"Question: {' '.join(query.split())}\n\nPassage:\n"
                f"{neutralise(text[:MAX_PASSAGE_CHARS])}\n\n"
                "Does the passage answer the question? Reply yes or no.",
            ),
        ]
        yes, no = answer_tokens(engine, "yes"), answer_tokens(engine, "no")
        return scored_yes(engine, messages, yes, no)


def answer_tokens(engine: TokenScoring, word: str) -> list[int]:
    """First tokens of the word's spellings ("yes", "Yes", " yes" ...), without duplicates."""
    ids: list[int] = []
    for form in (word, word.capitalize(), f" {word}", f" {word.capitalize()}"):
        first = engine.tokenize_prompt(form)[:1]
        ids += [t for t in first if t not in ids]
    return ids


def scored_yes(
    engine: TokenScoring, messages: Sequence[ChatMessage], yes: Sequence[int], no: Sequence[int]
) -> float:
    """The probability of a yes token against a no token as the reply's first, after
    `messages` (the cached prompt prefix is reused)."""
    tokens = engine.tokenize_prompt(engine.render(messages))
    logits = engine.next_token_logits(tokens, [*yes, *no])
    return yes_probability(logits[: len(yes)], logits[len(yes) :])


def yes_probability(yes: Sequence[float], no: Sequence[float]) -> float:
    top = max(*yes, *no)
    p_yes = sum(math.exp(v - top) for v in yes)
    return p_yes / (p_yes + sum(math.exp(v - top) for v in no))


def _scoring(engine: object) -> TokenScoring:
    """`engine` typed as TokenScoring (checked when the re-ranker was built)."""
    if not isinstance(engine, TokenScoring):
        raise ConfigError("The llm re-ranker needs the local llama.cpp model")
    return engine
