"""Aggregations shared by the benchmarks' task YAMLs. Each returns a number, so a results
file holds numbers only; per-sample detail stays in the samples log (the ``record`` metric).
"""

from __future__ import annotations

from collections.abc import Iterable, Sized
from typing import Any


def count(records: Sized) -> float:
    """Aggregation for ``record``: how many samples were scored (each sample's value is its
    full scoring record, which only the samples log shows)."""
    return float(len(records))


def total(values: Iterable[float]) -> float:
    return float(sum(values))


def distinct_count(per_sample: Iterable[Iterable[Any]]) -> float:
    """How many distinct names the samples list in all (each sample's value is its list)."""
    return float(len({name for names in per_sample for name in names}))
