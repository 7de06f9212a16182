"""Offline and privacy: ingest, search and ask with the real tiny-profile models (MiniLM, Chroma,
SmolLM2) in a child whose network is cut off: a socket guard installed through sitecustomize makes
every non-AF_UNIX connect, bind and name lookup fail and records it, and when this process may
create one, the child also runs in a new network namespace (`unshare -n`). The hub's offline
variables are deliberately NOT set: the defaults alone must not touch the network. The child
also reports its listening sockets and Chroma's telemetry setting."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ingest_docs import KNOWN, NOTE, make_pdf, write_note

ROOT = Path(__file__).resolve().parents[1]

SITECUSTOMIZE = '''
import errno, os, socket, traceback

_LOG = os.environ["NET_GUARD_LOG"]


def _record(what, detail):
    with open(_LOG, "a", encoding="utf-8") as log:
        log.write(f"{what} {detail!r}\\n" + "".join(traceback.format_stack(limit=8)) + "\\n")


def _guard(name):
    original = getattr(socket.socket, name)

    def guarded(self, address, *args):
        if self.family == getattr(socket, "AF_UNIX", None):
            return original(self, address, *args)
        _record(name, address)
        raise OSError(errno.ENETUNREACH, "network disabled by the offline test")

    setattr(socket.socket, name, guarded)


for _name in ("connect", "connect_ex", "bind", "sendto"):
    _guard(_name)
_getaddrinfo = socket.getaddrinfo


def _no_lookup(host, *args, **kwargs):
    _record("getaddrinfo", host)
    raise socket.gaierror(socket.EAI_NONAME, "name lookups disabled by the offline test")


socket.getaddrinfo = _no_lookup
'''

CHILD = '''
import json, os, socket, sys
import psutil
from desktop_rag.bootstrap import build_context
from desktop_rag.services import Services

data_dir, folder = sys.argv[1], sys.argv[2]
services = Services(build_context(data_dir, profile="tiny"))
report = services.ingest([folder])
found = services.search("secret launch code of the purple giraffe", k=3)
answer = services.ask("What is hidden on page two about the purple giraffe?")
chroma = getattr(services.ctx.vectors, "source", services.ctx.vectors)  # behind its copy
settings = chroma._col._client.get_settings()
listening = [c.laddr for c in psutil.Process().net_connections(kind="all")
             if c.status == psutil.CONN_LISTEN]
blocked_before = os.path.getsize(os.environ["NET_GUARD_LOG"])
try:
    socket.create_connection(("127.0.0.1", 9), timeout=1)
except OSError:
    pass
recorded = os.path.getsize(os.environ["NET_GUARD_LOG"]) > blocked_before
guard = "working" if recorded else "not working"
print(json.dumps({
    "outcomes": [o.outcome.value for o in report.outcomes],
    "top": found.results[0].chunk.text if found.results else "",
    "answer": answer.answer, "refused": answer.refused,
    "cited": [c.n for c in answer.citations], "given": [p.n for p in answer.passages],
    "telemetry": settings.anonymized_telemetry, "listening": [list(a) for a in listening],
    "blocked_before_self_test": blocked_before, "guard": guard,
    "network_modules": sorted(m for m in ("posthog", "requests") if m in sys.modules),
}))
services.close()
'''


def _can_unshare() -> bool:
    if shutil.which("unshare") is None:
        return False
    result = subprocess.run(["unshare", "-n", "true"], capture_output=True, check=False)
    return result.returncode == 0


@pytest.fixture(scope="module")
def offline_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, object], str, bool]:
    base = tmp_path_factory.mktemp("offline")
    guard_dir, log = base / "guard", base / "network.log"
    guard_dir.mkdir()
    (guard_dir / "sitecustomize.py").write_text(SITECUSTOMIZE)
    log.write_text("")
    docs = base / "docs"
    docs.mkdir()
    make_pdf(docs / "report.pdf", pages=3, known_page=2)
    write_note(docs / "garden.md", NOTE)
    env = {k: v for k, v in os.environ.items()
           if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE")}
    env.update(PYTHONPATH=f"{guard_dir}{os.pathsep}{ROOT}", NET_GUARD_LOG=str(log))
    namespace = _can_unshare()
    command = [sys.executable, "-c", CHILD, str(base / "lib"), str(docs)]
    if namespace:
        command = ["unshare", "-n", *command]
    result = subprocess.run(
        command, capture_output=True, text=True, env=env, cwd=ROOT, timeout=600, check=False
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.strip().splitlines()[-1]), log.read_text(), namespace


def test_ingest_search_and_ask_succeed_without_network(
    offline_run: tuple[dict[str, object], str, bool]
) -> None:
    out, _, _ = offline_run
    assert out["outcomes"] == ["indexed", "indexed"]
    assert KNOWN in str(out["top"])
    assert out["answer"] and set(out["cited"]) <= set(out["given"])  # type: ignore[arg-type]


def test_nothing_tried_to_reach_the_network(
    offline_run: tuple[dict[str, object], str, bool]
) -> None:
    out, log, _ = offline_run
    assert out["guard"] == "working"  # the guard itself is live in the child
    assert out["blocked_before_self_test"] == 0, log


def test_no_listening_ports_and_chroma_telemetry_off(
    offline_run: tuple[dict[str, object], str, bool]
) -> None:
    out, _, _ = offline_run
    assert out["listening"] == []
    assert out["telemetry"] is False
