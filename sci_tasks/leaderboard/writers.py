"""The leaderboard's files: ``leaderboard.md``, ``leaderboard.csv`` (full precision, blank =
no value), ``jobs.csv``, ``pairwise.csv`` and the sections' plots. Tables through
``sci_tasks.outputs.markdown_table``."""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from pathlib import Path

from sci_tasks import stats
from sci_tasks.leaderboard.discovery import Job
from sci_tasks.leaderboard.plots import write_plots
from sci_tasks.leaderboard.statistics import Pairwise, pairwise
from sci_tasks.leaderboard.table import Leaderboard, ModelRow, standard_column
from sci_tasks.outputs import markdown_table

JOB_COLUMNS = ["job", "model", "task set", "status", "in leaderboard", "results", "note"]
PAIRWISE_COLUMNS = ["model a", "model b", "column", "a - b", "95% low", "95% high", "stderr",
                    "paired samples"]  # fmt: skip


def write(board: Leaderboard, out_dir: Path) -> list[Path]:
    """Markdown, CSV (leaderboard, jobs, paired differences) and the plots; returns the
    written paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    plots = write_plots(board, out_dir)
    counts = board.count_columns
    csv_path = out_dir / "leaderboard.csv"
    with csv_path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        cols = board.columns()
        writer.writerow(["model", *cols, "bundled sample data", "limit", "jobs"])  # lists: "; "
        for row in board.rows:
            writer.writerow(
                [
                    row.model,
                    *(_csv(board.value(row, c), c in counts) for c in cols),
                    "; ".join(row.bundled),
                    "; ".join(row.limits),
                    "; ".join(j.name for j in row.jobs),
                ]
            )
    jobs_path = out_dir / "jobs.csv"
    with jobs_path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(JOB_COLUMNS)
        writer.writerows(_job_cells(job, board.sweep_dir) for job in board.jobs)
    pairs = pairwise(board)
    pairs_path = out_dir / "pairwise.csv"
    with pairs_path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(PAIRWISE_COLUMNS)
        for p in pairs:
            d = p.difference
            writer.writerow([p.a, p.b, p.column, *(_csv(v) for v in
                             (d.diff, d.low, d.high, d.stderr)), d.n])  # fmt: skip
    md_path = out_dir / "leaderboard.md"
    md_path.write_text(markdown(board, plots, pairs), encoding="utf-8")
    return [md_path, csv_path, jobs_path, pairs_path, *plots]


def _csv(value: float, count: bool = False) -> str:
    # repr of a float round-trips exactly; NaN (no value) is an empty cell, never 0
    if math.isnan(value):
        return ""
    return str(int(value)) if count else repr(value)


def _md(value: float, count: bool) -> str:
    if math.isnan(value):
        return "n/a"
    return str(int(value)) if count else f"{value:.4f}"


def _job_cells(job: Job, root: Path) -> list[str]:
    used = "yes" if job.usable else "no"
    if job.usable and job.superseded:
        n = len(job.superseded)
        used = "no (superseded)" if n == len(job.tasks) else f"partly ({n} tasks superseded)"
    results = _rel(job.results_file, root)
    return [job.name, job.model or "", job.taskset or "", job.status, used, results, job.note]


def _rel(path: Path | None, root: Path) -> str:
    if path is None:
        return ""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _pm(row: ModelRow, column: str) -> str:
    """`` ± <bootstrap stderr>`` when the column's value has one."""
    err = row.stderr.get(column, math.nan)
    return (
        "" if math.isnan(err) or math.isnan(row.values.get(column, math.nan)) else f" ± {err:.4f}"
    )


def _pairwise_markdown(pairs: Sequence[Pairwise]) -> list[str]:
    lines = [
        "## Paired differences",
        "",
        f"a - b on the documents both models answered (matched by task and the record's own "
        f"fields, whatever the run's judge or image budget), {stats.ITERS} paired bootstrap "
        "resamples (seeded), 95% percentile interval; **bold**: the interval excludes 0.",
        "",
    ]
    for a, b in dict.fromkeys((p.a, p.b) for p in pairs):
        body = []
        unpaired = [p.column for p in pairs if (p.a, p.b) == (a, b) and not p.difference.n]
        lines += [f"### {a} - {b}", ""]
        if unpaired:
            lines += [
                f"No sample in common for {', '.join(f'`{c}`' for c in unpaired)}: the two rows "
                "answered different documents (other data, tasks or limit), so no paired "
                "comparison is possible there.",
                "",
            ]
        for p in pairs:
            if (p.a, p.b) != (a, b) or not p.difference.n:
                continue
            d = p.difference
            diff = "n/a" if math.isnan(d.diff) else f"{d.diff:+.4f}"
            interval = "n/a" if math.isnan(d.low) else f"[{d.low:+.4f}, {d.high:+.4f}]"
            if d.significant:
                diff, interval = f"**{diff}**", f"**{interval}**"
            body.append([p.column, diff, interval, str(d.n)])
        if body:
            lines.append(
                markdown_table(["column", "a - b", "95% interval", "paired samples"], body)
            )
            lines.append("")
    return lines


def _table(board: Leaderboard, cols: Sequence[str], strip: str = "") -> str:
    counts = board.count_columns
    head = ["model", *(c.removeprefix(strip) for c in cols)]
    body = [
        [r.model + r.flags, *(_md(board.value(r, c), c in counts) + _pm(r, c) for c in cols)]
        for r in board.rows
    ]
    return markdown_table(head, body)


def markdown(board: Leaderboard, plots: Sequence[Path], pairs: Sequence[Pairwise]) -> str:
    done = [j for j in board.jobs if j.usable]
    lines = [
        f"# Leaderboard: {board.sweep_dir.name}",
        "",
        f"Sweep `{board.sweep_dir}`: {len(board.jobs)} job(s), {len(done)} finished, "
        f"{len(board.rows)} row(s). One row per model configuration (`config.model.name`, "
        "plus the settings that differ between its jobs, task sets aside); rows in name "
        "order (no ranking across benchmarks).",
        "",
    ]
    unfinished = [j for j in board.jobs if not j.usable]
    if unfinished:
        lines += ["**Jobs not in the leaderboard (unfinished, or without results):**", ""]
        lines += [
            f"- `{j.name}` ({j.model or '?'}, {j.taskset or '?'}): "
            f"{j.status}{'; ' + j.note if j.note else ''}"
            for j in unfinished
        ]
        lines.append("")
    bundled = [r.model for r in board.rows if r.bundled]
    if bundled:
        lines += [
            "**Bundled sample data** was used for: "
            + "; ".join(f"{r.model} ({', '.join(r.bundled)})" for r in board.rows if r.bundled)
            + ". Those numbers are not benchmark results.",
            "",
        ]
    limited = [r for r in board.rows if r.limits]
    if limited:
        lines += [
            "**Limit runs** (a `limit` of samples per task; marked `[limit=N]`): "
            + "; ".join(f"{r.model} ({', '.join(r.limits)})" for r in limited)
            + ". Those numbers are NOT full runs.",
            "",
        ]
    tables = [t for part in board.sections for t in part.tables(board)]
    tables.append(
        ("Standard tasks", [standard_column(t, k) for t, k in board.standard_columns], "")
    )
    for title, section_cols, strip in tables:
        if section_cols:
            lines += [f"## {title}", "", _table(board, section_cols, strip), ""]
    if pairs:
        lines += _pairwise_markdown(pairs)
    if plots:
        lines += ["## Plots", ""]
        lines += [f"![{p.stem}]({p.name})" for p in plots]
        lines.append("")
    if board.notes:
        lines += ["## Notes", "", *(f"- {n}" for n in board.notes), ""]
    lines += ["## Jobs", ""]
    jobs = [_job_cells(j, board.sweep_dir) for j in board.jobs]
    lines.append(markdown_table(JOB_COLUMNS, jobs))
    lines += ["", "## Columns", "", *column_docs(board), ""]
    return "\n".join(lines)


def column_docs(board: Leaderboard) -> list[str]:
    """The "Columns" lines: each registered benchmark's, then the common ones."""
    combined = "".join(f"; {doc}" for part in board.sections for doc in part.error_docs())
    return [
        *(doc for part in board.sections for doc in part.docs()),
        "- Standard tasks: `<task> <metric> [filter]`, the headline metric of "
        "`sci_tasks.leaderboard.HEADLINE` (e.g. arc_easy acc_norm, gsm8k exact_match "
        "[strict-match]); other tasks: their first numeric, non-stderr metric. Subtasks of a "
        "group that is present are left out.",
        "- n/a: no value (task not run, or nothing scored); never 0.",
        "- `± x`: bootstrap standard error over the logged samples behind the value "
        "(`sci_tasks.stats`, seeded; group values: the pooled samples of the group's tasks)"
        f"{combined}. No ± without logged samples.",
    ]
