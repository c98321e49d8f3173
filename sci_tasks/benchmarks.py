"""The benchmarks sci-tasks ships, each declared once.

A benchmark's ``BENCHMARK = Benchmark(...)`` sits beside its loader
(``sci_tasks/data/<name>.py``); ``DECLARED_IN`` below is the one line per benchmark that
registers it. Everything else reads the declaration: the data-location convention
(``sci_tasks.data.locate``), the ``data.*`` options of ``sci-eval`` (``sci_tasks.conf``),
the run manifest's data fingerprints, ``sci-report``, ``sci-leaderboard``, ``sci-view`` and
the tests that check the task YAMLs and Hydra task sets against it.

Declarations are imported lazily (on first use), so a loader can import this module and
``locate`` without an import cycle.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache

# module holding ``BENCHMARK``: one registration line per benchmark
DECLARED_IN = (
    "sci_tasks.data.scimif",
    "sci_tasks.data.spm_bench",
    "sci_tasks.data.scigen_verify",
)


@dataclass(frozen=True)
class Benchmark:
    """What the rest of the package needs to know about one benchmark."""

    name: str  # its folder under SCI_TASKS_DATA_DIR, sci_tasks/samples/ and sci_tasks/tasks/
    title: str  # in table titles, leaderboard columns and notes
    data_key: str  # its own data-location key (run settings, then environment)
    group: str  # the lm-eval group of its headline tasks
    splits: tuple[str, ...]  # the group's subtasks (lm-eval task names), in report order
    # leaderboard columns: (label, lm-eval results key), read from the group (or its splits)
    columns: tuple[tuple[str, str], ...]
    report: str  # module with ``write_report(run_dir, out_dir) -> list[Path]`` (sci-report)
    # sci-view summary metrics, by task-name prefix (the first matching prefix wins)
    headlines: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    task_prefixes: tuple[str, ...] = ()  # task names that are this benchmark's; () = (name,)
    task_sets: tuple[str, ...] = ()  # its sci-eval task sets (conf/tasks/<set>.yaml)
    count_column: str = ""  # leaderboard column of the group's sample count, e.g. "questions"
    leaderboard_doc: str = ""  # one line under the leaderboard's "Columns" heading

    @property
    def prefixes(self) -> tuple[str, ...]:
        return self.task_prefixes or (self.name,)

    def owns(self, task: str) -> bool:
        """``task`` (an lm-eval task or group name) is one of this benchmark's."""
        return task.startswith(self.prefixes)


@cache
def all_benchmarks() -> tuple[Benchmark, ...]:
    found = tuple(importlib.import_module(m).BENCHMARK for m in DECLARED_IN)
    names = [b.name for b in found]
    if len(set(names)) != len(names):
        raise RuntimeError(f"a benchmark is declared twice: {names}")
    return found


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


def data_keys() -> dict[str, str]:
    """benchmark -> its data-location key."""
    return {b.name: b.data_key for b in all_benchmarks()}
