"""Reports built from the files of an lm-eval run (tables and plots), one module per benchmark."""

from __future__ import annotations

from pathlib import Path

_SKIP = {"scores", "report"}  # sci-score and sci-report outputs inside a run folder


def newest_samples(run_dir: Path, prefix: str) -> dict[str, Path]:
    """task -> its newest ``samples_<task>_<timestamp>.jsonl`` under ``run_dir``, for tasks
    named ``<prefix>...``. One model's run only: samples in several folders are refused,
    since a report must not mix models. Re-scored copies under ``scores/`` are skipped
    (point the report at ``<run>/scores/<judge>`` to report on them)."""
    found = [
        p
        for p in sorted(run_dir.rglob(f"samples_{prefix}*.jsonl"))
        if not _SKIP & set(p.relative_to(run_dir).parts[:-1])
    ]
    folders = sorted({p.parent for p in found})
    if len(folders) > 1:
        raise ValueError(
            f"samples of several runs/models under {run_dir}: {', '.join(map(str, folders))}; "
            "point the report at one of them"
        )
    newest: dict[str, Path] = {}
    for path in found:  # timestamps in the names sort as text
        task = path.stem.removeprefix("samples_").rsplit("_", 1)[0]
        if task not in newest or path.name > newest[task].name:
            newest[task] = path
    return newest
