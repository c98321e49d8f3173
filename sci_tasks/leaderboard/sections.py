"""Each registered benchmark's part of the leaderboard: its columns, tables, ± and plots.

Every benchmark gets a ``Section``: its declared ``columns`` read from its lm-eval group's
results entry, or, when only some of the group's splits were run, aggregated over them as
lm-eval's group would (``lm_eval.api.metrics.aggregate_subtask_metrics`` with the
``weight_by_size`` of the group YAML's ``aggregate_metric_list``); a bootstrap ± for each
column whose metric has per-sample parts (``sci_tasks.stats``); no plots.

The leaderboard hook. A benchmark with more to show (columns per discipline, values only its
samples carry, plots) names a module in its declaration, ``leaderboard="pkg.module"``
(or ``"pkg.module:Name"``); that module holds ``Section``, a subclass of the class below
that overrides any of its methods. Every column a section adds starts with the benchmark's
title and a space.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import yaml
from lm_eval.api.metrics import aggregate_subtask_metrics
from lm_eval.config.group import AggMetricConfig, GroupConfig

from sci_tasks import registry, stats
from sci_tasks.leaderboard.table import Entry, ModelRow, number
from sci_tasks.registry import Benchmark

if TYPE_CHECKING:
    from sci_tasks.leaderboard.table import Leaderboard


class ErrorSource(NamedTuple):
    """Where a column's bootstrap ± comes from: the metric's per-sample parts over the
    logged samples of ``tasks`` (of the ``group``'s job when the group was run)."""

    metric: str  # lm-eval's metric name (no filter)
    tasks: tuple[str, ...]
    group: str | None = None
    # the value pools the tasks' samples (a size-weighted group mean); False: it is the
    # unweighted mean over the tasks, whose ± combines theirs (and has no paired difference)
    pooled: bool = True


class Section:
    """A benchmark's columns as its lm-eval group reports them (the default of every
    benchmark; a leaderboard hook subclasses it)."""

    def __init__(self, benchmark: Benchmark) -> None:
        self.benchmark = benchmark
        self.prefix = f"{benchmark.title} "

    # --- values ---------------------------------------------------------------------------

    def fill(self, row: ModelRow, entries: Mapping[str, Entry], notes: list[str]) -> None:
        """Set the row's values of this section's columns (and say in ``notes`` where they
        come from when that is not plain): the group's values when present, otherwise
        lm-eval's group aggregation over the splits present."""
        b = self.benchmark
        title, count = b.title, f"{self.prefix}{b.count_column}"
        if b.group in entries:
            chosen = entries[b.group]
            for label, key in b.columns:
                row.values[f"{title} {label}"] = number(chosen.values.get(key))
            if b.count_column:
                row.values[count] = number(chosen.values.get("sample_len"))
            newer = [
                t for t in b.splits if t in entries and entries[t].job.stamp > chosen.job.stamp
            ]
            if newer:
                notes.append(
                    f"`{row.model}`: {title} values are the `{b.group}` group of "
                    f"`{chosen.job.name}`; newer results of "
                    f"{', '.join(f'`{t}`' for t in newer)} alone are not in them."
                )
            return
        present = [entries[t] for t in b.splits if t in entries]
        if not present:
            return
        weights = []
        for label, key in b.columns:
            value, weighted = group_value(b, key, present)
            row.values[f"{title} {label}"] = value
            weights.append(weighted)
        if b.count_column:  # lm-eval's group sample_len: the sum over its tasks
            row.values[count] = float(sum(e.values.get("sample_len", 0) for e in present))
        kind = (
            "size-weighted means" if all(weights) else "unweighted means" if not any(weights)
            else "means (weighted as the group's aggregate_metric_list says)"
        )  # fmt: skip
        notes.append(
            f"`{row.model}`: no `{b.group}` group results; {title} values are the {kind} "
            f"over {', '.join(f'`{e.task}`' for e in present)}."
        )

    def error_sources(self) -> dict[str, ErrorSource]:
        """column -> where its bootstrap ± comes from (columns with per-sample parts only)."""
        b = self.benchmark
        out = {}
        for label, key in b.columns:
            metric = key.split(",")[0]
            if stats.has_parts(metric):  # e.g. SPM-Bench's Delta is no ratio of sums: no ±
                rule = _rule(b, metric, key.partition(",")[2])
                pooled = rule is None or rule.weight_by_size
                out[f"{b.title} {label}"] = ErrorSource(metric, b.splits, b.group, pooled)
        return out

    def combined_errors(self, row: ModelRow) -> dict[str, float]:
        """± of columns computed from other columns' values (none by default)."""
        return {}

    # --- layout ---------------------------------------------------------------------------

    def columns(self, board: Leaderboard) -> list[str]:
        """This section's CSV columns, in order; none when no row has a value here."""
        b = self.benchmark
        own = [f"{self.prefix}{b.count_column}"] if b.count_column else []
        own += [f"{b.title} {label}" for label, _ in b.columns]
        return own if any(c in r.values for r in board.rows for c in own) else []

    def count_columns(self) -> set[str]:
        """Columns holding a count (an integer in the tables)."""
        b = self.benchmark
        return {f"{self.prefix}{b.count_column}"} if b.count_column else set()

    def tables(self, board: Leaderboard) -> list[tuple[str, list[str], str]]:
        """The Markdown tables: (heading, columns, prefix left off the column headers)."""
        return [(self.benchmark.title, self.columns(board), self.prefix)]

    def docs(self) -> list[str]:
        """Its lines under the Markdown's "Columns" heading."""
        b = self.benchmark
        doc = b.leaderboard_doc or (
            f"the `{b.group}` group's values; without the group, lm-eval's group "
            "aggregation over the tasks present."
        )
        return [f"- `{b.title} {' / '.join(label for label, _ in b.columns)}`: {doc}"]

    def error_docs(self) -> list[str]:
        """How its combined errors (``combined_errors``) are made, for the ± line."""
        return []

    def plots(self, board: Leaderboard, out_dir: Path) -> list[Path]:
        """The plots it writes into ``out_dir`` (those it has data for)."""
        return []


def section_of(benchmark: Benchmark) -> Section:
    """The benchmark's leaderboard section: its hook's ``Section``, or the default."""
    ref = benchmark.leaderboard
    if not ref:
        return Section(benchmark)
    cls = registry.hook(ref if ":" in ref else f"{ref}:Section")
    if not (isinstance(cls, type) and issubclass(cls, Section)):
        raise ValueError(
            f"benchmark {benchmark.name!r}: leaderboard hook {ref!r} is not a subclass of "
            f"{Section.__module__}.Section"
        )
    return cls(benchmark)


def registered() -> tuple[Section, ...]:
    """A section per registered benchmark, in registry order."""
    return tuple(section_of(b) for b in registry.all_benchmarks())


# --- lm-eval's group aggregation ------------------------------------------------------------


def group_value(benchmark: Benchmark, key: str, present: list[Entry]) -> tuple[float, bool]:
    """(value, weighted by size) of results ``key`` over the group's tasks ``present``, as
    lm-eval's group aggregates it (tasks without the key left out, as lm-eval does; NaN when
    the group does not aggregate the metric or no task has it)."""
    metric, _, filt = key.partition(",")
    rule = _rule(benchmark, metric, filt)
    having = [e for e in present if key in e.values]
    if rule is None or not having:
        return math.nan, True
    sizes = [e.values.get("sample_len", 0) for e in having]
    if rule.weight_by_size and not sum(sizes):
        return math.nan, True
    values = [number(e.values[key]) for e in having]
    return aggregate_subtask_metrics(values, sizes, rule.weight_by_size), rule.weight_by_size


def _rule(benchmark: Benchmark, metric: str, filt: str) -> AggMetricConfig | None:
    config = group_config(str(benchmark.task_folder()), benchmark.group)
    if config is None:  # no group YAML to read: lm-eval's default rule
        return AggMetricConfig(metric)
    rules = config.aggregate_metric_list or []
    return next(
        (
            r
            for r in rules
            if isinstance(r, AggMetricConfig)
            and r.metric == metric
            and (r.filter_list is None or filt in r.filter_list)
        ),
        None,
    )


class _TagsAsText(yaml.SafeLoader):
    """Reads lm-eval's ``!function`` tags as text: the aggregation rules are plain YAML."""


_TagsAsText.add_multi_constructor("!", lambda loader, tag, node: f"{tag} {node.value}")


@cache
def group_config(folder: str, group: str) -> GroupConfig | None:
    """lm-eval's config of ``group`` from its YAML in the task ``folder`` (None: none)."""
    here = Path(folder)
    for path in dict.fromkeys([here / f"{group}.yaml", *sorted(here.glob("*.yaml"))]):
        if not path.is_file():
            continue
        try:
            raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_TagsAsText)
            if isinstance(raw, dict) and raw.get("group") == group:
                fields = ("group", "group_alias", "task", "aggregate_metric_list", "metadata")
                return GroupConfig(**{k: raw[k] for k in fields if k in raw})
        except (OSError, yaml.YAMLError, TypeError, ValueError) as exc:
            raise ValueError(f"group {group!r}: {path}: {exc}") from None
    return None
