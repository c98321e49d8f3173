"""The registry of benchmarks: what a benchmark declares (``Benchmark``, ``MetricSpec``,
``Check``) and every registered one, by name or by task.

The benchmarks sci-tasks ships are the packages of ``sci_tasks/benchmarks/`` (one folder
each), registered by the one line per benchmark in ``sci_tasks.benchmarks.DECLARED_IN``; a
benchmark of one's own registers without editing sci-tasks: a module named in
``SCI_TASKS_BENCHMARKS``, or an installed package's ``sci_tasks.benchmarks`` entry point,
holding its ``BENCHMARK``. Everything else reads the declaration: the data-location
convention (``sci_tasks.data.locate``), the ``data.*`` options of ``sci-eval``
(``sci_tasks.conf``), the run manifest's data fingerprints, ``sci-report``,
``sci-leaderboard``, ``sci-view``, the statistics and the tests that check the task YAMLs
and Hydra task sets against it.

This module sits below everything that reads it (the import contract in pyproject.toml):
it imports no benchmark; the declaring modules are imported by name, lazily, on first use.

A declaration names its code by hooks, "module:function" strings, relative to its own
package when they start with a dot (".metrics:checks"): a declaration stays light to import,
and a folder copied elsewhere keeps working. The registry resolves them to absolute names
and checks each (the module exists and defines the name) when it registers the benchmark,
so a wrong name fails there, not when sci-view first renders a sample.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.util
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import entry_points
from importlib.resources import files
from pathlib import Path
from typing import Any

# the package of the benchmarks sci-tasks ships: its ``DECLARED_IN`` registers them
SHIPPED = "sci_tasks.benchmarks"
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

    name: str  # its package sci_tasks/benchmarks/<name>/ and its folder under SCI_TASKS_DATA_DIR
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
    tasks_dir: str = ""  # its lm-eval task folder; "" = tasks/ beside the declaring module
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
        if self.tasks_dir:
            return Path(self.tasks_dir)
        return Path(str(files(SHIPPED))) / self.name / "tasks"

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


def report_writer(benchmark: Benchmark) -> Callable[[Path, Path], list[Path]]:
    """Its sci-report: ``write_report(run_dir, out_dir) -> written files``."""
    writer: Callable[[Path, Path], list[Path]] = hook(f"{benchmark.report}:write_report")
    return writer


def checks_reader(benchmark: Benchmark) -> Callable[[Mapping[str, Any]], list[Check]] | None:
    """Its sci-view checks of one logged ``record`` detail (None: it declares none)."""
    return hook(benchmark.checks) if benchmark.checks else None


def _absolute(ref: str, package: str) -> str:
    """``ref`` with a leading-dot module made absolute against ``package``."""
    return importlib.util.resolve_name(ref, package) if ref.startswith(".") else ref


def _bind(declared: Benchmark, module: str) -> Benchmark:
    """The declaration with its hooks absolute (the package of ``module`` holding them)."""
    imported = importlib.import_module(module)
    package = imported.__package__ or module

    def ref(value: str) -> str:
        target, colon, attr = value.partition(":")
        return _absolute(target, package) + colon + attr if value else value

    def spec(m: MetricSpec) -> MetricSpec:
        return dataclasses.replace(m, parts=m.parts if m.parts == "mean" else ref(m.parts))

    # its task folder: ``tasks/`` beside the declaring module, unless it names one
    tasks_dir = declared.tasks_dir or str(Path(str(imported.__file__)).parent / "tasks")
    return dataclasses.replace(
        declared,
        tasks_dir=tasks_dir,
        report=ref(declared.report),
        leaderboard=ref(declared.leaderboard),
        checks=ref(declared.checks),
        metrics=tuple(spec(m) for m in declared.metrics),
        task_metrics={k: tuple(spec(m) for m in v) for k, v in declared.task_metrics.items()},
    )


def _hooks(b: Benchmark) -> list[tuple[str, str, str]]:
    """(what, module, name) of every hook ``b`` declares: its report, leaderboard section,
    sci-view checks, per-sample parts and aggregations of our own."""
    found = [("report", b.report, "write_report")]
    if b.leaderboard:
        module, _, cls = b.leaderboard.partition(":")
        found.append(("leaderboard", module, cls or "Section"))
    if b.checks:
        found.append(("checks", *b.checks.partition(":")[::2]))
    for specs in (b.metrics, *b.task_metrics.values()):
        for m in specs:
            if m.parts and m.parts != "mean":
                found.append((f"metric {m.name} parts", *m.parts.partition(":")[::2]))
            if m.aggregation.startswith("!function "):
                module, _, name = m.aggregation.removeprefix("!function ").rpartition(".")
                found.append((f"metric {m.name} aggregation", module, name))
    return found


def _defines(module: str, name: str) -> bool:
    """``module``'s source defines ``name`` at its top level (read, not imported: a report
    module brings matplotlib); a module without readable source is imported instead."""
    spec = importlib.util.find_spec(module)
    if spec is None:
        return False
    origin = spec.origin
    if not origin or not origin.endswith(".py"):
        return hasattr(importlib.import_module(module), name)
    tree = ast.parse(Path(origin).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == name:
                return True
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((a.asname or a.name).split(".")[0] == name for a in node.names):
                return True
    return False


def _check_hooks(b: Benchmark, declared_in: str) -> None:
    for what, module, name in _hooks(b):
        try:
            ok = bool(module and name) and _defines(module, name)
        except (ImportError, ValueError, SyntaxError):
            ok = False
        if not ok:
            raise RuntimeError(
                f"benchmark {b.name!r} ({declared_in}): its {what} hook names "
                f"{module}:{name}, which is not there"
            )


def _plugin_modules() -> tuple[str, ...]:
    named = tuple(m.strip() for m in os.environ.get(PLUGINS_ENV, "").split(",") if m.strip())
    return _shipped() + _installed() + named


@cache
def _shipped() -> tuple[str, ...]:  # by name: the registry imports no benchmark statically
    declared: tuple[str, ...] = importlib.import_module(SHIPPED).DECLARED_IN
    return declared


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
            declared = _bind(importlib.import_module(module).BENCHMARK, module)
        except (ImportError, AttributeError) as exc:
            raise RuntimeError(f"benchmark plugin {module!r}: {exc}") from exc
        _check_hooks(declared, module)
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
