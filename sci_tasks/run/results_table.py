"""sci-eval's results table: every metric of every task and group with its sample count
and bootstrap standard error, through the one Markdown table (``outputs.markdown_table``)."""

from __future__ import annotations

from typing import Any

from sci_tasks.outputs import markdown_table, metric_keys


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


def results_table(results: dict[str, Any], judged: bool = True) -> str:
    """Markdown table of every numeric metric (``outputs.metric_keys``: no bookkeeping, no
    ``record``) with each task's sample count and its standard error (``±``, filled from the
    statistics module by ``stderr.add_stderrs``); non-numeric values listed under it; notes
    for bundled data and for ``correct`` without a judge."""
    counts = sample_counts(results)
    better = results.get("higher_is_better", {})
    rows: list[list[str]] = []
    other: list[str] = []
    no_correct: list[str] = []
    sections = [("results", results.get("results", {})), ("groups", results.get("groups", {}))]
    for section, tasks in sections:
        for task, values in tasks.items():
            if section == "results" and task in results.get("groups", {}):
                continue  # a group: shown with the groups
            first = True
            for key in metric_keys(values):
                metric, _, filt = key.partition(",")
                value = values[key]
                if not filt:
                    continue
                if not is_number(value):
                    other.append(f"{task} {metric}: {value}")
                    continue
                if metric == "correct" and number(value) == "n/a":
                    no_correct.append(task)
                err = values.get(f"{metric}_stderr,{filt}")
                shown_err = number(err) if is_number(err) and err is not None else ""
                arrow = {True: "↑", False: "↓"}.get(better.get(task, {}).get(metric), "")
                shown = [str(values.get("alias", task)), str(counts.get(task, ""))]
                rows.append(
                    [*(shown if first else ["", ""]), metric, arrow, number(value),
                     "±" if shown_err else "", shown_err]
                )  # fmt: skip
                first = False
    head = ["Task", "n", "Metric", "", "Value", "", "Stderr"]
    table = markdown_table(head, rows, right={1, 4, 6}, aligned=True) + "\n"
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


def number(value: Any) -> str:
    if value is None or value != value:
        return "n/a"
    return f"{value:.4f}".rstrip("0").rstrip(".") if isinstance(value, float) else str(value)
