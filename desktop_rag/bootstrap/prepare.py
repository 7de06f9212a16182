"""Builds at set-up what the first question would otherwise wait for: the embedder's verified
ONNX export (10-30 s, with torch). Run by scripts/setup.sh as
`python -m desktop_rag.bootstrap.prepare`;
harmless to run again (a current export is only checked)."""

from __future__ import annotations

import logging
import sys


def main() -> int:
    from desktop_rag.config import load_settings
    from desktop_rag.config.paths import resolve_paths
    from desktop_rag.domain.errors import DesktopRagError
    from desktop_rag.models import ModelRegistry
    from desktop_rag.retrieval.embedder import prepare_embedder

    logging.basicConfig(level=logging.WARNING, format="[setup] %(message)s")
    paths = resolve_paths().ensure()
    try:
        settings = load_settings(paths.settings_file)
        name = prepare_embedder(ModelRegistry(paths, settings), settings)
    except DesktopRagError as exc:
        sys.stderr.write(f"[setup] the embedder could not be prepared: {exc}\n")
        return 1
    sys.stderr.write(f"[setup] embedder ready: {name}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
