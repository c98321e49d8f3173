"""The one reader of run folders, for every command (sci-view, sci-report, sci-leaderboard,
sci-score, sci-agree).

A run folder is what lm-eval writes (``<model>/results_<time>.json`` and
``samples_<task>_<time>.jsonl``, stock ``lm_eval --output_path`` and ``sci-eval`` alike)
with sci-eval's ``manifest.json`` above it (``sci_tasks.manifest`` reads that). File names
are read with lm-eval's own helpers (``lm_eval.utils``: ``get_results_filenames``,
``get_sample_results_filenames``, ``get_file_task_name``, ``get_latest_filename``), so a
change in lm-eval's naming is met in one place. Folders our own commands write inside a run
(``outputs.OUTPUT_FOLDERS``: scores, report, leaderboard) are never read back as lm-eval's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sci_tasks.outputs import OUTPUT_FOLDERS

RESULTS_GLOB = "results_*.json"
SAMPLES_GLOB = "samples_*.jsonl"


def _listed(root: Path, pattern: str, recursive: bool) -> list[Path]:
    found = root.rglob(pattern) if recursive else root.glob(pattern)
    return sorted(
        p for p in found if p.is_file() and not OUTPUT_FOLDERS & set(p.relative_to(root).parts[:-1])
    )


def results_files(root: Path, recursive: bool = True) -> list[Path]:
    """lm-eval's results files under ``root`` (directly in it: ``recursive=False``), by
    path; none of our own outputs."""
    from lm_eval.utils import get_results_filenames

    # keyed by absolute path: lm-eval's helpers look for "/results_", which a file directly
    # in a relative root ("run_dir=.") would not show
    found = {p.absolute().as_posix(): p for p in _listed(Path(root), RESULTS_GLOB, recursive)}
    return [found[name] for name in get_results_filenames(list(found))]


def samples_files(root: Path, recursive: bool = True) -> list[Path]:
    """lm-eval's samples files under ``root`` (directly in it: ``recursive=False``), by
    path; none of our own outputs."""
    from lm_eval.utils import get_sample_results_filenames

    found = {p.absolute().as_posix(): p for p in _listed(Path(root), SAMPLES_GLOB, recursive)}
    return [found[name] for name in get_sample_results_filenames(list(found))]


def task_of(samples_file: Path) -> str:
    """The task a samples file logs (``samples_<task>_<time>.jsonl``)."""
    from lm_eval.utils import get_file_task_name

    return get_file_task_name(samples_file.name)


def stamp_of(path: Path) -> str:
    """The time in a results or samples file's name, as lm-eval wrote it (sorts as text)."""
    return path.name.rsplit("_", 1)[-1].removesuffix(".jsonl").removesuffix(".json")


def newest(paths: list[Path]) -> Path:
    """The file of ``paths`` with the latest time in its name (lm-eval's own choice)."""
    from lm_eval.utils import get_latest_filename

    by_name = {p.as_posix(): p for p in paths}
    return by_name[get_latest_filename(list(by_name))]


def samples_file(folder: Path, task: str, stamp: str) -> Path:
    """The samples file lm-eval writes for ``task`` in ``folder`` in the run of ``stamp``
    (the time its results file is named by)."""
    return folder / f"samples_{task}_{stamp}.jsonl"


def results_file(folder: Path, stamp: str) -> Path:
    """The results file lm-eval writes in ``folder`` for the run of ``stamp``."""
    return folder / f"results_{stamp}.json"


def read_results(path: Path) -> dict[str, Any]:
    """An lm-eval results file; a ValueError saying why when it is unreadable or no results
    file (no ``results`` object): the caller names the file as its message needs."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(str(exc)) from exc
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise ValueError("not an lm-eval results file")
    return data


def newest_samples(root: Path, prefix: str = "", recursive: bool = True) -> dict[str, Path]:
    """task -> its newest samples file under ``root``, for tasks named ``<prefix>...``. One
    model's run only: samples in several folders are refused (a ValueError), since a report
    must not mix models. Re-scored copies under ``scores/`` are skipped (point the reader
    at ``<run>/scores/<judge>`` to read them)."""
    by_task: dict[str, list[Path]] = {}
    for path in samples_files(root, recursive):
        task = task_of(path)
        # "scigen_rubric_" names the task scigen_rubric as well as scigen_rubric_<part>
        if task.startswith(prefix) or (prefix.endswith("_") and task == prefix[:-1]):
            by_task.setdefault(task, []).append(path)
    folders = sorted({p.parent for paths in by_task.values() for p in paths})
    if len(folders) > 1:
        raise ValueError(
            f"samples of several runs/models under {root}: {', '.join(map(str, folders))}; "
            "point the report at one of them"
        )
    return {task: newest(paths) for task, paths in by_task.items()}


def model_folders(root: Path) -> list[Path]:
    """Every folder under ``root`` (``root`` included) holding samples files: one model's
    run each."""
    return sorted({p.parent for p in samples_files(root)})
