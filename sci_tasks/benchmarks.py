"""The benchmarks sci-tasks ships, each declared once.

A benchmark's ``BENCHMARK = Benchmark(...)`` sits beside its loader
(``sci_tasks/data/<name>.py``); ``DECLARED_IN`` below is the one line per benchmark that
registers it. A benchmark of one's own registers without editing this package: a module
named in ``SCI_TASKS_BENCHMARKS``, or an installed package's ``sci_tasks.benchmarks`` entry
point, holding its ``BENCHMARK``. Everything else reads the declaration: the data-location
convention (``sci_tasks.data.locate``), the ``data.*`` options of ``sci-eval``
(``sci_tasks.conf``), the run manifest's data fingerprints, ``sci-report``,
``sci-leaderboard``, ``sci-view``, the statistics and the tests that check the
task YAMLs and Hydra task sets against it.

Declarations are imported lazily (on first use), so a loader can import this module and
``locate`` without an import cycle.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

# module holding ``BENCHMARK``: one registration line per benchmark sci-tasks ships
DECLARED_IN = (
    "sci_tasks.data.scimif",
    "sci_tasks.data.spm_bench",
    "sci_tasks.data.scigen_verify",
)
# more benchmarks, without editing this file: modules named here (comma-separated), as
# lm-eval's --include_path adds task folders, and installed packages' entry points
PLUGINS_ENV = "SCI_TASKS_BENCHMARKS"
ENTRY_POINT_GROUP = "sci_tasks.benchmarks"


@dataclass(frozen=True)
class MetricSpec:
    """One metric of a benchmark's tasks: the YAML ``metric_list`` entry is generated from
    it (``scripts/generate_metric_lists.py``), and the statistics module bootstraps it from
    its per-sample parts."""

    name: str  # the key ``process_results`` returns
    higher_is_better: bool
    aggregation: str  # an lm-eval aggregation name ("mean") or "!function module.name"
    comment: str = ""  # the YAML comment above the entry (prose: the generator wraps it)
    label: str = ""  # its name in tables ("CSR"); "" = not a headline metric
    # its per-sample parts for the bootstrap (``sci_tasks.stats``), as ``aggregation``: "mean"
    # (the sample's value, left out when it has none), or "module:function" (one logged
    # sample -> its (num, den), None when that sample makes the metric NaN); "" = none (no ±)
    parts: str = ""
    judged: bool = False  # every value is an LLM judge's grade: "n/a (no judge)" without one


# what the tasks of every benchmark share: aggregations of our own, the bundled-samples
# flag and the per-sample ``record`` detail
TOTAL = "!function sci_tasks.metrics.aggregate.total"
COUNT = "!function sci_tasks.metrics.aggregate.count"
DISTINCT_COUNT = "!function sci_tasks.metrics.aggregate.distinct_count"
BUNDLED_SAMPLES = MetricSpec("bundled_samples", False, "mean")


def record_metric(comment: str) -> MetricSpec:
    """The ``record`` entry: counts the samples; its per-sample value (the detail ``comment``
    describes) is for the samples log, never a metric row."""
    return MetricSpec("record", True, COUNT, comment)


@dataclass(frozen=True)
class Check:
    """One check of one sample, the same type for every benchmark (as Inspect's ``Score``):
    a score (None: unscored, with its reason), the group it reports under, who decided."""

    name: str
    score: float | None
    reason: str = ""
    group: str = ""
    judge: str = ""  # "rule", "rdkit", the judge model, ... ("" = not said)


@dataclass(frozen=True)
class Benchmark:
    """One benchmark as a plugin: everything the rest of the package needs to know of it.
    Hooks are "module:function" strings, imported on first use (a declaration stays light)."""

    name: str  # its folder under SCI_TASKS_DATA_DIR, sci_tasks/samples/ and sci_tasks/tasks/
    title: str  # in table titles, leaderboard columns and notes
    splits: tuple[str, ...]  # the group's subtasks (lm-eval task names), in report order
    report: str  # module with ``write_report(run_dir, out_dir) -> list[Path]`` (sci-report)
    data_key: str = ""  # its own data-location key; "" = "<NAME>_DATA_DIR"
    group: str = ""  # the lm-eval group of its headline tasks; "" = its name
    # leaderboard columns: (label, lm-eval results key), read from the group (or its splits);
    # () = its labelled metrics, in order ((label, "<metric>,none"))
    columns: tuple[tuple[str, str], ...] = ()
    # sci-view summary metrics, by task-name prefix (the first matching prefix wins)
    headlines: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    task_prefixes: tuple[str, ...] = ()  # task names that are this benchmark's; () = (name,)
    task_sets: tuple[str, ...] = ()  # its sci-eval task sets (conf/tasks/<set>.yaml)
    count_column: str = ""  # leaderboard column of the group's sample count, e.g. "questions"
    leaderboard_doc: str = ""  # one line under the leaderboard's "Columns" heading
    tasks_dir: str = ""  # its lm-eval task folder; "" = sci_tasks/tasks/<name>
    metrics: tuple[MetricSpec, ...] = ()  # its tasks' metric_list (in ``template``), in order
    template: str = ""  # the YAML in its task folder its tasks include; "" = _<name>_template_yaml
    # more YAMLs of its task folder with a metric_list of their own (SciGen-Rubric's task)
    task_metrics: Mapping[str, tuple[MetricSpec, ...]] = field(default_factory=dict)
    # "module:function" (logged ``record`` detail) -> list[Check]: its rendering in sci-view
    checks: str = ""
    # the judge roles its scoring asks (``judges.<role>`` settings, usage per role); a role
    # not given is answered by the ``constraints`` judge
    judge_roles: tuple[str, ...] = ()
    # "module" with its own leaderboard columns / plots beyond ``columns`` (SciMIF's
    # disciplines and functional groups); "" = only ``columns``
    leaderboard: str = ""

    def __post_init__(self) -> None:  # the conventions an empty field stands for
        if not self.data_key:
            object.__setattr__(self, "data_key", f"{self.name.upper()}_DATA_DIR")
        if not self.group:
            object.__setattr__(self, "group", self.name)
        if not self.columns:
            columns = tuple((m.label, f"{m.name},none") for m in self.metrics if m.label)
            object.__setattr__(self, "columns", columns)

    @property
    def prefixes(self) -> tuple[str, ...]:
        return self.task_prefixes or (self.name,)

    def owns(self, task: str) -> bool:
        """``task`` (an lm-eval task or group name) is one of this benchmark's."""
        return task.startswith(self.prefixes)

    def task_folder(self) -> Path:
        return (
            Path(self.tasks_dir) if self.tasks_dir else Path(__file__).parent / "tasks" / self.name
        )

    def metric_lists(self) -> dict[Path, tuple[MetricSpec, ...]]:
        """Each YAML of its task folder whose ``metric_list`` block the specs generate."""
        folder = self.task_folder()
        template = {folder / (self.template or f"_{self.name}_template_yaml"): self.metrics}
        return template | {folder / name: specs for name, specs in self.task_metrics.items()}

    def metric(self, name: str) -> MetricSpec | None:
        """Its spec of metric ``name`` (the template's first, then its other tasks')."""
        specs = (m for lists in self.metric_lists().values() for m in lists)
        return next((m for m in specs if m.name == name), None)


def hook(ref: str) -> Any:
    """The object a "module:function" hook names (imported now)."""
    module, _, attr = ref.partition(":")
    if not attr:
        raise ValueError(f"a hook is 'module:function', not {ref!r}")
    return getattr(importlib.import_module(module), attr)


def _plugin_modules() -> tuple[str, ...]:
    named = tuple(m.strip() for m in os.environ.get(PLUGINS_ENV, "").split(",") if m.strip())
    return DECLARED_IN + _installed() + named


@cache
def _installed() -> tuple[str, ...]:  # scanning the installed packages once per process
    return tuple(ep.value for ep in entry_points(group=ENTRY_POINT_GROUP))


def all_benchmarks() -> tuple[Benchmark, ...]:
    """Every registered benchmark: the ones sci-tasks ships, then installed plugins, then the
    modules ``SCI_TASKS_BENCHMARKS`` names. Two declaring one name is an error naming both."""
    return _declared(_plugin_modules())


@cache
def _declared(modules: tuple[str, ...]) -> tuple[Benchmark, ...]:
    found: dict[str, tuple[Benchmark, str]] = {}
    for module in dict.fromkeys(modules):  # the same module twice registers once
        try:
            declared = importlib.import_module(module).BENCHMARK
        except (ImportError, AttributeError) as exc:
            raise RuntimeError(f"benchmark plugin {module!r}: {exc}") from exc
        if declared.name in found:
            raise RuntimeError(
                f"benchmark {declared.name!r} is declared twice: by {found[declared.name][1]} "
                f"and by {module}"
            )
        found[declared.name] = (declared, module)
    return tuple(b for b, _ in found.values())


def names() -> tuple[str, ...]:
    return tuple(b.name for b in all_benchmarks())


def get(name: str) -> Benchmark:
    for b in all_benchmarks():
        if b.name == name:
            return b
    raise KeyError(f"unknown benchmark {name!r}; known: {', '.join(sorted(names()))}")


def of_task(task: str) -> Benchmark | None:
    """The benchmark an lm-eval task belongs to (None: not one of ours)."""
    return next((b for b in all_benchmarks() if b.owns(task)), None)


def judge_roles() -> tuple[str, ...]:
    """Every judge role a registered benchmark declares, ``constraints`` first (the role
    every other falls back to)."""
    declared = (r for b in all_benchmarks() for r in b.judge_roles)
    return tuple(dict.fromkeys(("constraints", *declared)))


def data_keys() -> dict[str, str]:
    """benchmark -> its data-location key."""
    return {b.name: b.data_key for b in all_benchmarks()}
