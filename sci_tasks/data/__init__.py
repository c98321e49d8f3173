"""The benchmarks' loaders and the data-location convention (``locate``).

A loader reads each location once per process (``read_once``): lm-eval builds a task's
dataset for every task of a group, and the records do not change during a run.
``forget_read_data`` drops what was read, for a caller whose files changed (tests).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
_READ: list[Any] = []


def read_once(maxsize: int = 8) -> Callable[[F], F]:
    """``functools.lru_cache`` for a loader's read of one location, registered so that
    ``forget_read_data`` can clear it."""

    def wrap(fn: F) -> F:
        cached = lru_cache(maxsize=maxsize)(fn)
        _READ.append(cached)
        return cached  # type: ignore[return-value]

    return wrap


def forget_read_data() -> None:
    for cached in _READ:
        cached.cache_clear()
