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
blank = no value), ``jobs.csv`` and PNG plots.

Values come from the results files, except the SciMIF DRFR per functional group, which only
the logged samples carry (computed by ``sci_tasks.report.scimif``, never re-derived here).
A missing value is blank in the CSV and ``n/a`` in the Markdown, never 0.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sci_tasks import benchmarks, stats
from sci_tasks.benchmarks import Benchmark
from sci_tasks.data.jsonl import read_samples
from sci_tasks.data.locate import DataError
from sci_tasks.data.scimif import BENCHMARK as SCIMIF
from sci_tasks.data.scimif import SHORT
from sci_tasks.manifest import MACHINE_DERIVED, MANIFEST, NOT_DECIDING, _flat
from sci_tasks.metrics.constraints.registry import Group
from sci_tasks.report import markdown_table, newest_samples
from sci_tasks.report import scimif as scimif_report

OUT_NAME = "leaderboard"
_SKIP = {"scores", "report", OUT_NAME}  # sci-score / sci-report / our own output in a job

# --- benchmarks we know (sci_tasks.benchmarks) ---------------------------------------------

# SciMIF has its own columns: per discipline, Overall (mean ISR), DRFR per functional group.
DISCIPLINES = scimif_report.DISCIPLINES  # chemistry, geography, biology, material, physics
SCIMIF_TASK = {d: f"scimif_{s}" for d, s in SHORT.items()}
SCIMIF_METRICS = SCIMIF.columns
GROUPS = tuple(g.value for g in Group)  # the paper's ten functional groups

# Every other benchmark: its declared columns from its lm-eval group (or the group's splits).
# Other tasks of ours (SciMIF task types, SPM-Bench field tasks, ...) are left to sci-report.
POOLED = tuple(b for b in benchmarks.all_benchmarks() if b.name != SCIMIF.name)
OUR_PREFIXES = tuple(p for b in benchmarks.all_benchmarks() for p in b.prefixes)
COUNT_COLUMNS = {
    "SciMIF Overall disciplines",
    *(f"{b.title} {b.count_column}" for b in POOLED if b.count_column),
}

# Standard lm-eval tasks: the headline metric shown for each (lm-eval's results key). A task
# not listed here shows its first numeric, non-stderr metric in the order lm-eval wrote them;
# so does a listed task whose headline key is absent from its results.
HEADLINE: dict[str, str] = {
    "arc_easy": "acc_norm,none",
    "arc_challenge": "acc_norm,none",
    "hellaswag": "acc_norm,none",
    "piqa": "acc_norm,none",
    "openbookqa": "acc_norm,none",
    "winogrande": "acc,none",
    "boolq": "acc,none",
    "mmlu": "acc,none",
    "truthfulqa_mc2": "acc,none",
    "lambada_openai": "acc,none",
    "gsm8k": "exact_match,strict-match",
    "gsm8k_cot": "exact_match,strict-match",
    "ifeval": "prompt_level_strict_acc,none",
}
_NOT_METRICS = {"alias", "name", "sample_len", "sample_count", "samples"}

PLOTS = {
    "isr": "scimif_isr_by_discipline.png",
    "groups": "scimif_drfr_by_group.png",
    "spm": "spm_bench_spc_vs_sip_f1.png",
}


# --- reading the sweep --------------------------------------------------------------------


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

    @property
    def tasks(self) -> list[str]:
        return list(self.results.get("results", {}))

    @property
    def name(self) -> str:
        return self.folder.name

    @property
    def usable(self) -> bool:
        return self.status == "done" and self.results_file is not None


def find_jobs(sweep_dir: Path) -> list[Job]:
    """Every job folder of ``sweep_dir`` (or ``sweep_dir`` itself if it is one run)."""
    sweep_dir = Path(sweep_dir)
    if (sweep_dir / MANIFEST).is_file():
        folders = [sweep_dir]
    else:
        folders = [
            p
            for p in sorted(sweep_dir.iterdir())
            if p.is_dir()
            and p.name not in _SKIP
            and ((p / MANIFEST).exists() or (p / ".hydra").is_dir())
        ]
    return [read_job(folder) for folder in folders]


def read_job(folder: Path) -> Job:
    """The job's manifest status and, for a finished job, its newest results file."""
    path = folder / MANIFEST
    if not path.exists():
        # Hydra made the folder but the job never wrote its manifest (crashed at start-up)
        return Job(folder, "no manifest", model=_model_from_folder(folder))
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(manifest, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as exc:
        return Job(folder, "unreadable manifest", _model_from_folder(folder), note=str(exc))
    config = manifest.get("config") or {}
    model = (config.get("model") or {}).get("name") or _model_from_folder(folder)
    taskset = (config.get("tasks") or {}).get("name")
    job = Job(folder, str(manifest.get("status", "unknown")), str(model), taskset, config=config)
    if job.status == "running":
        job.note = "still running, or stopped before it finished"
    elif job.status == "failed":
        job.note = str(manifest.get("error") or "no error recorded")
    if job.status != "done":
        return job
    files = [
        p
        for p in folder.rglob("results_*.json")
        if not _SKIP & set(p.relative_to(folder).parts[:-1])
    ]
    if not files:
        job.note = "finished, but no results file"
        return job
    newest = max(files, key=lambda p: p.name)  # lm-eval's timestamps sort as text
    try:
        job.results = json.loads(newest.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        job.note = f"unreadable results file {newest.name}: {exc}"
        return job
    job.results_file = newest
    job.stamp = newest.stem.removeprefix("results_")
    if len(files) > 1:
        job.note = f"newest of {len(files)} results files"
    return job


def _model_from_folder(folder: Path) -> str | None:
    """The model part of a job folder name ``<model>__<task set>__<hash>`` (a hub id's
    ``/`` is ``__`` there too), for a job without a readable manifest."""
    parts = folder.name.rsplit("__", 2)
    return parts[0] if len(parts) == 3 and parts[0] else None


# --- one row per model --------------------------------------------------------------------


@dataclass
class Entry:
    """One task's results dict, with the job it came from."""

    task: str
    values: Mapping[str, Any]
    job: Job


@dataclass
class ModelRow:
    model: str
    jobs: list[Job]
    values: dict[str, float] = field(default_factory=dict)  # column -> value (NaN = n/a)
    standard: dict[tuple[str, str], float] = field(default_factory=dict)  # (task, key)
    scimif_disciplines: list[str] = field(default_factory=list)
    bundled: list[str] = field(default_factory=list)
    # column -> (task, logged sample) behind its value, and its bootstrap standard error
    samples: dict[str, list[tuple[str, dict[str, Any]]]] = field(default_factory=dict)
    stderr: dict[str, float] = field(default_factory=dict)


@dataclass
class Leaderboard:
    sweep_dir: Path
    jobs: list[Job]
    rows: list[ModelRow]
    notes: list[str]

    @property
    def disciplines(self) -> list[str]:
        present = {d for r in self.rows for d in r.scimif_disciplines}
        return [d for d in DISCIPLINES if d in present]

    @property
    def standard_columns(self) -> list[tuple[str, str]]:
        return sorted({k for r in self.rows for k in r.standard})

    def columns(self) -> list[str]:
        """Every value column of the CSV, in order (blocks with no value anywhere left out)."""
        cols: list[str] = []
        if self.disciplines:
            for d in self.disciplines:
                cols += [f"SciMIF {d} {label}" for label, _ in SCIMIF_METRICS]
            cols += ["SciMIF Overall", "SciMIF Overall disciplines"]
        if self._any("SciMIF DRFR "):
            cols += [f"SciMIF DRFR {g}" for g in GROUPS]
        for b in POOLED:
            if self._any(f"{b.title} "):
                cols += [f"{b.title} {b.count_column}"] if b.count_column else []
                cols += [f"{b.title} {label}" for label, _ in b.columns]
        cols += [standard_column(t, k) for t, k in self.standard_columns]
        return cols

    def _any(self, prefix: str) -> bool:
        return any(c.startswith(prefix) for r in self.rows for c in r.values)

    def value(self, row: ModelRow, column: str) -> float:
        for (task, key), v in row.standard.items():
            if standard_column(task, key) == column:
                return v
        return row.values.get(column, math.nan)


def standard_column(task: str, key: str) -> str:
    metric, _, filt = key.partition(",")
    return f"{task} {metric}" if filt in ("", "none") else f"{task} {metric} [{filt}]"


def build(sweep_dir: Path) -> Leaderboard:
    """Read every job of the sweep and merge the finished ones into one row per model
    configuration (see ``settings``)."""
    jobs = find_jobs(sweep_dir)
    notes: list[str] = []
    by_config: dict[tuple[str, str], list[Job]] = {}
    for job in jobs:
        if job.usable:
            key = (str(job.model), json.dumps(settings(job), sort_keys=True, default=str))
            by_config.setdefault(key, []).append(job)
    labels = row_labels({key: settings(group[0]) for key, group in by_config.items()})
    rows = [
        _model_row(labels[key], by_config[key], notes)
        for key in sorted(by_config, key=lambda k: labels[k])
    ]
    return Leaderboard(Path(sweep_dir), jobs, rows, notes)


# Settings that never change a job's numbers (besides the manifest's NOT_DECIDING): how
# fast or how often a server is asked. A row merges jobs that differ only in these.
NOT_IN_ROW = ("model.args.num_concurrent", "model.args.max_retries", "model.args.timeout")


def settings(job: Job) -> dict[str, Any]:
    """A job's configuration as dotted keys, without its task set (jobs of one model on
    several task sets share a row) and without the settings in NOT_DECIDING / NOT_IN_ROW."""
    flat = _flat({k: v for k, v in job.config.items() if k not in (*NOT_DECIDING, "tasks")})
    # an empty section (``gen_kwargs: {}``) sets nothing: the same as the key being absent
    skip = (*NOT_IN_ROW, *MACHINE_DERIVED)  # threads from idle cores: no row of their own
    return {k: v for k, v in flat.items() if k not in skip and v != {}}


def row_labels(configs: Mapping[tuple[str, str], Mapping[str, Any]]) -> dict[tuple[str, str], str]:
    """Each row's label: the model name, plus, when the model has several configurations,
    the settings in which they differ (``model.`` left off: ``gen_kwargs.max_gen_toks=64``;
    ``unset`` where a configuration lacks the setting)."""
    labels: dict[tuple[str, str], str] = {}
    for model in sorted({m for m, _ in configs}):
        keys = [k for k in configs if k[0] == model]
        if len(keys) == 1:
            labels[keys[0]] = model
            continue
        names = sorted({n for k in keys for n in configs[k]})
        differing = [n for n in names if len({_shown(configs[k].get(n, _UNSET)) for k in keys}) > 1]
        for key in keys:
            parts = [f"{n.removeprefix('model.')}={_shown(configs[key].get(n, _UNSET))}"
                     for n in differing]  # fmt: skip
            labels[key] = f"{model} ({', '.join(parts)})"
        if len({labels[k] for k in keys}) < len(keys):  # values cut short to the same text
            for i, key in enumerate(sorted(keys)):
                labels[key] += f" #{i + 1}"
    return labels


_UNSET = object()


def _shown(value: Any) -> str:
    """A setting's value in a row label: short, one line."""
    if value is _UNSET:
        return "unset"
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def _model_row(model: str, jobs: list[Job], notes: list[str]) -> ModelRow:
    jobs = sorted(jobs, key=lambda j: (j.stamp, j.name))  # oldest first: newer ones overwrite
    entries: dict[str, Entry] = {}
    for job in jobs:
        replaced: dict[str, list[str]] = {}  # older job -> its tasks this job replaces
        for task, values in job.results.get("results", {}).items():
            old = entries.get(task)
            if old is not None:
                replaced.setdefault(old.job.name, []).append(f"`{task}`")
                old.job.superseded.append(task)
            entries[task] = Entry(task, values, job)
        for old_name, tasks in replaced.items():
            old_job = next(j for j in jobs if j.name == old_name)
            notes.append(
                f"`{model}`: {', '.join(tasks)} in both `{old_name}` ({old_job.stamp}) and "
                f"`{job.name}` ({job.stamp}): the newer, `{job.name}`, is used."
            )
    row = ModelRow(model, [j for j in jobs if len(j.superseded) < len(j.tasks)])
    _scimif(row, entries, notes)
    for benchmark in POOLED:
        _pooled(row, entries, benchmark, notes)
    _standard(row, entries)
    _uncertainty(row, entries, notes)
    titles = [b.title for b in benchmarks.all_benchmarks()]
    for e in entries.values():
        bench = benchmarks.of_task(e.task)
        if bench and _num(e.values.get("bundled_samples,none")) > 0:
            if bench.title not in row.bundled:
                row.bundled.append(bench.title)
    row.bundled.sort(key=titles.index)  # not by which job finished first
    return row


def _scimif(row: ModelRow, entries: Mapping[str, Entry], notes: list[str]) -> None:
    """Per-discipline CSR / ISR / DRFR from the discipline tasks' results (from the samples
    only for a discipline without its own task, e.g. a ``scimif_all`` run); Overall = mean
    ISR over the disciplines present; DRFR per functional group from the samples."""
    scimif_jobs = [
        j for j in row.jobs if any(t.startswith("scimif") for t in j.results.get("results", {}))
    ]
    if not scimif_jobs:
        return
    samples_of: dict[str, list[scimif_report.Sample]] = {}
    for job in scimif_jobs:
        assert job.results_file is not None
        try:
            samples_of[job.name] = scimif_report.read_samples(job.results_file.parent)
        except ValueError as exc:
            notes.append(f"`{row.model}`: SciMIF samples of `{job.name}` not used: {exc}")
            samples_of[job.name] = []
    chosen: list[scimif_report.Sample] = []  # per discipline, the samples of one job
    no_samples: list[str] = []  # disciplines with results but no logged samples
    isrs: list[float] = []
    for d in DISCIPLINES:
        entry = entries.get(SCIMIF_TASK[d])
        if entry is not None:
            for label, key in SCIMIF_METRICS:
                row.values[f"SciMIF {d} {label}"] = _num(entry.values.get(key))
            source = entry.job
        else:  # no discipline task: the newest job whose samples hold this discipline
            holding = [j for j in scimif_jobs if any(s.discipline == d for s in samples_of[j.name])]
            if not holding:
                continue
            source = holding[-1]
            own = [s for s in samples_of[source.name] if s.discipline == d]
            table = scimif_report.discipline_table(own)
            for label, _ in SCIMIF_METRICS:
                row.values[f"SciMIF {d} {label}"] = _num(table[1][table[0].index(label)])
            notes.append(
                f"`{row.model}`: SciMIF {d} has no `{SCIMIF_TASK[d]}` results; its CSR / ISR / "
                f"DRFR are computed from the samples of `{source.name}`."
            )
        row.scimif_disciplines.append(d)
        isrs.append(row.values[f"SciMIF {d} ISR"])
        own = [s for s in samples_of.get(source.name, []) if s.discipline == d]
        if not own:
            no_samples.append(d)
        chosen += own
    if not isrs:
        return
    row.values["SciMIF Overall"] = sum(isrs) / len(isrs)  # NaN if a discipline has no ISR
    row.values["SciMIF Overall disciplines"] = float(len(isrs))
    if chosen:
        table = scimif_report.group_table(chosen)
        for line in table[1:]:
            row.values[f"SciMIF DRFR {line[0]}"] = _num(line[-1])  # the pooled "all" column
    if no_samples:
        notes.append(
            f"`{row.model}`: no SciMIF samples for {', '.join(no_samples)} (run with "
            "log_samples=true): "
            + ("no DRFR per group." if not chosen else "the DRFR per group leaves them out.")
        )


def _pooled(
    row: ModelRow, entries: Mapping[str, Entry], benchmark: Benchmark, notes: list[str]
) -> None:
    """A benchmark's headline values: its lm-eval group when present, otherwise the
    size-weighted mean over the subtasks present (what the group would report over them)."""
    group, tasks, metrics = benchmark.group, benchmark.splits, benchmark.columns
    title, count = benchmark.title, f"{benchmark.title} {benchmark.count_column}"
    if group in entries:
        chosen = entries[group]
        for label, key in metrics:
            row.values[f"{title} {label}"] = _num(chosen.values.get(key))
        if benchmark.count_column:
            row.values[count] = _num(chosen.values.get("sample_len"))
        newer = [t for t in tasks if t in entries and entries[t].job.stamp > chosen.job.stamp]
        if newer:
            notes.append(
                f"`{row.model}`: {title} values are the `{group}` group of `{chosen.job.name}`; "
                f"newer results of {', '.join(f'`{t}`' for t in newer)} alone are not in them."
            )
        return
    present = [entries[t] for t in tasks if t in entries]
    if not present:
        return
    sizes = [_num(e.values.get("sample_len")) for e in present]
    total = sum(sizes)
    for label, key in metrics:
        vals = [_num(e.values.get(key)) for e in present]
        row.values[f"{title} {label}"] = (
            sum(v * n for v, n in zip(vals, sizes, strict=True)) / total if total else math.nan
        )
    if benchmark.count_column:
        row.values[count] = total
    notes.append(
        f"`{row.model}`: no `{group}` group results; {title} values are the size-weighted "
        f"means over {', '.join(f'`{e.task}`' for e in present)}."
    )


def _standard(row: ModelRow, entries: Mapping[str, Entry]) -> None:
    """Standard tasks' headline metric; subtasks of a group that is present are left out."""
    inside: set[str] = set()
    for e in entries.values():
        subtasks = e.job.results.get("group_subtasks", {})
        if e.task in subtasks:
            inside |= _all_subtasks(e.task, subtasks)
    for task, e in entries.items():
        if task.startswith(OUR_PREFIXES) or task in inside:
            continue
        key = headline_key(task, e.values)
        if key is not None:
            row.standard[(task, key)] = _num(e.values.get(key))


# --- bootstrap standard errors and paired differences (sci_tasks.stats) ------------------


# column -> (metric, source tasks, lm-eval group whose job's samples are used when present)
def _bootstrap_columns() -> dict[str, tuple[str, tuple[str, ...], str | None]]:
    cols: dict[str, tuple[str, tuple[str, ...], str | None]] = {}
    for d, task in SCIMIF_TASK.items():
        for label, key in SCIMIF_METRICS:
            cols[f"SciMIF {d} {label}"] = (key.split(",")[0], (task,), None)
    for b in POOLED:
        for label, key in b.columns:
            metric = key.split(",")[0]
            if metric in stats.SAMPLE_PARTS:  # Delta is no ratio of sums: no ± for it
                cols[f"{b.title} {label}"] = (metric, b.splits, b.group)
    return cols


BOOTSTRAP_COLUMNS = _bootstrap_columns()


def _uncertainty(row: ModelRow, entries: Mapping[str, Entry], notes: list[str]) -> None:
    """The logged samples behind each bootstrap column of ``row`` (the job its value came
    from) and their bootstrap standard error; SciMIF Overall combines the disciplines'
    errors (independent samples: sqrt of the summed variances over the count)."""
    cache: dict[tuple[str, str], list[dict[str, Any]] | None] = {}
    for column, (metric, tasks, group) in BOOTSTRAP_COLUMNS.items():
        if math.isnan(row.values.get(column, math.nan)):
            continue
        pairs: list[tuple[str, dict[str, Any]]] = []
        for task in tasks:
            chosen = entries.get(group) if group else None  # the group's job, when present
            chosen = chosen or entries.get(task)
            source = chosen.job if chosen else None
            if source is None or source.results_file is None:
                continue
            key = (source.name, task)
            if key not in cache:
                cache[key] = _logged(source, task, row.model, notes)
            pairs += [(task, r) for r in cache[key] or []]
        if pairs:
            row.samples[column] = pairs
            row.stderr[column] = stats.metric_estimate(metric, (r for _, r in pairs)).stderr
    isr = [row.stderr.get(f"SciMIF {d} ISR", math.nan) for d in row.scimif_disciplines]
    if isr:
        row.stderr["SciMIF Overall"] = math.sqrt(sum(e * e for e in isr)) / len(isr)


def _logged(job: Job, task: str, model: str, notes: list[str]) -> list[dict[str, Any]] | None:
    """The task's logged samples in ``job`` (None, with a note, when there are none)."""
    assert job.results_file is not None
    path = newest_samples(job.results_file.parent, task).get(task)
    if path is None:
        return None  # run without log_samples: no ±, as for any value without samples
    try:
        return read_samples(path)
    except (OSError, DataError) as exc:
        notes.append(f"`{model}`: no ± for `{task}` of `{job.name}`: {exc}")
        return None


@dataclass(frozen=True)
class Pairwise:
    a: str
    b: str
    column: str
    difference: stats.Difference


def pairwise(board: Leaderboard) -> list[Pairwise]:
    """For each pair of models and each column both have samples for: the paired
    bootstrap difference (a - b) on the documents both answered, with its 95% interval.
    A pair that shares no document stays in the list with ``n`` 0, so every writer can say
    that no paired comparison was possible instead of leaving it out."""
    out = []
    for i, a in enumerate(board.rows):
        for b in board.rows[i + 1 :]:
            for column, (metric, _, _) in BOOTSTRAP_COLUMNS.items():
                if column in a.samples and column in b.samples:
                    diff = stats.paired_difference(
                        stats.keyed_parts(metric, a.samples[column]),
                        stats.keyed_parts(metric, b.samples[column]),
                    )
                    out.append(Pairwise(a.model, b.model, column, diff))
    return out


def _all_subtasks(group: str, tree: Mapping[str, list[str]]) -> set[str]:
    out: set[str] = set()
    for sub in tree.get(group, []):
        out |= {sub, *_all_subtasks(sub, tree)}
    return out


def headline_key(task: str, values: Mapping[str, Any]) -> str | None:
    """The results key shown for a standard task (see ``HEADLINE``)."""
    key = HEADLINE.get(task)
    if key is not None and key in values:
        return key
    for k, v in values.items():
        if k in _NOT_METRICS or "_stderr" in k or isinstance(v, bool):
            continue
        if isinstance(v, (int, float)):
            return k
    return None


def _num(value: Any) -> float:
    """A metric value as a float; anything else (absent, "N/A", a string) is NaN."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return math.nan
    return float(value)


# --- writing ------------------------------------------------------------------------------


def write(board: Leaderboard, out_dir: Path) -> list[Path]:
    """Markdown, CSV (leaderboard and jobs) and the plots; returns the written paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    plots = write_plots(board, out_dir)
    csv_path = out_dir / "leaderboard.csv"
    with csv_path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        cols = board.columns()
        writer.writerow(["model", *cols, "bundled sample data", "jobs"])  # lists: "; "
        for row in board.rows:
            writer.writerow(
                [
                    row.model,
                    *(_csv(board.value(row, c), c) for c in cols),
                    "; ".join(row.bundled),
                    "; ".join(j.name for j in row.jobs),
                ]
            )
    jobs_path = out_dir / "jobs.csv"
    with jobs_path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(JOB_COLUMNS)
        writer.writerows(_job_cells(job, board.sweep_dir) for job in board.jobs)
    pairs_path = out_dir / "pairwise.csv"
    with pairs_path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(PAIRWISE_COLUMNS)
        for p in pairwise(board):
            d = p.difference
            writer.writerow([p.a, p.b, p.column, *(_csv(v, "") for v in
                             (d.diff, d.low, d.high, d.stderr)), d.n])  # fmt: skip
    md_path = out_dir / "leaderboard.md"
    md_path.write_text(markdown(board, plots), encoding="utf-8")
    return [md_path, csv_path, jobs_path, pairs_path, *plots]


def _csv(value: float, column: str) -> str:
    # repr of a float round-trips exactly; NaN (no value) is an empty cell, never 0
    if math.isnan(value):
        return ""
    return str(int(value)) if column in COUNT_COLUMNS else repr(value)


def _md(value: float, column: str) -> str:
    if math.isnan(value):
        return "n/a"
    return str(int(value)) if column in COUNT_COLUMNS else f"{value:.4f}"


JOB_COLUMNS = ["job", "model", "task set", "status", "in leaderboard", "results", "note"]


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


PAIRWISE_COLUMNS = ["model a", "model b", "column", "a - b", "95% low", "95% high", "stderr",
                    "paired samples"]  # fmt: skip


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
    head = ["model", *(c.removeprefix(strip) for c in cols)]
    body = [[r.model, *(_md(board.value(r, c), c) + _pm(r, c) for c in cols)] for r in board.rows]
    return markdown_table(head, body)


def markdown(board: Leaderboard, plots: Sequence[Path]) -> str:
    cols = board.columns()
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
    sections = [
        ("SciMIF", [c for c in cols if c.startswith("SciMIF ")
                    and not c.startswith("SciMIF DRFR ")], "SciMIF "),
        ("SciMIF DRFR by functional group", [c for c in cols if c.startswith("SciMIF DRFR ")],
         "SciMIF DRFR "),
        *((b.title, [c for c in cols if c.startswith(f"{b.title} ")], f"{b.title} ")
          for b in POOLED),
        ("Standard tasks", [standard_column(t, k) for t, k in board.standard_columns], ""),
    ]  # fmt: skip
    for title, section_cols, strip in sections:
        if section_cols:
            lines += [f"## {title}", "", _table(board, section_cols, strip), ""]
    pairs = pairwise(board)
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
    lines += ["", "## Columns", "", *COLUMN_DOCS, ""]
    return "\n".join(lines)


COLUMN_DOCS = [
    "- `SciMIF <discipline> CSR / ISR / DRFR`: the discipline task's values "
    "(`scimif_chem`, ...) from the results file; a discipline without its own task "
    "(e.g. only `scimif_all` was run) is computed from the samples.",
    "- `SciMIF Overall`: mean ISR over the disciplines present in the row "
    "(`Overall disciplines` says how many; compare models only over the same set); "
    "n/a if one of them has no ISR.",
    "- `SciMIF DRFR <group>`: DRFR per functional group, pooled over the row's disciplines "
    "(ratio of sums over the scored constraints of that group), from the logged samples.",
    *(
        f"- `{b.title} {' / '.join(label for label, _ in b.columns)}`: {b.leaderboard_doc}"
        for b in POOLED
    ),
    "- Standard tasks: `<task> <metric> [filter]`, the headline metric of "
    "`sci_tasks.leaderboard.HEADLINE` (e.g. arc_easy acc_norm, gsm8k exact_match "
    "[strict-match]); other tasks: their first numeric, non-stderr metric. Subtasks of a "
    "group that is present are left out.",
    "- n/a: no value (task not run, or nothing scored); never 0.",
    "- `± x`: bootstrap standard error over the logged samples behind the value "
    "(`sci_tasks.stats`, seeded; group values: the pooled samples of the group's tasks); "
    "SciMIF Overall: the disciplines' errors combined. No ± without logged samples.",
]


# --- plots --------------------------------------------------------------------------------


def write_plots(board: Leaderboard, out_dir: Path) -> list[Path]:
    """The plots that the leaderboard has data for."""
    written = []
    models = [r.model for r in board.rows]
    if board.disciplines:
        cats = [*board.disciplines, "Overall"]
        data = [
            [board.value(r, f"SciMIF {d} ISR") for d in board.disciplines]
            + [board.value(r, "SciMIF Overall")]
            for r in board.rows
        ]
        path = out_dir / PLOTS["isr"]
        title = "SciMIF: ISR per discipline (Overall = mean over disciplines)"
        errors = [
            [r.stderr.get(f"SciMIF {d} ISR", math.nan) for d in board.disciplines]
            + [r.stderr.get("SciMIF Overall", math.nan)]
            for r in board.rows
        ]
        _grouped_bars(path, cats, models, data, "ISR", title, last_apart=True, errors=errors)
        written.append(path)
    if any(not math.isnan(board.value(r, f"SciMIF DRFR {g}")) for r in board.rows for g in GROUPS):
        grid = [[board.value(r, f"SciMIF DRFR {g}") for g in GROUPS] for r in board.rows]
        path = out_dir / PLOTS["groups"]
        title = "SciMIF: DRFR per functional group (pooled over the disciplines of each model)"
        _heatmap(path, models, list(GROUPS), grid, title)
        written.append(path)
    spm = [r for r in board.rows if not math.isnan(board.value(r, "SPM-Bench SIP-F1"))]
    if spm:
        series = ["SPC", "SIP-F1"]
        # one group per model, one bar per metric: the gap between the two bars is Delta
        data = [[board.value(r, f"SPM-Bench {s}") for r in spm] for s in series]
        errors = [[r.stderr.get(f"SPM-Bench {s}", math.nan) for r in spm] for s in series]
        path = out_dir / PLOTS["spm"]
        title = "SPM-Bench: SPC vs SIP-F1 per model"
        _grouped_bars(path, [r.model for r in spm], series, data, "score", title, errors=errors)
        written.append(path)
    return written


COLOURS = ["#3b6fb6", "#e67e22", "#2e8b57", "#c0392b", "#8e44ad", "#16a085", "#7f8c8d",
           "#d4ac0d", "#2c3e50", "#e84393"]  # fmt: skip


def _style(i: int, n: int) -> tuple[str, str | None]:
    """Colour (and past 20 series, a hatch) of series ``i`` of ``n``: no two series alike."""
    if n <= len(COLOURS):
        return COLOURS[i], None
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    colour = to_hex(colormaps["tab20"](i % 20))
    return colour, [None, "//", "..", "xx"][(i // 20) % 4]


def _grouped_bars(
    path: Path,
    categories: Sequence[str],
    series: Sequence[str],
    data: Sequence[Sequence[float]],  # data[series][category]
    ylabel: str,
    title: str,
    last_apart: bool = False,
    errors: Sequence[Sequence[float]] | None = None,  # like data: ± 1 bootstrap stderr
) -> None:
    """Bars of each series side by side per category (``last_apart``: a rule before the last
    category, e.g. an Overall that is not one more discipline), with error bars where
    ``errors`` has a value."""
    import numpy as np
    from matplotlib.figure import Figure

    n_cat, n_ser = len(categories), len(series)
    width = 0.8 / n_ser
    label_w = 0.085 * max((len(c) for c in categories), default=1) + 0.25  # inches per label
    per_cat = 0.28 * n_ser + 0.5  # inches per category for the bars
    fig_w = min(max(6.5, 1.2 + n_cat * per_cat), 18.0)
    long = label_w > (fig_w - 1.2) / n_cat  # horizontal labels would collide: slant them
    fig = Figure(figsize=(fig_w, 4.8), layout="constrained")
    ax = fig.add_subplot()
    x = np.arange(n_cat)
    small = n_ser * n_cat > 24
    for i, (name, values) in enumerate(zip(series, data, strict=True)):
        pos = x - 0.4 + width * (i + 0.5)
        heights = [0.0 if math.isnan(v) else v for v in values]
        errs = [0.0 if math.isnan(e) else e for e in (errors[i] if errors else [math.nan] * n_cat)]
        colour, hatch = _style(i, n_ser)
        ink = colour if n_ser <= len(COLOURS) else "#333333"  # pale tab20 text is unreadable
        # the edge keeps a 0.00 bar visible as a coloured line on the axis
        ax.bar(pos, heights, width * 0.92, label=name, color=colour, edgecolor=colour, lw=1.2,
               hatch=hatch)  # fmt: skip
        if any(errs):
            ax.errorbar(pos, heights, yerr=errs, fmt="none", ecolor="#222222", elinewidth=1,
                        capsize=3)  # fmt: skip
        for p, v, e in zip(pos, values, errs, strict=True):
            text = "n/a" if math.isnan(v) else f"{v:.2f}"
            top = min((0.0 if math.isnan(v) else v) + e, 1.08)  # inside the axes above 1.0
            ax.text(p, top + 0.015, text, ha="center", va="bottom",
                    fontsize=7 if small else 8, rotation=90 if small else 0,
                    color="grey" if math.isnan(v) else ink)  # fmt: skip
    spare = max(0.0, (3 - n_cat) / 2)  # one or two categories: keep the bars slim
    ax.set_xlim(-0.5 - spare, n_cat - 0.5 + spare)
    if last_apart and n_cat > 1:
        ax.axvline(n_cat - 1.5, color="grey", linestyle=":", linewidth=1)
    ax.set_xticks(x)
    ax.set_xticklabels(categories, rotation=25 if long else 0, ha="right" if long else "center")
    ax.set_ylim(0.0, 1.15)
    ax.set_yticks([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
    with_errors = errors is not None and any(e > 0 for row in errors for e in row)
    ax.set_ylabel(f"{ylabel} (error bars: ± 1 bootstrap s.e.)" if with_errors else ylabel)
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    name_w = 0.08 * max(len(s) for s in series) + 0.5  # legend entries in rows under the plot
    ncol = max(1, min(n_ser, int(fig_w // name_w)))
    fig.legend(loc="outside lower center", ncol=ncol, frameon=False, fontsize=9)
    _save(fig, path)


def _heatmap(
    path: Path,
    rows: Sequence[str],
    cols: Sequence[str],
    grid: Sequence[Sequence[float]],
    title: str,
) -> None:
    import numpy as np
    from matplotlib import colormaps
    from matplotlib.figure import Figure

    values = np.ma.masked_invalid(np.array(grid, dtype=float))
    name_w = max((len(r) for r in rows), default=4) * 0.075
    fig = Figure(figsize=(2.0 + name_w + 0.85 * len(cols), max(3.2, 1.8 + 0.45 * len(rows))),
                 layout="constrained")  # fmt: skip
    ax = fig.add_subplot()
    cmap = colormaps["viridis"].with_extremes(bad="#e6e6e6")
    image = ax.imshow(values, cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
    for i in range(len(rows)):
        for j in range(len(cols)):
            v = float(grid[i][j])
            text = "n/a" if math.isnan(v) else f"{v:.2f}"
            colour = "#555555" if math.isnan(v) else ("black" if v > 0.6 else "white")
            ax.text(j, i, text, ha="center", va="center", fontsize=8, color=colour)
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels(cols, rotation=30, ha="right")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(rows)
    ax.set_title(title)
    fig.colorbar(image, ax=ax, label="DRFR", fraction=0.04)
    _save(fig, path)


def _save(fig: Any, path: Path) -> None:
    # no timestamp / software metadata: the same sweep gives the same file
    fig.savefig(path, dpi=110, metadata={"Software": None})


# --- CLI ----------------------------------------------------------------------------------


def main(argv: Iterable[str] | None = None) -> None:
    """``sci-leaderboard SWEEP_DIR [--out DIR]``; prints the written files."""
    parser = argparse.ArgumentParser(
        prog="sci-leaderboard", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("sweep_dir", type=Path, help="a sweep folder (sci-eval-sweeps/<name>)")
    parser.add_argument(
        "--out", type=Path, default=None, help=f"output folder (SWEEP_DIR/{OUT_NAME})"
    )
    args = parser.parse_args(None if argv is None else list(argv))
    sweep_dir = args.sweep_dir.resolve()
    if not sweep_dir.is_dir():
        parser.error(f"{sweep_dir} is not a folder")
    board = build(sweep_dir)
    if not board.jobs:
        parser.exit(1, f"no sci-eval job folders (with {MANIFEST}) under {sweep_dir}\n")
    for path in write(board, (args.out or sweep_dir / OUT_NAME).resolve()):
        print(path)
    for job in board.jobs:
        if job.status == "failed":
            print(f"failed: {job.name}: {job.note}")
        elif not job.usable:
            print(f"unfinished: {job.name} ({job.status})")


if __name__ == "__main__":
    main()
