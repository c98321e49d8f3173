"""The runs of a folder of lm-eval output, read through the one run-folder reader
(``sci_tasks.run_folder``, the manifest through ``sci_tasks.manifest``), and what their
numbers are (bundled samples, a limit)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sci_tasks import manifest, run_folder
from sci_tasks.data.locate import DataError
from sci_tasks.outputs import read_jsonl


@dataclass
class Run:
    """One folder of results and samples files: one model's run (or a job of a sweep)."""

    folder: Path
    label: str
    model: str
    results: dict[str, Any] = field(default_factory=dict)  # task -> lm-eval's results dict
    n_samples: dict[str, Any] = field(default_factory=dict)
    samples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # task -> records
    problems: list[str] = field(default_factory=list)
    judge: str | None = None  # the manifest's judge.name ("none": no judge); None: no manifest
    limit: Any = None  # lm-eval's ``limit`` of the run (its results file's config): not full


# --- reading ----------------------------------------------------------------------------------


def find_runs(root: Path) -> list[Run]:
    """Every folder under ``root`` (``root`` included) holding samples files, as a run."""
    root = Path(root)
    runs = [read_run(root, folder) for folder in run_folder.model_folders(root)]
    _unique_labels(runs)
    return runs


def read_run(root: Path, folder: Path) -> Run:
    rel = folder.relative_to(root).as_posix()
    run = Run(folder, rel if rel != "." else folder.name, folder.name)
    # oldest first: a newer results file overrides a task
    for path in run_folder.results_files(folder, recursive=False):
        try:
            data = run_folder.read_results(path)
        except ValueError as exc:
            run.problems.append(f"{path}: unreadable results file: {exc}")
            continue
        run.model = str(data.get("model_name") or _model_of(data) or run.model)
        run.results.update(data.get("results") or {})
        run.n_samples.update(data.get("n-samples") or {})
        limit = (data.get("config") or {}).get("limit")
        if isinstance(limit, (int, float)) and not isinstance(limit, bool):
            # lm-eval writes a count as a float (2.0): shown as the user gave it
            run.limit = int(limit) if float(limit).is_integer() else limit
    config = _manifest_config(root, folder, run)
    model = config.get("model")
    # sci-eval's model.name, not the weights' path lm-eval logs
    if isinstance(model, dict) and model.get("name"):
        run.model = str(model["name"])
    if isinstance(config.get("judge"), dict):
        run.judge = str(config["judge"].get("name") or "none")
    try:
        newest = run_folder.newest_samples(folder)
    except ValueError:  # samples here and in a deeper folder: each folder is its own run
        newest = run_folder.newest_samples(folder, recursive=False)
    for task, path in sorted(newest.items()):
        if path.parent != folder:
            continue  # a deeper folder is its own run
        try:
            run.samples[task] = read_jsonl(path)
        except (OSError, DataError) as exc:
            run.samples[task] = []
            run.problems.append(f"{exc} (no sample of this file is shown)")
    return run


def _manifest_config(root: Path, folder: Path, run: Run) -> dict[str, Any]:
    """The config of the sci-eval manifest nearest above ``folder`` (a run's
    ``<run>/manifest.json``, a sweep job's ``<job>/manifest.json``), ``{}`` when none."""
    path = manifest.nearest(folder, root)
    if path is None:
        return {}
    try:
        return manifest.read(path).config
    except ValueError as exc:
        run.problems.append(f"{path}: unreadable manifest: {exc}")
        return {}


def _model_of(results: Mapping[str, Any]) -> str | None:
    args = (results.get("config") or {}).get("model_args") or {}
    if isinstance(args, dict):
        return args.get("model") or args.get("pretrained")
    return None


def _unique_labels(runs: list[Run]) -> None:
    """A run is labelled by its model (the jobs of one model over several task sets are one
    model on the page); by model and folder when runs of one model share a task, since then
    they are different configurations to tell apart."""
    for r in runs:
        clash = any(
            o is not r and o.model == r.model and set(o.samples) & set(r.samples) for o in runs
        )
        r.label = f"{r.model} ({r.label})" if clash else r.model


# --- what the numbers are --------------------------------------------------------------------


def is_bundled(run: Run, task: str) -> bool:
    """The task ran on the bundled samples: its ``bundled_samples`` metric, or its logged
    documents' ``data_source``."""
    if (run.results.get(task) or {}).get("bundled_samples,none") == 1.0:
        return True
    return any(
        str((r.get("doc") or {}).get("data_source", "")).startswith("bundled")
        for r in run.samples.get(task) or []
    )


def caveats(run: Run, task: str) -> list[str]:
    """What a task's numbers in ``run`` are not: benchmark data, or the whole task."""
    out = []
    if is_bundled(run, task):
        out.append("bundled samples: not benchmark numbers")
    if run.limit is not None:
        n = run.n_samples.get(task) or {}
        of = ""
        if isinstance(n, dict) and n.get("original"):
            shown = n.get("effective", len(run.samples.get(task) or []))
            of = f" ({shown} of {n['original']} samples)"
        out.append(f"limit={run.limit}{of}: NOT a full run")
    return out


def run_caveats(runs: Sequence[Run]) -> list[str]:
    """The page header's lines: per run, the tasks on bundled samples and its limit."""
    out = []
    for run in runs:
        bundled = [t for t in sorted(run.samples) if is_bundled(run, t)]
        said = []
        if bundled:
            said.append(f"bundled samples ({', '.join(bundled)}): not benchmark numbers")
        if run.limit is not None:
            said.append(f"limit={run.limit}: NOT a full run")
        if said:
            out.append(f"{run.label}: {'; '.join(said)}")
    return out
