"""Real OpenAI-compatible servers on loopback for tests: llm-katan (echo backend)."""

from __future__ import annotations

import json
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .helpers import console_script

KATAN_KEY = "katan-test-key"  # llm-katan only checks that a key is present


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Katan:
    base_url: str  # .../v1
    model: str
    log: Path

    @property
    def chat_url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def requests_received(self) -> int:
        """Chat-completion requests the server answered (any status), counted from its log."""
        return self.log_text().count('"POST /v1/chat/completions HTTP/1.1"')


@contextmanager
def katan(
    tmp: Path, *flags: str, model: str = "echo-model", timeout: float = 60
) -> Iterator[Katan]:
    """Start ``llm-katan --backend echo`` with extra ``flags`` (e.g. ``--error-rate 0.5``)."""
    exe = console_script("llm-katan")
    port = free_port()
    log = tmp / f"katan-{port}.log"
    cmd = [
        exe, "--model", model, "--backend", "echo", "--host", "127.0.0.1", "--port", str(port),
        "--stats-file", str(tmp / f"katan-{port}-stats.json"), "--disable-dashboard", *flags,
    ]  # fmt: skip
    with log.open("w") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT)
    server = Katan(f"http://127.0.0.1:{port}/v1", model, log)
    try:
        _wait_ready(server, proc, timeout)
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _wait_ready(server: Katan, proc: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    request = urllib.request.Request(
        f"{server.base_url}/models", headers={"Authorization": f"Bearer {KATAN_KEY}"}
    )
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"llm-katan exited early:\n{server.log_text()}")
        try:
            with urllib.request.urlopen(request, timeout=2) as resp:
                json.load(resp)
                return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"llm-katan not ready after {timeout}s:\n{server.log_text()}")
