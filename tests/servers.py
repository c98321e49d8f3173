"""Real OpenAI-compatible servers on loopback for tests: llm-katan (echo backend)."""

from __future__ import annotations

import json
import os
import random
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


# Ports for servers a test starts as a subprocess (they need the number before they bind):
# below Linux's ephemeral range (32768-60999, where bind(0) and outgoing connections take
# theirs), one block per pytest-xdist worker, so two workers never draw the same port.
PORT_BLOCK, PORT_BLOCKS, FIRST_PORT = 2000, 11, 10000
_handed_out: set[int] = set()


def free_port() -> int:
    """A loopback port nobody listens on, from this process's block (``gw<N>``: block N+1;
    not under xdist: block 0), never the same one twice in a process."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    block = int(worker[2:]) % (PORT_BLOCKS - 1) + 1 if worker.startswith("gw") else 0
    start = FIRST_PORT + block * PORT_BLOCK
    candidates = [p for p in range(start, start + PORT_BLOCK) if p not in _handed_out]
    random.SystemRandom().shuffle(candidates)  # not pytest-randomly's seeded `random`
    for port in candidates:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))  # no SO_REUSEADDR: TIME_WAIT counts as taken
            except OSError:
                continue
        _handed_out.add(port)
        return port
    raise RuntimeError(f"no free loopback port in {start}-{start + PORT_BLOCK - 1}")


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
    for attempt in range(3):  # a port taken between free_port() and the bind: the next one
        port = free_port()
        log = tmp / f"katan-{port}.log"
        cmd = [
            exe, "--model", model, "--backend", "echo", "--host", "127.0.0.1", "--port",
            str(port), "--stats-file", str(tmp / f"katan-{port}-stats.json"),
            "--disable-dashboard", *flags,
        ]  # fmt: skip
        with log.open("w") as fh:
            proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT)
        server = Katan(f"http://127.0.0.1:{port}/v1", model, log)
        try:
            _wait_ready(server, proc, timeout)
            break
        except BaseException as error:
            _stop(proc)
            taken = "address already in use" in server.log_text().lower()
            if attempt == 2 or not isinstance(error, RuntimeError) or not taken:
                raise
    try:
        yield server
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


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
