"""GPU check through the project's own code: the factory's gpu_layers=auto on a CUDA build, then
the CAG benchmark (cached core vs full prefill, 0/3/8 passages) with offload on and off.

Usage: python bench/gpu/adapter_check.py MODEL.gguf CORE_TEXT.txt
(The GPU machine has no PyMuPDF, so the core's paragraphs come from a text file extracted here
from the same PDF bench_cag uses.)
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench import bench_cag
from desktop_rag.config import Settings
from desktop_rag.domain import Passage
from desktop_rag.llm.llama_adapter import LlamaEngine, gpu_offload_supported
from desktop_rag.llm.llama_loading import resolve_gpu_layers
from desktop_rag.models import ModelRegistry


def text_passages(
    engine: LlamaEngine, path: Path, core_tokens: int
) -> tuple[list[Passage], list[str]]:
    texts = [p for p in path.read_text(encoding="utf-8").split("\n\n") if len(p.split()) > 20]
    return bench_cag.core_from_texts(engine, texts, path, core_tokens)


def cag(
    model: Path, text: Path, gpu_layers: str, core_tokens: int = 3000, questions: int = 3
) -> dict[str, Any]:
    def settings(profile: str) -> Settings:
        s = Settings(profile=profile)
        s.models.chat_model = str(model)
        s.llm.gpu_layers = gpu_layers
        return s

    bench_cag.Settings = settings  # type: ignore[assignment,misc]
    bench_cag._passages = text_passages  # type: ignore[assignment]
    args = argparse.Namespace(quick=False, profile="default", data_dir=tempfile.mkdtemp(),
                              cag_pdf=text, cag_core_tokens=core_tokens,
                              cag_questions=questions)
    return bench_cag.run(args)


def main() -> None:
    model, text = Path(sys.argv[1]), Path(sys.argv[2])
    supported = gpu_offload_supported()
    report = {"gpu_offload_supported": supported,
              "auto_resolves_to_layers": resolve_gpu_layers("auto", supported),
              "registry_model": str(ModelRegistry.__name__),
              "gpu": cag(model, text, "auto"), "cpu": cag(model, text, "0")}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
