"""Document text made inert before it enters a prompt: the answer prompt and the LLM re-ranker
both put document text in front of the model, and neither may let it add sources or
instructions (fake source tags, citation markers, chat-template tokens)."""

from __future__ import annotations

import re

_CHAT_TOKEN = re.compile(r"</?s>|\[/?INST\]|<</?SYS>>", re.IGNORECASE)
_INERT = str.maketrans("<>[]", "‹›()")
_SOURCE_TAG = re.compile(r"<\s*(/?)\s*source\b", re.IGNORECASE)
_MARKER = re.compile(r"\[(\s*\d+(?:\s*[,;\-–]\s*\d+)*\s*)\]")
_SOURCE_LABEL = re.compile(r"\b(source|sources|document|passage)(\s+)(\d+)(\s*[:.])", re.IGNORECASE)


def neutralise(text: str) -> str:
    """Document text made inert: chat-template tokens, source tags, [n] markers and
    "Source n:" labels are rewritten so the model cannot mistake them for prompt structure."""
    text = text.replace("<|", "‹|").replace("|>", "|›")
    text = _CHAT_TOKEN.sub(lambda m: m.group(0).translate(_INERT), text)
    text = _SOURCE_TAG.sub(lambda m: f"‹{m.group(1)}source", text)
    text = _MARKER.sub(lambda m: f"({m.group(1)})", text)
    return _SOURCE_LABEL.sub(lambda m: f"{m.group(1)} #{m.group(3)}{m.group(4)}", text)
