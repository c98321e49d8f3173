"""The leaderboard's data: one row per model configuration, its value columns in order.

A value is a float (NaN = no value: blank in the CSV, ``n/a`` in the Markdown, never 0).
The benchmark columns come from the registered benchmarks' sections
(``sci_tasks.leaderboard.sections``), then the standard lm-eval tasks' headline metrics.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sci_tasks.leaderboard.discovery import Job

if TYPE_CHECKING:
    from sci_tasks.leaderboard.sections import Section


@dataclass
class Entry:
    """One task's results dict, with the job it came from."""

    task: str
    values: Mapping[str, Any]
    job: Job


@dataclass
class ModelRow:
    model: str
    jobs: list[Job]
    values: dict[str, float] = field(default_factory=dict)  # column -> value (NaN = n/a)
    standard: dict[tuple[str, str], float] = field(default_factory=dict)  # (task, key)
    bundled: list[str] = field(default_factory=list)  # benchmark titles run on bundled data
    limits: list[str] = field(default_factory=list)  # "limit=N" of its jobs run with one

    @property
    def flags(self) -> str:
        """What its numbers are not (benchmark data, full tasks), for its model cell."""
        said = (["bundled samples"] if self.bundled else []) + self.limits
        return f" [{'; '.join(said)}]" if said else ""

    # column -> (task, logged sample) behind its value, and its bootstrap standard error
    samples: dict[str, list[tuple[str, dict[str, Any]]]] = field(default_factory=dict)
    stderr: dict[str, float] = field(default_factory=dict)


@dataclass
class Leaderboard:
    sweep_dir: Path
    jobs: list[Job]
    rows: list[ModelRow]
    notes: list[str]
    sections: Sequence[Section] = ()  # one per registered benchmark, in registry order

    @property
    def standard_columns(self) -> list[tuple[str, str]]:
        return sorted({k for r in self.rows for k in r.standard})

    def columns(self) -> list[str]:
        """Every value column of the CSV, in order (blocks with no value anywhere left out)."""
        cols = [c for s in self.sections for c in s.columns(self)]
        return cols + [standard_column(t, k) for t, k in self.standard_columns]

    @property
    def count_columns(self) -> set[str]:
        """Columns holding a count (shown as an integer)."""
        return {c for s in self.sections for c in s.count_columns()}

    def value(self, row: ModelRow, column: str) -> float:
        for (task, key), v in row.standard.items():
            if standard_column(task, key) == column:
                return v
        return row.values.get(column, math.nan)


def standard_column(task: str, key: str) -> str:
    metric, _, filt = key.partition(",")
    return f"{task} {metric}" if filt in ("", "none") else f"{task} {metric} [{filt}]"


def number(value: Any) -> float:
    """A metric value as a float; anything else (absent, "N/A", a string) is NaN."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return math.nan
    return float(value)
