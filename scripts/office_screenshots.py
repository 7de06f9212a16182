"""Screenshots of a cited slide and a cited spreadsheet row in the real window, taken from the
X display (run under Xvfb): `xvfb-run -s "-screen 0 1400x860x24" .venv/bin/python
scripts/office_screenshots.py docs/screenshots`. The work folder is the tests' mixed folder; the
chat model is the tests' scripted one that quotes the source line holding a key word and cites
it (so the screenshots show the app's citation and viewer, not a model's wording)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def wait(app: object, check: Callable[[], bool], seconds: float = 120) -> None:
    end = time.monotonic() + seconds
    while not check():
        app.processEvents()  # type: ignore[attr-defined]
        if time.monotonic() > end:
            raise TimeoutError("the window did not get there in time")
        time.sleep(0.02)


def main(out: Path) -> None:
    from PySide6.QtCore import QUrl
    from PySide6.QtWidgets import QApplication

    from desktop_rag.bootstrap import build_context
    from desktop_rag.gui.main_window import MainWindow
    from desktop_rag.services import Services
    from tests.office_docs import make_mixed_folder
    from tests.test_office_answers import QuotesTheSource

    app = QApplication(sys.argv)
    root = Path(tempfile.mkdtemp(prefix="office-shots-"))
    engine = QuotesTheSource()
    services = Services(build_context(str(root / "lib"), "tiny", overrides={"engine": engine}))
    services.ingest([make_mixed_folder(root / "work")])
    window = MainWindow(services, interactive=False)
    window.setGeometry(0, 0, 1400, 860)
    window.show()
    window.start()
    out.mkdir(parents=True, exist_ok=True)
    shots = [("When does the platypus app launch?", "launches", "office-cited-slide.png"),
             ("How much was the rent in March in the household budget?", "March | Amount: 1250",
              "office-cited-sheet-row.png")]
    for question, key, name in shots:
        engine.key = key
        answers: list[object] = []
        window.chat.answered.connect(answers.append)
        window.chat.ask(question)
        wait(app, lambda got=answers: bool(got))
        window.chat.answered.disconnect(answers.append)
        turn = len(window.chat_pane.turns) - 1
        window.viewer.location = None
        window.chat_pane.view.anchorClicked.emit(QUrl(f"cite:{turn}:1"))
        wait(app, lambda: window.viewer.location is not None)
        settle = time.monotonic() + 1.0
        wait(app, lambda until=settle: time.monotonic() > until)
        subprocess.run(["import", "-window", "root", str(out / name)], check=True)
        sys.stdout.write(f"{out / name}: {window.viewer.title.text()}\n")
    window.shutdown()
    services.close()


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots"))
