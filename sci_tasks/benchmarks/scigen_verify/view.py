"""SciGen-Verify in sci-view: a sample's judgement / explanation / edit cascade as checks
(``Benchmark.checks``). A rubric record has none (its values are shown as they are)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sci_tasks.benchmarks import Check


def checks(detail: Mapping[str, Any]) -> list[Check]:
    """The checks of one logged SciGen-Verify record (``metrics.verify``'s)."""
    if "judgement" not in detail:
        return []
    category = detail.get("category") or ""
    judged = f"judgement {detail.get('judgement')}, label {detail.get('label')}"
    found = [
        Check("judgement (Acc_a)", detail.get("acc_a"), detail.get("parse_note") or judged,
              category),
        Check("explanation (Acc_e)", detail.get("acc_e"), detail.get("acc_e_reason") or "",
              category, detail.get("acc_e_judge") or ""),
    ]  # fmt: skip
    if not detail.get("label"):  # Acc_i counts negatives only: no edit check otherwise
        found.append(
            Check("edit (Acc_i)", detail.get("acc_i"), detail.get("acc_i_reason") or "",
                  category, detail.get("acc_i_judge") or "")
        )  # fmt: skip
    return found
