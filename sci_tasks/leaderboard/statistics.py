"""The leaderboard's ± and paired differences, from ``sci_tasks.stats`` (no statistics here).

Each column with an ``ErrorSource`` gets the bootstrap standard error over the logged
samples behind its value (the job its value came from; for a group value, the pooled
samples of the group's tasks); a section may combine its columns' errors into more
(``Section.combined_errors``). Each pair of rows gets the paired bootstrap difference on
the documents both answered, for every column both have samples for.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lm_eval.api.metrics import unweighted_mean_stderr

from sci_tasks import stats
from sci_tasks.data.locate import DataError
from sci_tasks.leaderboard.discovery import Job
from sci_tasks.leaderboard.sections import Section
from sci_tasks.leaderboard.table import Entry, Leaderboard, ModelRow
from sci_tasks.outputs import read_jsonl
from sci_tasks.run_folder import newest_samples


def uncertainty(
    row: ModelRow, entries: Mapping[str, Entry], parts: Sequence[Section], notes: list[str]
) -> None:
    """The logged samples behind each column of ``row`` that has an error source, their
    bootstrap standard error, then each section's combined errors."""
    cache: dict[tuple[str, str], list[dict[str, Any]] | None] = {}
    for part in parts:
        for column, (metric, tasks, group, pooled) in part.error_sources().items():
            if math.isnan(row.values.get(column, math.nan)):
                continue
            pairs: list[tuple[str, dict[str, Any]]] = []
            errors: list[float] = []  # per task, for an unweighted mean over the tasks
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
                if cache[key] and not pooled:
                    errors.append(stats.metric_estimate(metric, cache[key] or []).stderr)
            if pairs and pooled:
                row.samples[column] = pairs
                row.stderr[column] = stats.metric_estimate(metric, (r for _, r in pairs)).stderr
            elif errors:  # as lm-eval combines the errors of an unweighted group mean
                row.stderr[column] = float(unweighted_mean_stderr(errors))
        row.stderr.update(part.combined_errors(row))


def _logged(job: Job, task: str, model: str, notes: list[str]) -> list[dict[str, Any]] | None:
    """The task's logged samples in ``job`` (None, with a note, when there are none)."""
    assert job.results_file is not None
    path = newest_samples(job.results_file.parent, task).get(task)
    if path is None:
        return None  # run without log_samples: no ±, as for any value without samples
    try:
        return read_jsonl(path)
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
    sources = {c: s for part in board.sections for c, s in part.error_sources().items()}
    out = []
    for i, a in enumerate(board.rows):
        for b in board.rows[i + 1 :]:
            for column, source in sources.items():
                if column in a.samples and column in b.samples:
                    diff = stats.paired_difference(
                        stats.keyed_parts(source.metric, a.samples[column]),
                        stats.keyed_parts(source.metric, b.samples[column]),
                    )
                    out.append(Pairwise(a.model, b.model, column, diff))
    return out
