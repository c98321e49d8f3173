"""Sweeps over a run setting pair every sample (issue 20): ``sci-eval -m`` over judge
settings (``concurrency`` x ``max_tokens``) and over the image budget, then
``sci-leaderboard``.

Run settings reach scoring through the task (``sci_tasks.task.SciTask``), never a document,
so every job logs the same ``doc_hash`` for a record, and the leaderboard's ``pairwise.csv``
pairs all of a job's samples with the other job's. The model is llm-katan's echo backend,
the judge a real loopback server; the jobs of a sweep run in one process (Hydra's basic
launcher), so a setting of one job leaking into the next would show here too."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import Any

import pytest

from sci_tasks import leaderboard

from .commands import run_ok as run
from .judge_server import counting_judge
from .judged_data import SCIMIF_PER_RECORD, scimif_release
from .servers import KATAN_KEY, Katan

RECORDS = 4


@pytest.fixture()
def env(tmp_path: Path) -> dict[str, str]:
    out = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("SCI_TASKS_JUDGE_")
        and k not in ("SCI_TASKS_DATA_DIR", "SCIMIF_DATA_DIR", "SPM_BENCH_DATA_DIR")
    }
    return out | {
        "OPENAI_API_KEY": KATAN_KEY,
        "SCI_TASKS_JUDGE_API_KEY": "judge-key",
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "SCI_TASKS_CACHE": str(tmp_path / "cache"),
    }


def jobs(sweep: Path) -> dict[str, Path]:
    return {p.name: p for p in sweep.iterdir() if (p / "manifest.json").is_file()}


def logged(job: Path) -> dict[str, list[dict[str, Any]]]:
    """Each task's logged samples in ``job``."""
    out = {}
    for path in job.rglob("samples_*.jsonl"):
        task = path.name[len("samples_") :].rsplit("_", 1)[0]
        out[task] = [json.loads(line) for line in path.read_text().splitlines()]
    return out


def pairwise_rows(sweep: Path) -> list[dict[str, str]]:
    leaderboard.main([str(sweep)])
    with (sweep / "leaderboard" / "pairwise.csv").open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def assert_every_sample_paired(sweep: Path, n_jobs: int, setting: str) -> None:
    """``n_jobs`` jobs, the same records (doc_hash) in each task of every job, and every
    pairwise row of the leaderboard (rows differing in ``setting``) pairs as many samples as
    its column has."""
    found = jobs(sweep)
    assert len(found) == n_jobs, sorted(found)
    a, *others = (logged(job) for job in found.values())
    assert a
    for task in a:
        hashes = [s["doc_hash"] for s in a[task]]
        assert len(set(hashes)) == len(hashes) > 0
        for b in others:
            assert sorted(hashes) == sorted(s["doc_hash"] for s in b[task]), task
    rows = pairwise_rows(sweep)
    assert rows, "no paired comparison"
    samples = sum(len(samples) for samples in a.values())
    for row in rows:
        # a column is one task or the group of them all: either way every sample pairs
        per_task = {len(s) for s in a.values()}
        assert int(row["paired samples"]) in per_task | {samples}, row
        assert setting in row["model a"] + row["model b"], row  # the rows differ by the setting
    assert max(int(r["paired samples"]) for r in rows) == samples


def test_a_judge_settings_sweep_pairs_every_sample(
    tmp_path: Path, env: dict[str, str], model: Katan
) -> None:
    data = scimif_release(tmp_path / "scimif", RECORDS)
    with counting_judge(0.0) as judge:
        run(
            "sci-eval", "-m", "model=local_api", f"model.args.model={model.model}",
            f"model.args.base_url={model.chat_url}", "tasks=scimif_chem",
            f"data.SCIMIF_DATA_DIR={data}", "use_cache=false", "judge=local_api",
            f"judge.model={judge.model}", f"judge.base_url={judge.base_url}",
            "judge.structured_output=tool", f"judge.cache_dir={tmp_path / 'judge-cache'}",
            "judge.concurrency=1,8", "judge.max_tokens=256,512", "sweep_name=judge",
            cwd=tmp_path, env=env,
        )  # fmt: skip
        assert judge.stats.requests >= RECORDS * SCIMIF_PER_RECORD
    sweep = tmp_path / "sci-eval-sweeps" / "judge"
    for job in jobs(sweep).values():
        (samples,) = logged(job).values()
        assert len(samples) == RECORDS
        assert all(s["record"]["correctness"]["grade"] == "A" for s in samples)  # judged
    # concurrency never changes a number: a row merges those jobs (sci_tasks.manifest's
    # MACHINE_DERIVED); max_tokens makes a row each, and the two rows pair every sample
    assert_every_sample_paired(sweep, 4, "max_tokens")


def test_an_image_budget_sweep_pairs_every_sample(
    tmp_path: Path, env: dict[str, str], model: Katan
) -> None:
    run(
        "sci-eval", "-m", "model=local_api", f"model.args.model={model.model}",
        f"model.args.base_url={model.chat_url}", "tasks=spm_bench", "limit=2",
        "use_cache=false", "data.max_image_pixels=0,4096", "sweep_name=pixels",
        cwd=tmp_path, env=env,
    )  # fmt: skip
    sweep = tmp_path / "sci-eval-sweeps" / "pixels"
    budgets = set()
    for job in jobs(sweep).values():
        samples = logged(job)
        assert len(samples) == 4  # the four technique tasks
        budgets |= {
            s["record"]["image_budget"]["max_image_pixels"] for t in samples.values() for s in t
        }
    assert budgets == {None, 4096}  # the jobs did run under different budgets
    assert_every_sample_paired(sweep, 2, "max_image_pixels")
