"""One row per model configuration: the finished jobs of a model merged into one row.

A row is ``config.model.name`` plus every other setting of the manifest except the task set
and the settings that never change a job's numbers; the tasks of all its jobs are merged,
and when two jobs gave the same task the newer results file wins (a note says which). Each
registered benchmark's section fills its columns; standard lm-eval tasks show their
headline metric.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sci_tasks import registry
from sci_tasks.leaderboard import sections, statistics
from sci_tasks.leaderboard.discovery import Job, find_jobs
from sci_tasks.leaderboard.sections import Section
from sci_tasks.leaderboard.table import Entry, Leaderboard, ModelRow, number
from sci_tasks.manifest import MACHINE_DERIVED, NOT_DECIDING, _flat
from sci_tasks.outputs import metric_keys

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

# Settings that never change a job's numbers (besides the manifest's NOT_DECIDING): how
# fast or how often a server is asked. A row merges jobs that differ only in these.
NOT_IN_ROW = ("model.args.num_concurrent", "model.args.max_retries", "model.args.timeout")


def build(sweep_dir: Path) -> Leaderboard:
    """Read every job of the sweep and merge the finished ones into one row per model
    configuration (see ``settings``)."""
    jobs = find_jobs(sweep_dir)
    parts = sections.registered()
    notes: list[str] = []
    by_config: dict[tuple[str, str], list[Job]] = {}
    for job in jobs:
        if job.usable:
            key = (str(job.model), json.dumps(settings(job), sort_keys=True, default=str))
            by_config.setdefault(key, []).append(job)
    labels = row_labels({key: settings(group[0]) for key, group in by_config.items()})
    rows = [
        _model_row(labels[key], by_config[key], parts, notes)
        for key in sorted(by_config, key=lambda k: labels[k])
    ]
    return Leaderboard(Path(sweep_dir), jobs, rows, notes, parts)


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


def _model_row(
    model: str, jobs: list[Job], parts: tuple[Section, ...], notes: list[str]
) -> ModelRow:
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
    for part in parts:
        part.fill(row, entries, notes)
    _standard(row, entries)
    statistics.uncertainty(row, entries, parts, notes)
    titles = [b.title for b in registry.all_benchmarks()]
    for e in entries.values():
        bench = registry.of_task(e.task)
        if bench and number(e.values.get("bundled_samples,none")) > 0:
            if bench.title not in row.bundled:
                row.bundled.append(bench.title)
    row.bundled.sort(key=titles.index)  # not by which job finished first
    used = {e.job.name for e in entries.values()}
    limits = {j.limit for j in row.jobs if j.name in used and j.limit is not None}
    row.limits = [f"limit={limit}" for limit in sorted(limits)]
    return row


def _standard(row: ModelRow, entries: Mapping[str, Entry]) -> None:
    """Standard tasks' headline metric; subtasks of a group that is present are left out."""
    ours = tuple(p for b in registry.all_benchmarks() for p in b.prefixes)
    inside: set[str] = set()
    for e in entries.values():
        subtasks = e.job.results.get("group_subtasks", {})
        if e.task in subtasks:
            inside |= _all_subtasks(e.task, subtasks)
    for task, e in entries.items():
        if task.startswith(ours) or task in inside:
            continue
        key = headline_key(task, e.values)
        if key is not None:
            row.standard[(task, key)] = number(e.values.get(key))


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
    return next((k for k in metric_keys(values) if isinstance(values[k], (int, float))), None)
