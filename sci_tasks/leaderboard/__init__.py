"""``sci-leaderboard SWEEP_DIR [--out DIR]``: one leaderboard for a whole ``sci-eval -m`` sweep.

A sweep folder (``sci-eval-sweeps/<name>/``) holds one job folder per model x task set, each
with ``manifest.json`` and lm-eval's ``<model>/results_*.json`` / ``samples_*.jsonl``. The
leaderboard has one row per model configuration (``config.model.name`` of the manifest and
every other setting except the task set): the tasks of all its finished jobs are merged into
that row, and when two jobs gave the same task the newer results file wins (the Markdown says
which). Jobs of one model that differ in other settings (e.g. generation settings) get a row
each, labelled by the settings that differ: ``smollm2 (gen_kwargs.max_gen_toks=64)``.
Unfinished jobs are listed, never dropped silently. Output (default
``SWEEP_DIR/leaderboard/``): ``leaderboard.md``, ``leaderboard.csv`` (full precision,
blank = no value), ``jobs.csv``, ``pairwise.csv`` and PNG plots.

Every registered benchmark has its columns (``sections``: its group's values, or lm-eval's
group aggregation over the splits present, each with a bootstrap ±); a benchmark's
``leaderboard`` hook adds its own columns and plots. Values come from the results files,
except those only the logged samples carry (computed by the benchmark's own modules). A
missing value is blank in the CSV and ``n/a`` in the Markdown, never 0.

The parts, one job each: ``discovery`` (jobs, manifests, newest results), ``rows`` (one
row per model configuration), ``sections`` (each benchmark's columns, the hook interface),
``statistics`` (± and paired differences from ``sci_tasks.stats``), ``writers`` (Markdown
and CSV) and ``plots``.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path

from sci_tasks.leaderboard.discovery import Job, _model_from_folder, find_jobs, read_job
from sci_tasks.leaderboard.plots import write_plots
from sci_tasks.leaderboard.rows import HEADLINE, build, headline_key, row_labels, settings
from sci_tasks.leaderboard.sections import ErrorSource, Section
from sci_tasks.leaderboard.statistics import Pairwise, pairwise
from sci_tasks.leaderboard.table import Entry, Leaderboard, ModelRow, standard_column
from sci_tasks.leaderboard.writers import markdown, write
from sci_tasks.manifest import MANIFEST

__all__ = [
    "HEADLINE",
    "OUT_NAME",
    "Entry",
    "ErrorSource",
    "Job",
    "Leaderboard",
    "ModelRow",
    "Pairwise",
    "Section",
    "_model_from_folder",
    "build",
    "find_jobs",
    "headline_key",
    "main",
    "markdown",
    "pairwise",
    "read_job",
    "row_labels",
    "settings",
    "standard_column",
    "write",
    "write_plots",
]

OUT_NAME = "leaderboard"  # the output folder inside the sweep (one of OUTPUT_FOLDERS)


def main(argv: Iterable[str] | None = None) -> None:
    """``sci-leaderboard SWEEP_DIR [--out DIR]``; prints the written files."""
    parser = argparse.ArgumentParser(
        prog="sci-leaderboard", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument(
        "sweep_dir",
        type=Path,
        help="a sweep folder (sci-eval-sweeps/<name>), a run, or any folder holding lm-eval "
        "results (lm_eval --output_path folders)",
    )
    parser.add_argument(
        "--out", type=Path, default=None, help=f"output folder (SWEEP_DIR/{OUT_NAME})"
    )
    args = parser.parse_args(None if argv is None else list(argv))
    sweep_dir = args.sweep_dir.resolve()
    if not sweep_dir.is_dir():
        parser.error(f"{sweep_dir} is not a folder")
    try:
        board = build(sweep_dir)
    except (RuntimeError, ValueError) as exc:  # a plugin that cannot load, a bad group YAML
        parser.exit(2, f"sci-leaderboard: error: {exc}\n")
    if not board.jobs:
        parser.exit(
            1,
            f"no sci-eval job folders (with {MANIFEST}) or lm-eval results files "
            f"(results_*.json) under {sweep_dir}\n",
        )
    for path in write(board, (args.out or sweep_dir / OUT_NAME).resolve()):
        print(path)
    for job in board.jobs:
        if job.status == "failed":
            print(f"failed: {job.name}: {job.note}")
        elif not job.usable:
            print(f"unfinished: {job.name} ({job.status})")
