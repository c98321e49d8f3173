"""sci-eval's results table: lm-eval's own (``lm_eval.utils.make_table``, the tables its CLI
prints: tasks, then groups) over the numeric metrics, with our notes under it: the samples
scored per task, values that are not numbers, bundled data, ``correct`` without a judge."""

from __future__ import annotations

import math
from typing import Any

from sci_tasks.outputs import metric_keys


def sample_counts(results: dict[str, Any]) -> dict[str, int]:
    """Samples scored per task, and per group the sum over its tasks."""
    counts = {
        task: int(n.get("effective", n.get("original", 0)))
        for task, n in results.get("n-samples", {}).items()
    }

    def total(name: str) -> int:
        if name in counts:
            return counts[name]
        return sum(total(t) for t in results.get("group_subtasks", {}).get(name, []))

    for group in results.get("group_subtasks", {}):
        counts[group] = total(group)
    return counts


def is_number(value: Any) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def tabled(values: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """One task's entry as ``make_table`` should show it: its numeric metrics
    (``outputs.metric_keys``: no bookkeeping, no ``record``), a missing value as ``n/a``, a
    standard error only where there is one; and the metrics whose value is no number."""
    shown: dict[str, Any] = {"alias": values["alias"]} if "alias" in values else {}
    other: list[str] = []
    for key in metric_keys(values):
        metric, _, filt = key.partition(",")
        value = values[key]
        if not filt:
            continue
        if not is_number(value):
            other.append(f"{metric}: {value}")
            continue
        shown[key] = "n/a" if value is None or value != value else value  # lm-eval's format
        err = values.get(f"{metric}_stderr,{filt}")
        if is_number(err) and err is not None and not math.isnan(err):
            shown[f"{metric}_stderr,{filt}"] = float(err)
    return shown, other


def results_table(results: dict[str, Any], judged: bool = True) -> str:
    """lm-eval's table of every task (and of the groups, when there are any) with the
    standard errors (``±``, filled from the statistics module by ``stderr.fill_stderrs``),
    then our notes: sample counts, non-numeric values, bundled data, ``correct`` without a
    judge."""
    from lm_eval.utils import make_table

    groups = results.get("groups", {})
    view: dict[str, Any] = {
        "versions": results.get("versions", {}),
        "n-shot": results.get("n-shot", {}),
        "higher_is_better": results.get("higher_is_better", {}),
        "group_subtasks": results.get("group_subtasks", {}),
        "results": {},
        "groups": {},
    }
    other: list[str] = []
    no_correct: list[str] = []
    for section, tasks in (("results", results.get("results", {})), ("groups", groups)):
        for task, values in tasks.items():
            if section == "results" and task in groups:
                continue  # a group: shown in the groups table
            view[section][task], not_numbers = tabled(values)
            other += [f"{task} {entry}" for entry in not_numbers]
            if view[section][task].get("correct,none") == "n/a":
                no_correct.append(task)
    table = make_table(view) if view["results"] else ""
    if view["groups"]:
        table += make_table(view, "groups")
    counts = sample_counts(results)
    if counts:
        table += "n (samples scored): " + ", ".join(f"{t} {n}" for t, n in counts.items()) + "\n"
    if other:
        table += "other values (not numbers): " + "; ".join(other) + "\n"
    bundled = [
        name
        for name, metrics in results.get("results", {}).items()
        if (metrics.get("bundled_samples,none") or 0) > 0
    ]
    if bundled:
        table += (
            "\nNOTE: bundled sample data was used for "
            + ", ".join(sorted(bundled))
            + " (no data location set): these are not benchmark numbers.\n"
        )
    if no_correct and not judged:
        table += (
            "NOTE: correct is n/a for "
            + ", ".join(sorted(set(no_correct)))
            + ": grading answers needs a judge and none was configured (judge=none); "
            "run with judge=local_api judge.model=... judge.base_url=..., or re-score this "
            "run with sci-score run_dir=<this run> judge=...\n"
        )
    return table
