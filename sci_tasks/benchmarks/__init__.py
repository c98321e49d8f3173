"""The benchmarks sci-tasks ships, one package each: ``sci_tasks/benchmarks/<name>/`` holds a
benchmark's declaration (``BENCHMARK`` in its ``__init__.py``), loader, hooks, metrics,
report, view, leaderboard section, lm-eval task YAMLs (``tasks/``) and bundled samples
(``samples/``). This folder is also the task folder lm-eval indexes (the ``lm_eval.tasks``
entry point names this package).

Adding a benchmark: its folder here, and its line in ``DECLARED_IN`` below. The registry
(``sci_tasks.registry``) reads ``DECLARED_IN`` by name and checks each declaration's hooks
when it registers it. A plugin's declaration imports the same names from here as from the
registry (``from sci_tasks.benchmarks import Benchmark, MetricSpec``).
"""

from __future__ import annotations

from sci_tasks.registry import (
    BUNDLED_SAMPLES,
    COUNT,
    DISTINCT_COUNT,
    ENTRY_POINT_GROUP,
    PLUGINS_ENV,
    TOTAL,
    Benchmark,
    Check,
    MetricSpec,
    all_benchmarks,
    checks_reader,
    data_keys,
    get,
    hook,
    judge_roles,
    names,
    of_task,
    record_metric,
    report_writer,
)

# module holding ``BENCHMARK``: one registration line per benchmark sci-tasks ships
DECLARED_IN = (
    "sci_tasks.benchmarks.scimif",
    "sci_tasks.benchmarks.spm_bench",
    "sci_tasks.benchmarks.scigen_verify",
)

__all__ = [
    "BUNDLED_SAMPLES", "COUNT", "DECLARED_IN", "DISTINCT_COUNT", "ENTRY_POINT_GROUP",
    "PLUGINS_ENV", "TOTAL", "Benchmark", "Check", "MetricSpec", "all_benchmarks",
    "checks_reader", "data_keys", "get", "hook", "judge_roles", "names", "of_task",
    "record_metric", "report_writer",
]  # fmt: skip
