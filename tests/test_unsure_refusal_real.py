"""The real llama.cpp engine (SmolLM2): the token choices it keeps and the branch it can start
again from, reusing the prompt's KV cache (what reconsidering an unsure refusal stands on)."""

from __future__ import annotations

from typing import Any

from desktop_rag.llm.llama_adapter import CHOICES_KEPT
from desktop_rag.protocols import ChatMessage

MESSAGES = [
    ChatMessage("system", "You are a helpful assistant."),
    ChatMessage("user", "Name three colours of the rainbow."),
]


def _first(engine: Any) -> Any:
    return engine.generate_tokens(engine.tokenize_prompt(engine.render(MESSAGES)), 16, fresh=True)


def test_greedy_choices_are_the_most_probable_tokens_of_the_answer(tiny_chat_engine: Any) -> None:
    generation = tiny_chat_engine.run(_first)
    choices = generation.choices
    assert 0 < len(choices) <= CHOICES_KEPT
    text = b"".join(tiny_chat_engine.run(lambda e: [e.piece(c.token) for c in choices]))
    assert generation.text.strip().startswith(text.decode("utf-8", "replace").strip()[:10])
    for choice in choices:
        assert 0 < choice.p <= 1 and choice.p >= choice.p_alternative
        assert choice.alternative != choice.token


def test_a_branch_begins_with_the_other_token_and_reuses_the_prompt(tiny_chat_engine: Any) -> None:
    def branch_twice(engine: Any) -> tuple[Any, Any, Any, bytes]:
        first = _first(engine)
        other = first.choices[0].alternative
        one = engine.branch([other], 12)
        two = engine.branch([other], 12)
        return first, one, two, engine.piece(other)

    first, one, two, head = tiny_chat_engine.run(branch_twice)
    assert one.text == two.text  # greedy: the same branch twice
    assert one.prompt_tokens == first.prompt_tokens + 1
    assert one.cached_tokens >= first.prompt_tokens - 1  # the prompt was not evaluated again
    assert head and (head.decode("utf-8", "replace") + one.text) != first.text
