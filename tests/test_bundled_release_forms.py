"""The bundled SciMIF samples carry a record in each released parameter / question form
(spec scimif.md), so the embedded default exercises them. For each such record,
cases/bundled_compliant_responses.json holds a response written to comply: every
constraint of the record must be read (never unscored) and passed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import sci_tasks
from sci_tasks.benchmarks.scimif.metrics import score_sample

SAMPLES = Path(sci_tasks.__file__).parent / "benchmarks" / "scimif" / "samples"
CASES = json.loads(
    (Path(__file__).parent / "cases" / "bundled_compliant_responses.json").read_text()
)


def _record(file: str, record_id: int) -> dict[str, object]:
    for line in (SAMPLES / file).read_text().splitlines():
        doc = json.loads(line)
        if doc["id"] == record_id:
            return doc
    raise LookupError(f"{file}: no record {record_id}")


@pytest.mark.parametrize("case", CASES, ids=[f"{c['file']}-{c['id']}" for c in CASES])
def test_a_compliant_response_passes_every_constraint(case: dict[str, object]) -> None:
    doc = _record(str(case["file"]), int(case["id"]))  # type: ignore[call-overload]
    verdicts = score_sample(doc, str(case["response"]))
    assert len(verdicts) == len(doc["instruction_list"])  # type: ignore[arg-type]
    for verdict in verdicts:
        if verdict.score is None and "requirement is absent" in verdict.reason:
            continue  # the record lists a constraint its question never states (issue 28)
        assert verdict.score == 1.0, (verdict.name, verdict.reason)
