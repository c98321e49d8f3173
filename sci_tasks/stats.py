"""Bootstrap standard errors and paired bootstrap differences from logged samples.

lm-eval's ``bootstrap_iters`` only resamples its own aggregation functions
(``lm_eval.api.metrics.stderr_for_metric``); our CSR, ISR, DRFR and Acc_a / Acc_e / Acc_i
aggregations are our own functions, so lm-eval writes "N/A" for them. Here every headline
metric is written as a **ratio of sums** over samples, sum(num_i) / sum(den_i):

* a mean over the samples that have a value (CSR, ISR, EM, SPC, SIP-F1, Acc_a, Acc_e): num_i
  is the value, den_i is 1, or 0 for a sample without a value;
* DRFR: num_i = satisfied constraints, den_i = scored constraints of sample i;
* Acc_i: only the negatives count (den_i = 1 for a negative, 0 otherwise).

Acc_e and Acc_i are NaN when any sample is unscored (``sci_tasks.metrics.verify``); so are
their errors. Resampling draws whole samples with replacement (``iters`` draws, seeded:
the same inputs always give the same numbers). The paired difference of two models resamples
the samples both answered (matched by ``sample_key``: task and the record's own fields,
whatever the run's judge or image budget) jointly, and gives the 2.5 / 97.5 percentiles
of the replicated differences.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sci_tasks import run_settings

ITERS = 1000
SEED = 1234
_CHUNK = 250  # replicates drawn at once: bounds memory at CHUNK x samples indices

Parts = tuple[float, float] | None  # (num, den) of one sample; None = makes the metric NaN


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


def _value(v: Any) -> Parts:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or math.isnan(v):
        return (0.0, 0.0)  # no value: left out of the mean, as the aggregation does
    return (float(v), 1.0)


def _drfr(record: Mapping[str, Any]) -> Parts:
    parts = record["drfr"]
    return (float(parts["satisfied"]), float(parts["scored"]))


def _acc_e(record: Mapping[str, Any]) -> Parts:
    score = record["acc_e"]  # null: unscored, which makes Acc_e NaN
    return None if score is None else (float(score), 1.0)


def _acc_i(record: Mapping[str, Any]) -> Parts:
    item = record["acc_i"]
    if not item.get("negative"):
        return (0.0, 0.0)
    return None if item["score"] is None else (float(item["score"]), 1.0)


def _plain(name: str) -> Callable[[Mapping[str, Any]], Parts]:
    return lambda record: _value(record[name])


# metric (lm-eval's name, without the filter) -> (num, den) of one logged sample
SAMPLE_PARTS: dict[str, Callable[[Mapping[str, Any]], Parts]] = {
    "csr": _plain("csr"),
    "isr": _plain("isr"),
    "drfr": _drfr,
    "em": _plain("em"),
    "spc": _plain("spc"),
    "sip_f1": _plain("sip_f1"),
    "acc_a": _plain("acc_a"),
    "acc_e": _acc_e,
    "acc_i": _acc_i,
}
LABELS = {"csr": "CSR", "isr": "ISR", "drfr": "DRFR", "em": "EM", "spc": "SPC",
          "sip_f1": "SIP-F1", "acc_a": "Acc_a", "acc_e": "Acc_e", "acc_i": "Acc_i"}  # fmt: skip


def parts_of(metric: str, records: Iterable[Mapping[str, Any]]) -> list[Parts]:
    """Each record's (num, den) for ``metric`` (records without the metric are skipped)."""
    extract = SAMPLE_PARTS[metric]
    return [extract(r) for r in records if metric in r]


# Fields a task's data hook adds to every document for scoring (the run's judges, the image
# budget): run settings, not the record. lm-eval's ``doc_hash`` covers them, so two runs that
# differ only in a judge or budget setting would share no ``doc_hash`` and pair nothing.
RUN_SETTING_FIELDS = run_settings.FIELDS


def sample_key(task: str, record: Mapping[str, Any]) -> tuple[str, str]:
    """The identity of a sample across runs and models: task and the record's own fields
    (the logged document without ``RUN_SETTING_FIELDS``), stable whatever the judge or image
    budget; a samples line without its document falls back to ``doc_hash``, then ``doc_id``."""
    doc = record.get("doc")
    if isinstance(doc, Mapping):
        own = {k: v for k, v in doc.items() if k not in RUN_SETTING_FIELDS}
        text = json.dumps(own, sort_keys=True, ensure_ascii=False, default=str)
        return (task, "doc:" + hashlib.sha256(text.encode()).hexdigest()[:16])
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
    """``bootstrap`` of one of ``SAMPLE_PARTS``' metrics over lm-eval samples records."""
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
    extract = SAMPLE_PARTS[metric]
    return {sample_key(task, r): extract(r) for task, r in samples if metric in r}


def fmt(estimate: Estimate, digits: int = 4) -> str:
    """``0.2500 ± 0.0312``; ``n/a`` for no value; no ± when the error is unknown."""
    if math.isnan(estimate.value):
        return "n/a"
    if math.isnan(estimate.stderr):
        return f"{estimate.value:.{digits}f}"
    return f"{estimate.value:.{digits}f} ± {estimate.stderr:.{digits}f}"
