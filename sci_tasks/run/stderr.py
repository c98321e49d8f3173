"""The ± of sci-eval's results: bootstrap standard errors from the one statistics module.

lm-eval bootstraps only its own aggregation functions and writes ``"N/A"`` in
``"<metric>_stderr,<filter>"`` for ours (CSR, ISR, DRFR, EM, Acc_a, ...), and nothing at
all with ``bootstrap_iters=0``. Here each such key of a task is filled with
``stats.metric_estimate`` over the task's logged samples (the samples file's records, as
sci-view and sci-leaderboard read them: the same ± everywhere), and each group's from its
tasks' errors by lm-eval's own group arithmetic (``Group.aggregate``: pooled for a
size-weighted mean, the unweighted mean's error otherwise). A key lm-eval filled itself is
kept; a metric stats has no per-sample parts for keeps ``"N/A"``.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any

from sci_tasks import stats
from sci_tasks.outputs import json_safe, metric_keys

UNKNOWN = "N/A"  # lm-eval's value for a standard error it did not compute
log = logging.getLogger(__name__)


def fill_stderrs(
    results: dict[str, Any],
    samples: Mapping[str, Sequence[Mapping[str, Any]]],
    groups: Mapping[str, Any],
) -> bool:
    """``add_stderrs``, and a warning instead of an error when it fails: the ± is extra, so
    a failure there never costs a finished run its results (the keys keep "N/A")."""
    try:
        add_stderrs(results, samples, groups)
    except Exception as exc:
        log.warning("the bootstrap ± was not computed (%s: %s)", type(exc).__name__, exc)
        return False
    return True


def task_stderr(metric: str, records: Sequence[Mapping[str, Any]], value: Any) -> float | None:
    """The bootstrap standard error of ``metric`` over one task's logged samples; None when
    stats has no per-sample parts for it, the error is not a number, or the estimate's value
    is not the ``value`` lm-eval aggregated (then it would be the error of something else)."""
    try:
        estimate = stats.metric_estimate(metric, records)
    except KeyError:  # not a metric with per-sample parts
        return None
    if not isinstance(value, (int, float)) or not math.isfinite(estimate.stderr):
        return None
    if not math.isclose(estimate.value, value, rel_tol=1e-9, abs_tol=1e-12):
        return None
    return estimate.stderr


def add_stderrs(
    results: dict[str, Any],
    samples: Mapping[str, Sequence[Mapping[str, Any]]],
    groups: Mapping[str, Any],
) -> None:
    """Fill the standard errors lm-eval left unknown in ``results`` (in place): tasks from
    their ``samples``, then the ``groups`` (lm-eval's group objects) from their tasks."""
    entries = results.get("results", {})
    for task, logged in samples.items():
        entry = entries.get(task)
        if entry is None:
            continue
        records = json_safe(list(logged))  # as the samples file holds them (NaN as null)
        for key in list(metric_keys(entry)):
            metric, _, filt = key.partition(",")
            err_key = f"{metric}_stderr,{filt}"
            if not filt or entry.get(err_key, UNKNOWN) != UNKNOWN:
                continue
            mine = [r for r in records if r.get("filter", "none") == filt]
            err = task_stderr(metric, mine, entry[key])
            if err is not None:
                entry[err_key] = err
    for name, group in groups.items():
        shown = [s for s in (results.get("groups", {}).get(name), entries.get(name)) if s]
        if not shown:
            continue
        try:
            aggregated = group.aggregate(entries)
        except ZeroDivisionError:  # lm-eval's pooled variance over n - tasks: 1 sample each
            continue  # no ± is defined then: "N/A" stays
        for key, value in aggregated.items():
            if "_stderr," not in key or not isinstance(value, float) or not math.isfinite(value):
                continue
            for entry in shown:
                if entry.get(key, UNKNOWN) == UNKNOWN:
                    entry[key] = value
