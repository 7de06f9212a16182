"""What the cached core becomes in LLM server mode: time to first token through
`ServerEngine` against llama-cpp-python's server, for a long repeated prompt prefix (the core)
versus a cold one.

Scenarios, each with a fresh server (tiny SmolLM2 unless --model):
  plain   the server keeps only the last prompt's KV: a repeated prefix is reused, but after
          another prefix (another user, another core) it is evaluated again;
  cache   `--cache true` (LlamaRAMCache): several prefixes stay reusable.
For each: A cold, A warm (same prefix, new question), B cold, A again (after B).

Usage: .venv/bin/python bench/bench_server.py [--prefix-words 1200] [--repeats 3] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from server_procs import llama_server  # noqa: E402

from desktop_rag.config import Settings  # noqa: E402
from desktop_rag.config.paths import resolve_paths  # noqa: E402
from desktop_rag.domain.protocols import ChatMessage  # noqa: E402
from desktop_rag.llm.server_engine import ServerEngine  # noqa: E402
from desktop_rag.models import ModelRegistry  # noqa: E402

log = logging.getLogger("bench_server")
WORDS = [
    "plant", "steel", "tonnes", "year", "report", "output", "staff", "budget", "river", "bridge",
    "city", "energy", "water", "school", "library", "museum", "archive", "council",
]


def core_text(seed: int, words: int) -> str:
    """A deterministic pseudo-document of `words` words (different per seed)."""
    out = [WORDS[(i * 7 + seed * 13 + i // 5) % len(WORDS)] for i in range(words)]
    return " ".join(out)


def ttft(engine: ServerEngine, core: str, question: str) -> float:
    messages = [ChatMessage("system", f"Answer from this core:\n{core}"),
                ChatMessage("user", question)]
    return engine.generate(messages, 2).ttft_ms


def scenario(model: Path, extra: list[str], words: int, repeats: int) -> dict[str, Any]:
    rows: dict[str, list[float]] = {"A_cold": [], "A_warm": [], "B_cold": [], "A_after_B": []}
    with tempfile.TemporaryDirectory() as tmp, \
            llama_server(model, Path(tmp) / "server.log", *extra) as url:
        engine = ServerEngine(url, 300.0, context_size=2048)
        prefix_tokens = engine.count_tokens(core_text(0, words))
        for r in range(repeats):
            a, b = core_text(2 * r + 1, words), core_text(2 * r + 2, words)
            rows["A_cold"].append(ttft(engine, a, "What is the output?"))
            rows["A_warm"].append(ttft(engine, a, "Who is on the staff?"))
            rows["B_cold"].append(ttft(engine, b, "What is the output?"))
            rows["A_after_B"].append(ttft(engine, a, "Which river?"))
    medians = {k: round(statistics.median(v), 1) for k, v in rows.items()}
    return {"prefix_tokens": prefix_tokens, "ttft_ms_median": medians,
            "ttft_ms_all": {k: [round(x, 1) for x in v] for k, v in rows.items()}}


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, help="GGUF file (default: the tiny SmolLM2)")
    parser.add_argument("--prefix-words", type=int, default=1200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    model = args.model or ModelRegistry(resolve_paths(), Settings()).tiny_chat_model_path()
    results = {
        "model": model.name,
        "plain": scenario(model, [], args.prefix_words, args.repeats),
        "cache": scenario(model, ["--cache", "true"], args.prefix_words, args.repeats),
    }
    text = json.dumps(results, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
