"""Bootstrap standard errors and paired bootstrap differences from logged samples.

lm-eval's ``bootstrap_iters`` only resamples its own aggregation functions
(``lm_eval.api.metrics.stderr_for_metric``); the benchmarks' headline aggregations are
their own functions, so lm-eval writes "N/A" for them. Here every metric with per-sample
parts (the ``parts`` hook of a registered benchmark's ``MetricSpec``) is written as a
**ratio of sums** over samples, sum(num_i) / sum(den_i):

* a mean over the samples that have a value (``parts="mean"``, ``mean_parts``): num_i is
  the value, den_i is 1, or 0 for a sample without a value;
* a ratio of counts (num_i satisfied of den_i scored checks), or a mean over some samples
  only (den_i = 1 for a sample that counts, 0 otherwise): the benchmark's own function;
* a sample whose parts are None makes the metric NaN, and its error too (a cascade
  aggregation with an unscored sample).

Resampling draws whole samples with replacement (``iters`` draws, seeded: the same inputs
always give the same numbers). The paired difference of two models resamples the samples
both answered (matched by ``sample_key``: task and lm-eval's ``doc_hash``, the same whatever
the run's judge or image budget) jointly, and gives the 2.5 / 97.5 percentiles of the
replicated differences.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from sci_tasks import registry, run_settings

ITERS = 1000
SEED = 1234
_CHUNK = 250  # replicates drawn at once: bounds memory at CHUNK x samples indices

Parts = tuple[float, float] | None  # (num, den) of one sample; None = makes the metric NaN
PartsOf = Callable[[Mapping[str, Any]], Parts]  # one logged sample -> a metric's parts


@dataclass(frozen=True)
class Estimate:
    """A metric's value over the samples, its bootstrap standard error and sample count."""

    value: float
    stderr: float
    n: int


@dataclass(frozen=True)
class Difference:
    """value(a) - value(b) on the samples both have, with a percentile interval."""

    diff: float
    low: float
    high: float
    stderr: float
    n: int  # paired samples

    @property
    def significant(self) -> bool:
        """The interval excludes 0."""
        return not math.isnan(self.low) and (self.low > 0 or self.high < 0)


# --- per-sample parts of each metric, from one lm-eval samples record --------------------


def mean_parts(value: Any) -> Parts:
    """A plain mean's parts: a number counts with weight 1; anything else (null, NaN) has no
    value and is left out of the mean, as lm-eval's ``nanmean`` / our aggregations do."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        return (0.0, 0.0)
    return (float(value), 1.0)


@cache  # per set of registered benchmarks (SCI_TASKS_BENCHMARKS may change it)
def _extractors(registered: tuple[str, ...]) -> dict[str, PartsOf]:
    found: dict[str, tuple[str, PartsOf]] = {}
    for b in map(registry.get, registered):
        for spec in (m for specs in b.metric_lists().values() for m in specs if m.parts):
            if spec.name in found and found[spec.name][0] != spec.parts:
                raise RuntimeError(
                    f"metric {spec.name!r} has two per-sample parts: {found[spec.name][0]} "
                    f"and {spec.parts} (benchmark {b.name!r})"
                )
            found[spec.name] = (spec.parts, _extractor(spec))
    return {name: extract for name, (_, extract) in found.items()}


def _extractor(spec: registry.MetricSpec) -> PartsOf:
    if spec.parts == "mean":
        return lambda sample: mean_parts(sample[spec.name])
    extract: PartsOf = registry.hook(spec.parts)
    return extract


def sample_parts() -> dict[str, PartsOf]:
    """metric (lm-eval's name, without the filter) -> its per-sample parts, from the
    ``parts`` hook of every registered benchmark's metric specs: the metrics with a ±."""
    return _extractors(registry.names())


def has_parts(metric: str) -> bool:
    """``metric`` is bootstrapped here (a ratio of sums over samples)."""
    return metric in sample_parts()


def parts_of(metric: str, records: Iterable[Mapping[str, Any]]) -> list[Parts]:
    """Each record's (num, den) for ``metric`` (records without the metric are skipped)."""
    extract = sample_parts()[metric]
    return [extract(r) for r in records if metric in r]


def sample_key(task: str, record: Mapping[str, Any]) -> tuple[str, str]:
    """The identity of a sample across runs and models: task and lm-eval's ``doc_hash``,
    which covers the record's own fields only (run settings reach scoring beside the
    document, ``sci_tasks.run_settings``), so it is the same whatever the judge or image
    budget. A document of a samples log written before that, carrying the settings
    (``run_settings.LEGACY_FIELDS``), is hashed without them: the ``doc_hash`` the same
    record has now. A line without a hash falls back to ``doc_id``."""
    doc = record.get("doc")
    if isinstance(doc, Mapping) and not run_settings.LEGACY_FIELDS.isdisjoint(doc):
        own = {k: v for k, v in doc.items() if k not in run_settings.LEGACY_FIELDS}
        return (task, run_settings.doc_hash(own))
    return (task, str(record.get("doc_hash") or f"doc_id={record.get('doc_id')}"))


# --- bootstrap -----------------------------------------------------------------------------


def _arrays(parts: Sequence[Parts]) -> tuple[np.ndarray, np.ndarray] | None:
    if any(p is None for p in parts):
        return None
    num = np.array([p[0] for p in parts if p is not None], dtype=float)
    den = np.array([p[1] for p in parts if p is not None], dtype=float)
    return num, den


def _ratio(num: np.ndarray, den: np.ndarray) -> float:
    total = float(den.sum())
    return float(num.sum()) / total if total else math.nan


def _replicates(columns: Sequence[np.ndarray], iters: int, seed: int) -> list[np.ndarray]:
    """For each column, its sums over ``iters`` resamples (the same draws for all columns)."""
    n = len(columns[0])
    rng = np.random.default_rng(seed)
    sums: list[list[np.ndarray]] = [[] for _ in columns]
    done = 0
    while done < iters:
        k = min(_CHUNK, iters - done)
        draws = rng.integers(0, n, size=(k, n))
        for out, col in zip(sums, columns, strict=True):
            out.append(col[draws].sum(axis=1))
        done += k
    return [np.concatenate(s) for s in sums]


def _ratios(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _sd(values: np.ndarray) -> float:
    finite = values[np.isfinite(values)]
    if len(finite) < 2:
        return math.nan
    if finite.min() == finite.max():  # exactly 0, not the rounding noise of the mean
        return 0.0
    return float(finite.std(ddof=1))


def bootstrap(parts: Sequence[Parts], iters: int = ITERS, seed: int = SEED) -> Estimate:
    """Value and bootstrap standard error of sum(num) / sum(den) over the samples."""
    arrays = _arrays(parts)
    if arrays is None or not len(parts):
        return Estimate(math.nan, math.nan, len(parts))
    num, den = arrays
    value = _ratio(num, den)
    if math.isnan(value):
        return Estimate(value, math.nan, len(parts))
    rep_num, rep_den = _replicates([num, den], iters, seed)
    return Estimate(value, _sd(_ratios(rep_num, rep_den)), len(parts))


def metric_estimate(
    metric: str, records: Iterable[Mapping[str, Any]], iters: int = ITERS, seed: int = SEED
) -> Estimate:
    """``bootstrap`` of one of ``sample_parts()``' metrics over lm-eval samples records."""
    return bootstrap(parts_of(metric, records), iters, seed)


def paired_difference(
    a: Mapping[Any, Parts],
    b: Mapping[Any, Parts],
    iters: int = ITERS,
    seed: int = SEED,
    level: float = 0.95,
) -> Difference:
    """value(a) - value(b) over the keys both have (``sample_key``), resampled jointly.

    The interval is the percentile interval of the replicated differences at ``level``."""
    keys = sorted(set(a) & set(b), key=repr)
    nan = Difference(math.nan, math.nan, math.nan, math.nan, len(keys))
    arrays_a = _arrays([a[k] for k in keys])
    arrays_b = _arrays([b[k] for k in keys])
    if not keys or arrays_a is None or arrays_b is None:
        return nan
    diff = _ratio(*arrays_a) - _ratio(*arrays_b)
    if math.isnan(diff):
        return nan
    na, da, nb, db = _replicates([*arrays_a, *arrays_b], iters, seed)
    reps = _ratios(na, da) - _ratios(nb, db)
    reps = reps[np.isfinite(reps)]
    if not len(reps):
        return nan
    tail = (1.0 - level) / 2 * 100
    low, high = np.percentile(reps, [tail, 100 - tail])
    return Difference(diff, float(low), float(high), _sd(reps), len(keys))


def keyed_parts(
    metric: str, samples: Iterable[tuple[str, Mapping[str, Any]]]
) -> dict[tuple[str, str], Parts]:
    """``sample_key`` -> (num, den) of ``metric`` for (task, record) pairs."""
    extract = sample_parts()[metric]
    return {sample_key(task, r): extract(r) for task, r in samples if metric in r}


def fmt(estimate: Estimate, digits: int = 4) -> str:
    """``0.2500 ± 0.0312``; ``n/a`` for no value; no ± when the error is unknown."""
    if math.isnan(estimate.value):
        return "n/a"
    if math.isnan(estimate.stderr):
        return f"{estimate.value:.{digits}f}"
    return f"{estimate.value:.{digits}f} ± {estimate.stderr:.{digits}f}"
