"""`desktop-rag-gui`: starts the window, or runs `--smoke-test` offscreen and exits 0/1."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

log = logging.getLogger(__name__)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="desktop-rag-gui", description="Desktop RAG window")
    parser.add_argument("--data-dir", help="keep settings, library and caches in this folder")
    parser.add_argument("--profile", choices=("default", "tiny"), help="model profile")
    parser.add_argument("--smoke-test", action="store_true",
                        help="offscreen: ingest the sample, ask, open a citation, screenshot")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.smoke_test:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtWidgets import QApplication

    from desktop_rag.gui.qt_workarounds import keep_none_alive, keep_true_alive

    keep_true_alive()
    install_qt_logging()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    keep_none_alive()
    _set_identity(app)
    if args.smoke_test:
        from desktop_rag.gui.smoke import run_smoke

        return run_smoke(args.data_dir, args.profile or "tiny")
    return run_window(args.data_dir, args.profile)


QT_NOISE = ("This plugin does not support propagateSizeHints",)  # offscreen platform


def install_qt_logging() -> None:
    """Sends Qt's own messages to Python logging (minus known platform noise)."""
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    levels = {QtMsgType.QtDebugMsg: logging.DEBUG, QtMsgType.QtInfoMsg: logging.INFO,
              QtMsgType.QtWarningMsg: logging.WARNING}
    qt_log = logging.getLogger("qt")

    def handler(kind: QtMsgType, _context: object, message: str) -> None:
        if not message.startswith(QT_NOISE):
            qt_log.log(levels.get(kind, logging.ERROR), "%s", message)

    qInstallMessageHandler(handler)


def _set_identity(app: object) -> None:
    from PySide6.QtGui import QGuiApplication, QIcon

    from desktop_rag.gui.bundled import RESOURCES

    QGuiApplication.setOrganizationName("desktop-rag")
    QGuiApplication.setApplicationName("desktop-rag")
    QGuiApplication.setApplicationDisplayName("Desktop RAG")
    QGuiApplication.setWindowIcon(QIcon(str(RESOURCES / "icon.svg")))
    _ = app


def run_window(data_dir: str | None, profile: str | None) -> int:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication, QMessageBox

    from desktop_rag.domain.errors import DesktopRagError
    from desktop_rag.gui.launch import open_services
    from desktop_rag.gui.main_window import MainWindow
    from desktop_rag.gui.startup_report import install_startup_report

    chosen = data_dir or str(QSettings().value("data_dir", "") or "") or None
    try:
        services = open_services(chosen, profile)
    except DesktopRagError as exc:
        QMessageBox.critical(None, "Desktop RAG", f"{exc.message}\n\n{exc.hint}")
        return exc.exit_code
    window = MainWindow(services)
    report = install_startup_report(window)  # only for the start-up benchmark
    window.show()
    window.start()
    code = QApplication.exec()
    del report
    window.shutdown()
    services.close()
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
