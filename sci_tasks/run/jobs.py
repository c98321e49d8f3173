"""A job's folder and its outcome: the folder a run that never started leaves behind is
removed, the ``.hydra/`` snapshot is written by the job, and inside a multirun each job
reports its outcome in a small file that ``SweepSummary`` prints when the sweep ends."""

from __future__ import annotations

import json
import logging
import os
import shutil
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf

from sci_tasks.outputs import write_json

OUTCOMES_ENV = "SCI_TASKS_MULTIRUN_ID"  # set by the multirun: where jobs report outcomes
failed: list[str] = []  # jobs of this process (and, after a multirun, of the sweep) that failed
RUNS_ROOT = "sci-eval-runs"  # hydra.run.dir's parent (conf/config.yaml)


def remove_if_unused(folder: Path, snapshot: bool = False) -> None:
    """Remove a job folder that holds nothing but what Hydra writes by itself (its job log,
    ``<job name>.log``, and with ``snapshot`` its ``.hydra/``): a run that never started
    leaves no folder behind. Any other content is kept."""
    leftover = {".hydra"} if snapshot else set()
    if not folder.is_dir() or any(
        not p.name.endswith(".log") and p.name not in leftover for p in folder.iterdir()
    ):
        return
    for handler in logging.getLogger().handlers[:]:  # Hydra's file handler holds the log
        if getattr(handler, "baseFilename", "").startswith(str(folder.resolve())):
            handler.close()
            logging.getLogger().removeHandler(handler)
    shutil.rmtree(folder)
    if folder.parent.name in (RUNS_ROOT, "scores") and not any(folder.parent.iterdir()):
        folder.parent.rmdir()  # the runs (re-scores) folder this run created


def write_snapshot(cfg: DictConfig, hydra_cfg: Any, folder: Path) -> None:
    """Hydra's ``.hydra/`` snapshot (config, hydra, overrides), written by the job into the
    folder it decided on (``hydra.output_subdir`` is null, so Hydra writes none)."""
    out = folder / ".hydra"
    out.mkdir(parents=True, exist_ok=True)
    parts = {
        "config.yaml": cfg,
        "hydra.yaml": OmegaConf.create({"hydra": hydra_cfg}),
        "overrides.yaml": hydra_cfg.overrides.task,
    }
    for name, node in parts.items():
        (out / name).write_text(OmegaConf.to_yaml(node), encoding="utf-8")


def report_outcome(folder: Path, outcome: str, detail: str) -> None:
    """Inside a multirun: one small file per job (jobs may be other processes or nodes)."""
    multirun = os.environ.get(OUTCOMES_ENV)
    if not multirun:
        return
    out = folder.parent / ".outcomes" / multirun  # job folders sit in the sweep folder
    record = {"job": str(folder), "outcome": outcome, "detail": detail}
    write_json(out / f"{folder.name}.json", record)


class SweepSummary(Callback):
    """Prints each job's outcome when a multirun ends (the jobs' own reports)."""

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        os.environ[OUTCOMES_ENV] = f"{datetime.now():%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:6]}"

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        multirun = os.environ.pop(OUTCOMES_ENV, "")
        folder = Path(str(config.hydra.sweep.dir)) / ".outcomes" / multirun
        records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]
        failed.clear()
        print(f"\nsweep {config.hydra.sweep.dir}: {len(records)} job(s)")
        for r in records:
            detail = f": {r['detail']}" if r["detail"] else ""
            print(f"  {r['outcome']:<8} {Path(r['job']).name}{detail}")
            if r["outcome"] == "failed":
                failed.append(f"{Path(r['job']).name}: {r['detail']}")
