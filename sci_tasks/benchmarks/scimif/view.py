"""SciMIF in sci-view: one check per constraint of a sample (``Benchmark.checks``).

Light on purpose (no checker, no judge client): sci-view imports it for every page."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sci_tasks.benchmarks import Check


def checks(detail: Mapping[str, Any]) -> list[Check]:
    """The constraints' verdicts of one logged SciMIF record (``metrics.scimif``'s)."""
    return [
        Check(
            name=v.get("constraint") or f"(unknown) {v.get('name')}",
            score=v.get("score"),
            reason=v.get("reason") or "",
            group=v.get("group") or "",
            judge=v.get("judge") or "",
        )
        for v in detail.get("constraints") or []
    ]
