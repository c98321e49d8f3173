"""Real loopback servers that misbehave in ways llm-katan cannot: an HTTP server whose
replies a test scripts (HTML with status 200, empty bodies, lone surrogates...), a socket
that accepts connections and never answers, and a port nobody listens on."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .servers import free_port

# (status, content type, body) for one request's JSON payload
Reply = tuple[int, str, bytes]


def completion(content: str | None, model: str = "scripted") -> bytes:
    """An OpenAI chat-completion body whose message says ``content`` (``json.dumps`` keeps a
    lone surrogate as the escape ``\\ud800``, as a real server's JSON would)."""
    return json.dumps(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    ).encode()


@dataclass
class Scripted:
    base_url: str  # .../v1
    requests: list[dict[str, Any]] = field(default_factory=list)

    @property
    def chat_url(self) -> str:
        return f"{self.base_url}/chat/completions"


@contextmanager
def scripted_server(answer: Callable[[dict[str, Any]], Reply]) -> Iterator[Scripted]:
    """An HTTP server on loopback answering every POST with ``answer(payload)``."""
    requests: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            payload = json.loads(self.rfile.read(length) or b"{}")
            requests.append(payload)
            status, kind, body = answer(payload)
            self.send_response(status)
            if kind:
                self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:  # quiet
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)  # port 0: the kernel picks one
    server = Scripted(f"http://127.0.0.1:{httpd.server_address[1]}/v1", requests)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


@dataclass
class Silent:
    base_url: str
    accepted: int = 0  # connections accepted (each one a request that will time out)


@contextmanager
def silent_server() -> Iterator[Silent]:
    """Accepts TCP connections, reads, never answers: every request times out."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    sock.settimeout(0.2)
    port = sock.getsockname()[1]
    server = Silent(f"http://127.0.0.1:{port}/v1")
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            server.accepted += 1
            held.append(conn)  # kept open, never answered

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        stop.set()
        thread.join(timeout=5)
        for conn in held:
            conn.close()
        sock.close()


def refused_url() -> str:
    """A loopback URL nobody listens on: every connection is refused at once (the port
    comes from this process's block of ``free_port``, where no other test process binds)."""
    return f"http://127.0.0.1:{free_port()}/v1"


@contextmanager
def model_and_jurors(
    model_reply: Callable[[dict[str, Any]], Reply],
    juror: Callable[[str], Callable[[dict[str, Any]], Reply]],
    names: tuple[str, ...] = ("j1", "j2", "j3"),
) -> Iterator[tuple[Scripted, list[Scripted]]]:
    """The model under test and a jury on loopback: a scripted server answering with
    ``model_reply``, and one per juror name answering with ``juror(name)``."""
    with ExitStack() as stack:
        model = stack.enter_context(scripted_server(model_reply))
        yield model, [stack.enter_context(scripted_server(juror(name))) for name in names]
