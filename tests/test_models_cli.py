"""`desktop-rag models list|download|use|remove`, and the recommendation `doctor` shows."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_rag.cli import commands_models, main
from desktop_rag.domain.progress import CancelToken, ProgressCallback, ProgressEvent
from tests.models_hub import HubState, Repo, serve
from tests.test_models_download import GGUF, ST_FILES, catalog_entries


@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, HubState]]:
    state = HubState(repos={"acme/chat-GGUF": Repo({"chat.gguf": GGUF}),
                            "acme/embedder": Repo(dict(ST_FILES))})
    monkeypatch.setenv("DESKTOP_RAG_MODEL_CACHE", str(tmp_path / "models"))
    data_dir = tmp_path / "dd"
    (data_dir / "config").mkdir(parents=True)
    (data_dir / "config" / "model_catalog.json").write_text(
        json.dumps({"schema": 1, "entries": catalog_entries()}), encoding="utf-8")
    with serve(state) as url:
        (data_dir / "config" / "settings.toml").write_text(
            f'[models]\nhub_endpoint = "{url}"\n', encoding="utf-8")
        yield data_dir, state


def run(data_dir: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--data-dir", str(data_dir), "models", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def settings_of(data_dir: Path) -> dict[str, Any]:
    return tomllib.loads((data_dir / "config" / "settings.toml").read_text(encoding="utf-8"))


def test_list_json_is_one_clean_document(
    setup: tuple[Path, HubState], capsys: pytest.CaptureFixture[str]
) -> None:
    data_dir, state = setup
    code, out, _err = run(data_dir, capsys, "list", "--json")
    assert code == 0
    doc = json.loads(out)
    rows = {m["id"]: m for m in doc["models"]}
    assert rows["acme-chat"]["state"] == "not downloaded"
    assert rows["all-minilm-l6-v2"]["in_use"] is True
    assert rows["multilingual-e5-small"]["embedding"]["query_prefix"] == "query: "
    assert sum(m["recommended"] for m in doc["models"]) == 1
    assert doc["hardware"]["cpu_count"] >= 1
    assert state.requests == []  # listing never downloads


def test_list_for_people_says_what_fits_and_what_is_recommended(
    setup: tuple[Path, HubState], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _err = run(setup[0], capsys, "list", "--kind", "chat")
    assert code == 0
    assert out.startswith("This machine: ")
    assert "Recommended chat model here: " in out
    assert "acme-chat" in out and "embedder models" not in out
    assert "runs well" in out


def test_download_then_use_a_chat_model_then_remove_it(
    setup: tuple[Path, HubState], capsys: pytest.CaptureFixture[str]
) -> None:
    data_dir, _state = setup
    code, out, err = run(data_dir, capsys, "download", "acme-chat", "--json")
    assert code == 0 and "downloaded and verified" in err
    path = Path(json.loads(out)["path"])
    assert path.read_bytes() == GGUF
    code, out, _err = run(data_dir, capsys, "use", "acme-chat")
    assert code == 0 and "answers the next question" in out
    assert settings_of(data_dir)["models"]["chat_model"] == str(path)
    code, _out, err = run(data_dir, capsys, "remove", "acme-chat")
    assert code == 2 and "is in use" in err
    code, _out, _err = run(data_dir, capsys, "use", "qwen2.5-coder-1.5b-instruct-q4km")
    assert settings_of(data_dir)["models"]["chat_model"] == ""
    assert settings_of(data_dir)["profile"] == "default"
    code, out, _err = run(data_dir, capsys, "remove", "acme-chat", "--json")
    assert code == 0 and not path.exists()
    assert json.loads(out)["id"] == "acme-chat"


def test_using_an_embedder_goes_through_the_switch(
    setup: tuple[Path, HubState], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data_dir, _state = setup
    calls: list[tuple[Path, str]] = []

    def fake_switch(ctx: Any, model_dir: Path, name: str, progress: ProgressCallback,
                    cancel: CancelToken) -> dict[str, object]:
        calls.append((model_dir, name))
        progress(ProgressEvent("embed", 3, 3, "re-embedded"))
        return {"switched": True, "collection": f"chunks-{name}"}

    monkeypatch.setattr(commands_models, "SWITCH", fake_switch)
    assert run(data_dir, capsys, "download", "acme-embedder")[0] == 0
    code, out, err = run(data_dir, capsys, "use", "acme-embedder", "--json")
    assert code == 0, err
    assert calls and calls[0][1] == "acme-embedder"
    assert (calls[0][0] / "modules.json").is_file()
    assert json.loads(out)["switch"] == {"switched": True, "collection": "chunks-acme-embedder"}
    assert "embed: 3/3" in err


def test_unknown_ids_packaged_removal_and_undownloaded_use_are_refused(
    setup: tuple[Path, HubState], capsys: pytest.CaptureFixture[str]
) -> None:
    data_dir, state = setup
    code, out, err = run(data_dir, capsys, "use", "no-such-model", "--json")
    assert code == 2 and json.loads(out)["error"]["type"] == "CatalogError"
    assert "known:" in err
    code, _out, err = run(data_dir, capsys, "remove", "all-minilm-l6-v2")
    assert code == 2 and "packaged" in err
    code, _out, err = run(data_dir, capsys, "use", "acme-chat")
    assert code == 2 and "models download acme-chat" in err
    assert state.requests == []


def test_doctor_reports_the_recommended_chat_model(fake_context: Any) -> None:
    from desktop_rag.services.doctor import models_fit

    report = models_fit(fake_context)
    assert report["recommended_chat_model"]
    assert report["reason"].startswith(("runs well", "runs slowly"))
    assert "CPU cores" in report["hardware"]
