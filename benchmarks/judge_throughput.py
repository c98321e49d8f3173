"""Judge throughput at client concurrency 1 and 16 against a server with 200 ms latency.

Starts llm-katan (echo backend, --latency-ms 200, its concurrency limit raised) on
loopback, sends the same number of distinct judge requests through the one judge client
at each concurrency (cache off, so every request reaches the server), and prints requests
per second and the speed-up. Target: above 10x.

    python benchmarks/judge_throughput.py [--requests 64] [--latency-ms 200]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.servers

from sci_tasks.metrics.judge import JudgeClient, JudgeConfig, JudgeRequest
from tests.servers import KATAN_KEY, katan

SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["verdict", "reason"],
}


def measure(base_url: str, model: str, concurrency: int, n: int) -> float:
    config = JudgeConfig(
        model=model,
        base_url=base_url,
        api_key_env="SCI_TASKS_BENCH_KEY",
        concurrency=concurrency,
        structured_output="tool",
        cache=False,
        timeout=30,
    )
    client = JudgeClient(config)
    requests = [JudgeRequest(f"c{concurrency} q{i}", SCHEMA, "bench@1") for i in range(n)]
    started = time.perf_counter()
    replies = client.ask_many(requests)
    elapsed = time.perf_counter() - started
    failed = [r.error for r in replies if not r.ok]
    if failed:
        raise SystemExit(f"{len(failed)} requests failed, e.g. {failed[0]}")
    return n / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--latency-ms", type=int, default=200)
    args = parser.parse_args()
    os.environ["SCI_TASKS_BENCH_KEY"] = KATAN_KEY
    with (
        tempfile.TemporaryDirectory() as tmp,
        katan(Path(tmp), "--latency-ms", str(args.latency_ms), "--max-concurrent", "64") as server,
    ):
        measure(server.base_url, server.model, 4, 8)  # warm up connections and the server
        serial = measure(server.base_url, server.model, 1, args.requests)
        parallel = measure(server.base_url, server.model, 16, args.requests)
    print(f"server latency          {args.latency_ms} ms per request")
    print(f"requests                {args.requests} per setting")
    print(f"concurrency  1          {serial:7.2f} requests/s")
    print(f"concurrency 16          {parallel:7.2f} requests/s")
    print(f"speed-up                {parallel / serial:7.2f}x (target > 10x)")


if __name__ == "__main__":
    main()
