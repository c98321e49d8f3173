"""SPM-Bench in sci-view: a sample's one check, its answer's exact match
(``Benchmark.checks``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sci_tasks.benchmarks import Check


def checks(detail: Mapping[str, Any]) -> list[Check]:
    """The exact-match check of one logged SPM-Bench record (``metrics.spm``'s)."""
    if "gold" not in detail:
        return []
    pred = ", ".join(detail.get("prediction") or []) or "(none)"
    gold = ", ".join(detail.get("gold") or [])
    note = detail.get("parse_note") or ""
    reason = f"predicted {pred}; gold {gold}" + (f"; {note}" if note else "")
    return [Check("answer (EM)", detail.get("em"), reason, detail.get("field") or "")]
