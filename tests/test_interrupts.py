"""SIGINT / SIGTERM end a real run cleanly: one line, a manifest that says ``interrupted``,
every response generated so far kept in lm-eval's response cache, and a re-run that
generates only the rest (real SmolLM2 on CPU in a real subprocess, real signals)."""

from __future__ import annotations

import json
import re
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from sci_tasks import manifest

from . import smollm2
from .helpers import console_script, loopback_env

pytestmark = pytest.mark.e2e
converted_smollm2 = smollm2.converted_smollm2  # the session's converted weights (a fixture)


def cached(cache: Path) -> int:
    """Responses in the run's response cache (lm-eval's sqlite files)."""
    total = 0
    for db in cache.glob("responses/*/*_rank*.db"):
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
                total += con.execute("SELECT COUNT(*) FROM unnamed").fetchone()[0]
        except sqlite3.Error:  # the table is created with the first response
            continue
    return total


def start(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    # a shell's background job inherits SIGINT ignored; a terminal's Ctrl-C is not
    return subprocess.Popen(
        [console_script("sci-eval"), *args], cwd=cwd, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip


def test_sigint_midway_keeps_the_responses_and_a_rerun_generates_only_the_rest(
    tmp_path: Path, converted_smollm2: Path
) -> None:
    env = loopback_env(tmp_path)
    cache = tmp_path / "cache"
    samples = 4  # one chunk (batch) per sample: batch_size=1
    args = [
        f"model.args.pretrained={converted_smollm2}", "tasks=scimif_chem", f"limit={samples}",
        "model.batch_size=1", "model.gen_kwargs.max_gen_toks=24", "hydra.run.dir=run",
    ]  # fmt: skip
    # an earlier run left one response of this model in the cache (the first document's)
    first = [*args[:2], "limit=1", *args[3:-1], "hydra.run.dir=earlier"]
    earlier = subprocess.run(
        [console_script("sci-eval"), *first], cwd=tmp_path, env=env, text=True,
        capture_output=True, timeout=600,
    )  # fmt: skip
    assert earlier.returncode == 0 and cached(cache) == 1, earlier.stderr[-2000:]
    proc = start(args, tmp_path, env)
    deadline = time.monotonic() + 300
    while cached(cache) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert proc.poll() is None, "the run ended before its first response was cached"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    kept = cached(cache)
    assert proc.returncode == 130, err[-2000:]
    assert 2 <= kept < samples
    # one line after the progress bars: no traceback
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    last = err.strip().split("\n")[-1]  # tqdm's bars end in \r, never \n
    assert last.startswith(
        f"sci-eval: interrupted by SIGINT (manifest: interrupted, {tmp_path / 'run'}"
    ), err[-1000:]
    # what this run kept, not the model's whole cache (issue 31)
    said = rf"; {kept - 1} response\(s\) of this run kept in the response cache \({kept} for "
    assert re.search(said + "this model in all", last), err[-1000:]
    recorded = manifest.read(tmp_path / "run")
    assert recorded.status == "interrupted" and recorded.error == "interrupted by SIGINT"
    assert not list((tmp_path / "run").rglob("results_*.json"))

    # the same command again: the kept responses come from the cache, the rest is generated
    again = subprocess.run(
        [console_script("sci-eval"), *args], cwd=tmp_path, env=env, text=True,
        capture_output=True, timeout=600,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr[-2000:]
    assert f"Cached requests: {kept}, Requests remaining: {samples - kept}" in again.stdout
    assert manifest.read(tmp_path / "run").status == "done"
    assert cached(cache) == samples
    (samples_file,) = (tmp_path / "run").rglob("samples_scimif_chem_*.jsonl")
    lines = samples_file.read_text(encoding="utf-8").splitlines()
    assert len(lines) == samples
    for line in lines:  # strict JSON: no bare NaN
        json.loads(line, parse_constant=lambda c: pytest.fail(f"{c} in {samples_file}"))


def test_sigterm_during_model_loading_ends_in_one_line(
    tmp_path: Path, converted_smollm2: Path
) -> None:
    """What SLURM sends at a time limit, here before any response: still one line and an
    ``interrupted`` manifest (the run had started: its folder is kept)."""
    env = loopback_env(tmp_path)
    args = [f"model.args.pretrained={converted_smollm2}", "tasks=scimif_chem", "limit=2",
            "hydra.run.dir=run"]  # fmt: skip
    proc = start(args, tmp_path, env)
    deadline = time.monotonic() + 300
    while not (tmp_path / "run" / "manifest.json").is_file() and time.monotonic() < deadline:
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err[-2000:]
    assert "Traceback" not in err
    assert err.strip().split("\n")[-1].startswith("sci-eval: interrupted by SIGTERM"), err[-500:]
    assert manifest.read(tmp_path / "run").status == "interrupted"


class _RaisesWhenNamed:
    """A descriptor whose ``__set_name__`` meets the signal, as a dataclass field does when
    SIGTERM lands while a module defining a dataclass is imported (seen in CI)."""

    def __set_name__(self, owner: type, name: str) -> None:
        raise KeyboardInterrupt("SIGTERM")


def test_an_interrupt_python_wrapped_in_another_error_is_still_the_signal() -> None:
    from sci_tasks.run.interrupts import interrupting_signal

    with pytest.raises(RuntimeError) as wrapped:  # Python 3.11 wraps it in a RuntimeError
        type("Built", (), {"metrics": _RaisesWhenNamed()})
    assert interrupting_signal(wrapped.value) == "SIGTERM"
    try:  # a library re-raising with ``from``
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise ValueError("cancelled") from exc
    except ValueError as exc:
        assert interrupting_signal(exc) == "SIGINT"
    assert interrupting_signal(RuntimeError("a real failure")) is None
