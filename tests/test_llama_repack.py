"""Whether the chat model's weights are repacked for llama.cpp's CPU kernels: off on an x86 CPU
without AVX-512 (slower to load and to read the prompt there, measured), on elsewhere, and the
setting decides when it is not "auto". The real model loads either way (slow test)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.config import Settings
from desktop_rag.domain.errors import ConfigError
from desktop_rag.llm.llama_loading import engine_options, repack_helps

AVX2 = "flags\t\t: fpu vme sse sse2 avx avx2 fma\n"
AVX512 = "flags\t\t: fpu vme sse sse2 avx avx2 avx512f avx512bw\n"


@pytest.mark.parametrize(
    ("choice", "cpuinfo", "machine", "repack"),
    [
        ("auto", AVX2, "x86_64", False),
        ("auto", AVX512, "x86_64", True),
        ("auto", "", "aarch64", True),
        ("on", AVX2, "x86_64", True),
        ("off", AVX512, "x86_64", False),
    ],
)
def test_repacking_follows_the_cpu_unless_set(
    choice: str, cpuinfo: str, machine: str, repack: bool
) -> None:
    assert repack_helps(choice, cpuinfo, machine) is repack


def test_the_setting_is_checked_and_reaches_the_engine_options() -> None:
    with pytest.raises(ConfigError, match=r"llm\.repack_weights"):
        Settings().updated({"llm.repack_weights": "sometimes"}).validate()
    off = Settings().updated({"llm.repack_weights": "off"})
    assert engine_options(Path("model.gguf"), off.llm).repack is False
    on = Settings().updated({"llm.repack_weights": "on"})
    assert engine_options(Path("model.gguf"), on.llm).repack is True


@pytest.mark.slow
def test_the_packaged_model_answers_with_and_without_repacking(tmp_path: Path) -> None:
    from desktop_rag.bootstrap import build_context
    from desktop_rag.domain.protocols import ChatMessage
    from desktop_rag.llm.llama_adapter import LlamaEngine

    ctx = build_context(str(tmp_path), profile="tiny")
    path = ctx.registry.chat_model_path()
    replies = []
    for choice in ("on", "off"):
        llm = Settings(profile="tiny").updated({"llm.repack_weights": choice,
                                                "llm.context_size": 1024}).llm  # fmt: skip
        engine = LlamaEngine(engine_options(path, llm))
        reply = engine.generate([ChatMessage("user", "Say hello.")], 8)
        replies.append(reply.text)
        engine.close()
    assert all(r.strip() for r in replies)
    ctx.close()
