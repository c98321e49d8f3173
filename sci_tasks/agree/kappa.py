"""Agreement of several sources on the same items: percent agreement, Cohen's kappa (two
sources; scikit-learn's ``cohen_kappa_score``) or Fleiss' kappa (more; statsmodels'
``fleiss_kappa`` over ``aggregate_raters``), a seeded bootstrap 95% interval, and the
confusion matrix of each pair of sources.

The bootstrap resamples items with replacement. Each replicate's Cohen's kappa is
statsmodels' ``cohens_kappa`` of the replicate's contingency table: the same number as
scikit-learn's on the items (a test holds them equal), at a fraction of its cost per call
(1,000 replicates per constraint). A replicate in which kappa is undefined (one category
only) is left out of the percentiles.

Kappa is *undefined* when every value of every source is one category (expected agreement
1: 0 / 0); it is then None, never a number.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from sklearn.metrics import cohen_kappa_score, confusion_matrix
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa

ITERS = 1000
LEVEL = 0.95

Rows = Sequence[Sequence[float]] | np.ndarray  # per item: each source's value, in order


@dataclass(frozen=True)
class Agreement:
    """The figures of one set of items (a constraint's, or all)."""

    n: int
    agreement: float | None  # share of items on which every source gives the same value
    kappa: float | None  # None: undefined (one category only, or no item)
    low: float | None  # bootstrap percentile interval at LEVEL; None when undefined
    high: float | None
    categories: tuple[float, ...] = ()
    # (source a, source b) -> counts, rows a's categories, columns b's, as ``categories``
    confusion: dict[tuple[int, int], list[list[int]]] = field(default_factory=dict)


def kappa(rows: Rows) -> float | None:
    """Cohen's kappa (two sources) or Fleiss' (more) of ``rows``; None when undefined."""
    table = np.asarray(rows, dtype=float)
    if len(table) == 0 or len(np.unique(table)) < 2:
        return None
    if table.shape[1] == 2:
        value = float(cohen_kappa_score(table[:, 0], table[:, 1]))
    else:
        value = float(fleiss_kappa(aggregate_raters(table)[0], method="fleiss"))
    return None if math.isnan(value) else value


def agreement(rows: Rows, iters: int = ITERS, seed: int = 1) -> Agreement:
    """Every figure of ``rows`` (items x sources, values as floats)."""
    table = np.asarray(rows, dtype=float).reshape(len(rows), -1)
    n, width = table.shape
    if n == 0:
        return Agreement(0, None, None, None, None)
    categories = tuple(float(c) for c in np.unique(table))
    same = float(np.mean(np.all(table == table[:, :1], axis=1)))
    point = kappa(table)
    low = high = None
    if point is not None and iters > 0:
        low, high = _interval(table, categories, iters, seed)
    with warnings.catch_warnings():  # "a single label was found": the labels are given
        warnings.simplefilter("ignore", UserWarning)
        pairs = {
            (a, b): confusion_matrix(table[:, a], table[:, b], labels=list(categories)).tolist()
            for a in range(width)
            for b in range(a + 1, width)
        }
    return Agreement(n, same, point, low, high, categories, pairs)


def _interval(
    table: np.ndarray, categories: tuple[float, ...], iters: int, seed: int
) -> tuple[float | None, float | None]:
    n, width = table.shape
    draws = np.random.default_rng(seed).integers(0, n, size=(iters, n))
    k = len(categories)
    codes = np.searchsorted(np.asarray(categories), table).astype(np.int64)  # category index
    replicates: list[float] = []
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # an undefined replicate: 0 / 0
        if width == 2:
            cells = codes[:, 0] * k + codes[:, 1]
            for draw in draws:
                counts = np.bincount(cells[draw], minlength=k * k).reshape(k, k)
                replicates.append(float(cohens_kappa(counts, return_results=False)))
        else:
            per_item = np.stack([np.bincount(row, minlength=k) for row in codes])
            for draw in draws:
                replicates.append(float(fleiss_kappa(per_item[draw], method="fleiss")))
    finite = np.asarray([r for r in replicates if math.isfinite(r)])
    if not len(finite):
        return None, None
    tail = (1.0 - LEVEL) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high)
