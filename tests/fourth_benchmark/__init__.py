"""A fourth benchmark, for tests only: unit conversions ("Convert 2.5 km to m."), scored by
exact match on the number and on the unit. It registers as a plugin would, through
``SCI_TASKS_BENCHMARKS=tests.fourth_benchmark`` (no sci_tasks module names it), and shows
that sci-eval, sci-view, sci-report and sci-leaderboard take a benchmark they were not
written for. Its files: this declaration, ``loader.py`` (the eight records in ``data/``),
``tasks/`` (the lm-eval group ``units`` of ``units_metric`` and ``units_imperial``),
``metrics.py`` (scoring, per-sample parts, sci-view's checks) and ``report.py``."""

from __future__ import annotations

from pathlib import Path

from sci_tasks.benchmarks import Benchmark, MetricSpec, record_metric

HERE = Path(__file__).parent
KINDS = ("metric", "imperial")  # one task per kind of conversion

BENCHMARK = Benchmark(
    name="units",  # data key UNITS_DATA_DIR, group "units", columns from the labels
    title="Units",
    splits=tuple(f"units_{k}" for k in KINDS),
    report=".report",
    metrics=(
        MetricSpec(
            "number",
            True,
            "mean",
            comment="the reply's number equals the answer's",
            label="Number",
            parts=".metrics:number_parts",
        ),
        MetricSpec(
            "exact",
            True,
            "mean",
            comment="the number and the unit as the answer's",
            label="Exact",
            parts=".metrics:exact_parts",
        ),
        record_metric("questions scored; each sample's value is its record (samples log only)"),
    ),
    headlines={"units": ("number", "exact")},
    count_column="questions",
    leaderboard_doc="the `units` group's values (size-weighted over the two kinds).",
    checks=".metrics:checks",
)
