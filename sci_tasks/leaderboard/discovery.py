"""The jobs of a sweep: each job folder's manifest status and its newest lm-eval results.

A job is a folder with ``manifest.json`` (or a ``.hydra`` folder only: Hydra made it but
the job crashed before writing its manifest). Folders our own tools write inside a sweep or
a run (``OUTPUT_FOLDERS``: scores, report, leaderboard) are never read back as jobs or
results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sci_tasks import manifest, run_folder
from sci_tasks.manifest import MANIFEST
from sci_tasks.outputs import OUTPUT_FOLDERS


@dataclass
class Job:
    """One job folder of the sweep and what the leaderboard made of it."""

    folder: Path
    status: str  # manifest status (done, running, failed), "no manifest", "unreadable manifest"
    model: str | None = None
    taskset: str | None = None
    results_file: Path | None = None
    stamp: str = ""  # results file timestamp: orders jobs of one model (newer wins)
    results: dict[str, Any] = field(default_factory=dict)  # lm-eval's whole results file
    note: str = ""
    superseded: list[str] = field(default_factory=list)  # its tasks a newer job replaced
    config: dict[str, Any] = field(default_factory=dict)  # the manifest's (redacted) config
    label: str = ""  # the job's name when its folder's is not enough (stock lm-eval runs)

    @property
    def tasks(self) -> list[str]:
        return list(self.results.get("results", {}))

    @property
    def name(self) -> str:
        return self.label or self.folder.name

    @property
    def limit(self) -> int | float | None:
        """lm-eval's ``limit`` of the run (its results file's config): not a full run."""
        limit = (self.results.get("config") or {}).get("limit")
        if isinstance(limit, bool) or not isinstance(limit, (int, float)):
            return None
        return int(limit) if float(limit).is_integer() else limit  # lm-eval writes 2.0

    @property
    def usable(self) -> bool:
        return self.status == "done" and self.results_file is not None


def find_jobs(sweep_dir: Path) -> list[Job]:
    """Every job folder of ``sweep_dir`` (or ``sweep_dir`` itself if it is one run), and
    every lm-eval results file outside them (stock ``lm_eval --output_path`` folders, with
    one or more models, runs or sweeps under them)."""
    sweep_dir = Path(sweep_dir)
    if (sweep_dir / MANIFEST).is_file():
        folders = [sweep_dir]
    else:
        folders = [
            p
            for p in sorted(sweep_dir.iterdir())
            if p.is_dir()
            and p.name not in OUTPUT_FOLDERS
            and ((p / MANIFEST).exists() or (p / ".hydra").is_dir())
        ]
    return [read_job(folder) for folder in folders] + stock_jobs(sweep_dir)


def stock_jobs(root: Path) -> list[Job]:
    """A job per lm-eval results file under ``root`` that no sci-eval job folder holds
    (stock ``lm_eval --output_path`` writes ``<model>/results_<time>.json``); its model is
    lm-eval's ``model_name``, and a model's runs merge into one row as a sweep's jobs do."""
    jobs = []
    for path in run_folder.results_files(root):
        if _in_sci_eval_job(root, path.parent):
            continue
        try:
            results = run_folder.read_results(path)
        except ValueError as exc:
            label = path.relative_to(root).as_posix()
            jobs.append(Job(path.parent, "unreadable results file", note=str(exc), label=label))
            continue
        model = str(results.get("model_name") or _model_arg(results) or path.parent.name)
        job = Job(path.parent, "done", model, label=path.relative_to(root).as_posix())
        job.results, job.results_file = results, path
        job.stamp = run_folder.stamp_of(path)
        jobs.append(job)
    return jobs


def _in_sci_eval_job(root: Path, folder: Path) -> bool:
    for parent in (folder, *folder.parents):
        if (parent / MANIFEST).exists() or (parent / ".hydra").is_dir():
            return True
        if parent == root:
            return False
    return False


def _model_arg(results: dict[str, Any]) -> str | None:
    args = (results.get("config") or {}).get("model_args") or {}
    if isinstance(args, dict):
        return args.get("model") or args.get("pretrained")
    return None


def read_job(folder: Path) -> Job:
    """The job's manifest status and, for a finished job, its newest results file."""
    path = folder / MANIFEST
    if not path.exists():
        # Hydra made the folder but the job never wrote its manifest (crashed at start-up)
        return Job(folder, "no manifest", model=_model_from_folder(folder))
    try:
        recorded = manifest.read(path)
    except ValueError as exc:
        return Job(folder, "unreadable manifest", _model_from_folder(folder), note=str(exc))
    config = recorded.config
    model = (config.get("model") or {}).get("name") or _model_from_folder(folder)
    taskset = (config.get("tasks") or {}).get("name")
    job = Job(folder, recorded.status, str(model), taskset, config=config)
    if job.status == "running":
        job.note = "still running, or stopped before it finished"
    elif job.status == "failed":
        job.note = recorded.error or "no error recorded"
    if job.status != "done":
        return job
    files = run_folder.results_files(folder)
    if not files:
        job.note = "finished, but no results file"
        return job
    newest = run_folder.newest(files)
    try:
        job.results = run_folder.read_results(newest)
    except ValueError as exc:
        job.note = f"unreadable results file {newest.name}: {exc}"
        return job
    job.results_file = newest
    job.stamp = run_folder.stamp_of(newest)
    if len(files) > 1:
        job.note = f"newest of {len(files)} results files"
    return job


def _model_from_folder(folder: Path) -> str | None:
    """The model part of a job folder name ``<model>__<task set>__<hash>`` (a hub id's
    ``/`` is ``__`` there too), for a job without a readable manifest."""
    parts = folder.name.rsplit("__", 2)
    return parts[0] if len(parts) == 3 and parts[0] else None
