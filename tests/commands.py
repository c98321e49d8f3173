"""Running the console scripts (``lm_eval``, ``sci-eval``, ``sci-score``, ...) from tests:
one place for the subprocess call and the failure message."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

from .helpers import console_script


def run_ok(
    *args: str, cwd: Path, env: Mapping[str, str], timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """``args[0]`` (a console script name) with the rest of ``args``; fails the test, with
    the ends of its output, unless it exits 0."""
    out = subprocess.run(
        [console_script(args[0]), *args[1:]],
        capture_output=True,
        text=True,
        env=dict(env),
        cwd=cwd,
        timeout=timeout,
    )
    assert out.returncode == 0, f"{args[0]} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out
