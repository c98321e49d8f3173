"""The general constraints on the parameter and question forms of the released records
(spec scimif.md, "Parameter and question forms seen in the released records"). Each case
in cases/general_release_forms.json is a record written for this project in a released
form, with a response and the verdict a careful human evaluator gives, and why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sci_tasks.metrics.constraints.registry import CheckInput, evaluate

CASES = json.loads((Path(__file__).parent / "cases" / "general_release_forms.json").read_text())


@pytest.mark.parametrize("case", CASES, ids=[f"{c['constraint']}-{i}" for i, c in enumerate(CASES)])
def test_released_form_is_decided_by_rule(case: dict[str, object]) -> None:
    inp = CheckInput(str(case["response"]), case["parameters"], str(case["question"]))  # type: ignore[arg-type]
    result = evaluate(str(case["constraint"]), inp)
    assert result.score == case["expected"], f"{case['form']} ({case['why']}): {result.reason}"


def test_every_form_has_a_passing_and_a_failing_case() -> None:
    outcomes: dict[str, set[float]] = {}
    for case in CASES:
        outcomes.setdefault(str(case["constraint"]), set()).add(float(case["expected"]))  # type: ignore[arg-type]
    assert all(seen == {0.0, 1.0} for seen in outcomes.values()), outcomes
