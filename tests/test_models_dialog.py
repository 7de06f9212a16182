"""The Models dialog (offscreen): catalog and fit shown, a download with progress and cancel
from the local hub, and "Use this model" for a chat model and an embedder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_rag.catalog.hardware import Hardware
from desktop_rag.catalog.installed import InstallState
from desktop_rag.catalog.service import ModelsService
from desktop_rag.config import Settings
from desktop_rag.domain.progress import ProgressEvent
from desktop_rag.gui.models_dialog import ModelsDialog
from desktop_rag.gui.workers import Job, SerialWorker
from tests.models_hub import HubState, Repo, serve
from tests.test_models_download import GGUF, ST_FILES, make_paths, service

pytestmark = pytest.mark.gui
MACHINE = Hardware(ram_mb=16384, available_mb=12000, cpu_count=8, free_disk_mb=50_000)


@pytest.fixture
def hub() -> Iterator[tuple[str, HubState]]:
    state = HubState(repos={"acme/chat-GGUF": Repo({"chat.gguf": GGUF}),
                            "acme/embedder": Repo(dict(ST_FILES))})
    with serve(state) as url:
        yield url, state


@pytest.fixture
def dialog(qtbot: Any, hub: tuple[str, HubState], tmp_path: Path) -> Iterator[ModelsDialog]:
    endpoint, _state = hub
    service(tmp_path, endpoint)  # writes the user catalog
    settings = Settings().updated({"models.hub_endpoint": endpoint})
    errors: list[BaseException] = []

    def make() -> ModelsService:
        return ModelsService(make_paths(tmp_path), settings, hardware=MACHINE)

    box = ModelsDialog(None, make, errors.append)
    box.error_log = errors  # type: ignore[attr-defined]
    qtbot.addWidget(box)
    box.show()
    box.refresh()
    qtbot.waitUntil(lambda: bool(box.rows), timeout=10000)
    yield box
    box.close()


def test_the_catalog_and_the_advice_are_shown(dialog: ModelsDialog) -> None:
    assert "8 CPU cores" in dialog.machine.text()
    assert "Recommended chat model" in dialog.advice.text()
    chats = dialog.tables["chat"]
    names = [chats.item(n, 0).text() for n in range(chats.rowCount())]  # type: ignore[union-attr]
    states = [chats.item(n, 2).text() for n in range(chats.rowCount())]  # type: ignore[union-attr]
    assert any("Acme chat" in n for n in names)
    assert sum(n.endswith("(recommended)") for n in names) == 1
    assert sum(s.startswith("in use") for s in states) == 1
    assert dialog.tables["embedder"].rowCount() >= 4
    dialog.select("qwen2.5-7b-instruct-q4km")
    assert "Qwen2.5 7B" in dialog.details.text()
    assert dialog.download_button.isEnabled() and not dialog.use_button.isEnabled()
    dialog.select("qwen2.5-coder-1.5b-instruct-q4km")  # packaged and in use
    assert not dialog.download_button.isEnabled() and not dialog.use_button.isEnabled()


def test_download_shows_progress_then_use_emits_the_chat_setting(
    dialog: ModelsDialog, hub: tuple[str, HubState], qtbot: Any
) -> None:
    _endpoint, state = hub
    state.rate_bps = 1024 * 1024
    dialog.select("acme-chat")
    dialog.download_selected()
    qtbot.waitUntil(lambda: "MB/s" in dialog.status.text(), timeout=10000)
    assert dialog.cancel_button.isEnabled() and not dialog.download_button.isEnabled()
    assert dialog.bar.isVisible()
    qtbot.waitUntil(lambda: dialog.rows["acme-chat"].on_disk, timeout=20000)
    qtbot.waitUntil(lambda: dialog.use_button.isEnabled(), timeout=5000)
    with qtbot.waitSignal(dialog.settings_chosen, timeout=5000) as signal:
        dialog.use_selected()
    assert signal.args[0]["models.chat_model"].endswith("chat.gguf")


def test_cancel_stops_the_download_and_keeps_the_part(
    dialog: ModelsDialog, hub: tuple[str, HubState], qtbot: Any, tmp_path: Path
) -> None:
    _endpoint, state = hub
    state.rate_bps = 256 * 1024
    dialog.select("acme-chat")
    dialog.download_selected()
    qtbot.waitUntil(lambda: "MB/s" in dialog.status.text(), timeout=10000)
    dialog.cancel()
    qtbot.waitUntil(lambda: dialog.job is None, timeout=10000)
    assert "resumes" in dialog.status.text()
    assert (tmp_path / "models" / "catalog" / "acme-chat" / "chat.gguf.part").is_file()
    qtbot.waitUntil(lambda: dialog.rows["acme-chat"].installed.state is InstallState.PARTIAL,
                    timeout=5000)
    dialog.select("acme-chat")
    assert dialog.download_button.text() == "Resume download"
    assert dialog.download_button.isEnabled() and not dialog.cancel_button.isEnabled()


def test_using_an_embedder_runs_the_switch_on_the_writer(
    qtbot: Any, hub: tuple[str, HubState], tmp_path: Path
) -> None:
    endpoint, _state = hub
    models = service(tmp_path, endpoint)
    models.download("acme-embedder")
    writer = SerialWorker("index-writer")
    calls: list[tuple[Path, str]] = []

    def switch(folder: Path, name: str, job: Job[object, ProgressEvent]) -> object:
        job.report(ProgressEvent("embed", 5, 10, "re-embedding"))
        calls.append((folder, name))
        return "switched"

    box = ModelsDialog(None, lambda: ModelsService(models.paths, models.settings,
                                                   hardware=MACHINE), lambda e: None,
                       writer, switch)
    qtbot.addWidget(box)
    box.refresh()
    qtbot.waitUntil(lambda: bool(box.rows), timeout=10000)
    box.select("acme-embedder")
    with qtbot.waitSignal(box.embedder_switched, timeout=10000) as signal:
        box.use_selected()
    assert signal.args == ["acme-embedder"]
    assert calls[0][1] == "acme-embedder" and (calls[0][0] / "modules.json").is_file()
    box.close()
    writer.shutdown()


def test_the_window_opens_models_and_a_chosen_chat_model_is_applied(
    qtbot: Any, tmp_path: Path
) -> None:
    from types import SimpleNamespace

    from PySide6.QtWidgets import QMenu

    from desktop_rag.gui.main_window import MainWindow
    from tests.gui_fakes import FakeServices

    fake = FakeServices(tmp_path / "dd")
    fake.paths.ensure()
    fake.ctx = SimpleNamespace(paths=fake.paths, settings=fake.settings)  # type: ignore[attr-defined]
    window = MainWindow(fake, interactive=False)
    qtbot.addWidget(window)
    actions = [a for m in window.menuBar().findChildren(QMenu) for a in m.actions()]
    (action,) = [a for a in actions if a.text() == "&Models\u2026"]
    assert action.shortcut().toString() == "Ctrl+Shift+M"
    dialog = window.open_models()
    qtbot.waitUntil(lambda: bool(dialog.rows), timeout=15000)
    dialog.select("smollm2-135m-instruct-q4_1")
    assert dialog.use_button.isEnabled()
    dialog.use_selected()
    assert fake.settings.profile == "tiny" and fake.settings.models.chat_model == ""
    qtbot.waitUntil(lambda: bool(fake.engine_resets), timeout=5000)  # the model is reloaded
    dialog.close()
    assert window.shutdown()
    fake.close()


def test_the_dialog_keeps_the_garbage_collector_in_the_gui_thread_while_open(
    dialog: ModelsDialog,
) -> None:
    import gc

    from desktop_rag.gui import gui_gc

    # its worker thread allocates: a Qt object collected there would abort the process
    assert not gc.isenabled() and gui_gc.holders() >= 1
    held = gui_gc.holders()
    dialog.close()
    dialog.reject()  # a second way out releases nothing twice
    assert gui_gc.holders() == held - 1
