"""The data-driven checker cases: every ``tests/cases/checkers/*.jsonl`` file, one JSON object
per line with ``constraint`` (as the data writes it), ``response``, ``parameters``,
``question``, ``expected`` (1.0 / 0.0 / null for unscored) and ``reason_has`` (words the
reason must contain). A new file or row is picked up without editing any test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CASES_DIR = Path(__file__).parent / "cases" / "checkers"
FIELDS = ("constraint", "response", "parameters", "question", "expected", "reason_has")


def read_cases(name: str) -> list[dict[str, Any]]:
    """The rows of one case file, each checked to have exactly the case fields."""
    path = CASES_DIR / name
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            row = json.loads(line)
            assert tuple(row) == FIELDS, f"{path.name} line {number}: fields {tuple(row)}"
            rows.append(row | {"where": f"{path.name}:{number}"})
    return rows


def all_cases() -> list[dict[str, Any]]:
    return [row for path in sorted(CASES_DIR.glob("*.jsonl")) for row in read_cases(path.name)]
