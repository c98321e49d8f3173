"""Optional LLM extraction for rule checkers: when a rule finds no span (a molecule, a
formula, a method name), the judge may be asked to COPY one out of the response. The span
is accepted only if it occurs verbatim in the response, and the rule then decides on it,
so an extractor can locate but never invent or judge."""

from __future__ import annotations

from typing import Any

from sci_tasks.metrics.constraints.base import CheckInput
from sci_tasks.metrics.judge import JudgeRequest
from sci_tasks.prompts import render, version

TEMPLATE = "judge/extract.jinja"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"found": {"type": "boolean"}, "span": {"type": "string"}},
    "required": ["found", "span"],
    "additionalProperties": False,
}


def extract_span(inp: CheckInput, what: str) -> tuple[str | None, str]:
    """(span, note): a verbatim span of ``inp.response`` naming ``what``, or None with why.

    Without a judge in force this is (None, "no extractor configured")."""
    if inp.judge is None:
        return None, "no extractor configured"
    request = JudgeRequest(
        render(TEMPLATE, {"what": what, "response": inp.response}), SCHEMA, version(TEMPLATE)
    )
    reply = inp.judge.ask(request)
    if reply.data is None:
        return None, f"extractor {reply.model}: {reply.error}"
    span = str(reply.data["span"]).strip()
    if not reply.data["found"] or not span:
        return None, f"extractor {reply.model} found no {what}"
    if span not in inp.response:
        return None, f"extractor {reply.model} returned text not in the response: {span[:40]!r}"
    return span, f"extracted by {reply.provenance}"
