"""Timing one child process: what the benchmarks that start ``sci-eval`` share."""

from __future__ import annotations

import os
import resource
import subprocess
import time
from pathlib import Path


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, float, str]:
    """(wall s, CPU s, 1-minute load average before, stdout) of one process run to its end;
    a failed process ends the benchmark with the tail of its stderr."""
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"{Path(cmd[0]).name} failed:\n{out.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, load, out.stdout
