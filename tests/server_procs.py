"""Real servers for the server-mode tests and benchmarks: a Chroma server (`chroma run`) and
llama-cpp-python's OpenAI-compatible server, each on a free 127.0.0.1 port, always stopped."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
VENV_BIN = Path(sys.executable).parent
HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def _ready(url: str) -> bool:
    """Whether the server answers HTTP at `url` (any status: 401 means up, behind a key)."""
    try:
        with urllib.request.urlopen(url, timeout=1):
            return True
    except urllib.error.HTTPError:
        return True
    except (OSError, urllib.error.URLError):
        return False


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@contextlib.contextmanager
def running(cmd: list[str], ready_url: str, log: Path, wait_s: float = 60) -> Iterator[None]:
    """Starts `cmd`, waits until `ready_url` answers, and stops it afterwards."""
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False", "HF_HUB_OFFLINE": "1"}
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + wait_s
        while not _ready(ready_url):
            if proc.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text(errors="replace")[-2000:]
                raise RuntimeError(f"{cmd[0]} did not start (exit {proc.poll()}):\n{tail}")
            time.sleep(0.2)
        yield
    finally:
        _stop(proc)


@contextlib.contextmanager
def chroma_server(path: Path, log: Path) -> Iterator[int]:
    """`chroma run` from the installed chromadb; yields its port."""
    port = free_port()
    cmd = [str(VENV_BIN / "chroma"), "run", "--path", str(path), "--host", HOST,
           "--port", str(port)]
    with running(cmd, f"http://{HOST}:{port}/api/v2/heartbeat", log):
        yield port


@contextlib.contextmanager
def llama_server(model: Path, log: Path, *extra: str) -> Iterator[str]:
    """`python -m llama_cpp.server` (through tests/run_llama_server.py); yields its /v1 URL."""
    port = free_port()
    cmd = [sys.executable, str(HERE / "run_llama_server.py"), "--model", str(model),
           "--host", HOST, "--port", str(port), "--n_ctx", "2048", "--n_threads", "2",
           "--verbose", "False", "--logits_all", "False", *extra]
    with running(cmd, f"http://{HOST}:{port}/v1/models", log):
        yield f"http://{HOST}:{port}/v1"
