"""Opening the real facade and warming it up: shared by the window and the smoke test, so
neither imports the other (nor the `desktop-rag-gui` entry point)."""

from __future__ import annotations

import logging

from desktop_rag.gui.bundled import SAMPLE
from desktop_rag.gui.facade import GuiServices

log = logging.getLogger(__name__)


def open_services(data_dir: str | None, profile: str | None) -> GuiServices:
    """The real facade over the library in `data_dir` (imported here: it loads the core)."""
    from desktop_rag.bootstrap import build_context
    from desktop_rag.services import Services

    return Services(build_context(data_dir, profile))


def warm_up(services: GuiServices) -> None:
    """Loads what the first ingestion or search needs (the facade's embedder and vector store;
    it logs its own failures), then parses the bundled two-page sample so that the PDF loader's
    first use is not during a drop. A failure of that parse surfaces later, where it belongs:
    the first real PDF reports it with a message and hint."""
    services.warm_up()
    from desktop_rag.ingest.loaders import load

    try:
        load(SAMPLE)
    except Exception:
        log.debug("warm-up of the PDF loader failed", exc_info=True)
