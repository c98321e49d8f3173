"""SciMIF constraints decided by an LLM judge (through the one judge client).

A rule runs first where it can decide alone (an empty response meets no procedure), so the
judge is only asked when it is needed. Prompts are Jinja templates under templates/judge/.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sci_tasks.metrics.constraints.base import CheckInput, JudgedCheck
from sci_tasks.metrics.judge import JudgeRequest
from sci_tasks.metrics.verdict import Verdict
from sci_tasks.prompts import render, version

STEPS_TEMPLATE = "judge/scimif_steps.jinja"


def _count_schema(wanted: str, found: str) -> dict[str, Any]:
    """The reply the judge must give: the count asked for, the count it found, a reason."""
    return {
        "type": "object",
        "properties": {
            wanted: {"type": "integer", "minimum": 1},
            found: {"type": "integer", "minimum": 0},
            "reason": {"type": "string"},
        },
        "required": [wanted, found, "reason"],
        "additionalProperties": False,
    }


STEPS_SCHEMA = _count_schema("required_steps", "matched_steps")
NUMBER_TEMPLATE = "judge/scimif_number_response.jinja"
NUMBER_SCHEMA = _count_schema("required", "distinct")


def _request(template: str, schema: dict[str, Any], inp: CheckInput) -> JudgeRequest | Verdict:
    if not inp.response.strip():
        return Verdict.failed("empty response")
    context = {"question": inp.question, "parameters": inp.parameters, "response": inp.response}
    return JudgeRequest(render(template, context), schema, version(template))


def steps_request(inp: CheckInput) -> JudgeRequest | Verdict:
    return _request(STEPS_TEMPLATE, STEPS_SCHEMA, inp)


def steps_verdict(data: Mapping[str, Any], inp: CheckInput) -> Verdict:
    required, matched = int(data["required_steps"]), int(data["matched_steps"])
    if matched > required:
        return Verdict.unscored(f"judge counted {matched} matched of {required} required steps")
    return Verdict(matched / required, f"{matched}/{required} required steps: {data['reason']}")


def number_request(inp: CheckInput) -> JudgeRequest | Verdict:
    return _request(NUMBER_TEMPLATE, NUMBER_SCHEMA, inp)


def number_verdict(data: Mapping[str, Any], inp: CheckInput) -> Verdict:
    required, distinct = int(data["required"]), int(data["distinct"])
    return Verdict.of(
        distinct == required, f"{distinct} distinct of {required} required: {data['reason']}"
    )


# Registered by each discipline module (``*_analysis_steps_constraint``,
# ``chemistry_reaction_steps_constraint``) and ``general.py`` (``general_number_response``).
STEPS = JudgedCheck(steps_request, steps_verdict)
NUMBER_RESPONSE = JudgedCheck(number_request, number_verdict)
