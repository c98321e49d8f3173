"""A real OpenAI-compatible judge server on loopback that counts what is in flight.

It answers ``POST /v1/chat/completions`` after a fixed latency, with a forced tool call (or,
for ``response_format``, message content) whose arguments are the minimal valid object of
the request's schema, the same answers llm-katan's echo backend gives in tool mode
(``llm_katan.providers.base.generate_dummy_args``). Unlike llm-katan it records the number
of requests in flight (the maximum since the last ``reset``) and when the first request
arrived and the last reply left, so tests can count concurrency and benchmarks can time the
judge phase of a run, not the whole process. Threads, one per connection: the judge client
keeps one connection per concurrent request."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from llm_katan.providers.base import generate_dummy_args


@dataclass
class JudgeStats:
    requests: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    first_arrival: float | None = None  # time.monotonic()
    last_reply: float | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def busy_seconds(self) -> float:
        """From the first request's arrival to the last reply: the judge phase of a run."""
        if self.first_arrival is None or self.last_reply is None:
            return 0.0
        return self.last_reply - self.first_arrival


@dataclass
class CountingJudge:
    base_url: str  # .../v1
    model: str
    latency: float
    stats: JudgeStats

    def settings(self, concurrency: int, cache: Path) -> dict[str, Any]:
        """Judge settings for this server (tool mode, the key in SCI_TASKS_JUDGE_API_KEY)."""
        return {
            "model": self.model,
            "base_url": self.base_url,
            "api_key_env": "SCI_TASKS_JUDGE_API_KEY",
            "structured_output": "tool",
            "concurrency": concurrency,
            "cache_dir": str(cache),
        }

    def reset(self) -> None:
        with self.stats.lock:
            self.stats.requests = self.stats.max_in_flight = 0
            self.stats.first_arrival = self.stats.last_reply = None


def _reply(body: dict[str, Any], model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": None}
    tools = body.get("tools") or []
    if tools:
        function = tools[0]["function"]
        arguments = json.dumps(generate_dummy_args(function.get("parameters")))
        call = {"name": function["name"], "arguments": arguments}
        message["tool_calls"] = [{"id": "call_0", "type": "function", "function": call}]
        finish = "tool_calls"
    else:
        fmt = body.get("response_format") or {}
        schema = (fmt.get("json_schema") or {}).get("schema") or fmt.get("schema")
        message["content"] = json.dumps(generate_dummy_args(schema))
        finish = "stop"
    return {
        "id": "chatcmpl-0",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


@contextmanager
def counting_judge(latency: float = 0.2, model: str = "counting-judge") -> Iterator[CountingJudge]:
    stats = JudgeStats()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: one connection per client worker

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            with stats.lock:
                stats.requests += 1
                stats.in_flight += 1
                stats.max_in_flight = max(stats.max_in_flight, stats.in_flight)
                if stats.first_arrival is None:
                    stats.first_arrival = time.monotonic()
            try:
                time.sleep(latency)
                payload = json.dumps(_reply(body, model)).encode()
            finally:
                with stats.lock:
                    stats.in_flight -= 1
                    stats.last_reply = time.monotonic()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        yield CountingJudge(f"http://127.0.0.1:{port}/v1", model, latency, stats)
    finally:
        server.shutdown()
        server.server_close()
