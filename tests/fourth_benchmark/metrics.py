"""Scoring of the units benchmark: the reply's last "<number> <unit>" against the answer.

``number``: the number equals the answer's (to a relative 1e-9, so 0.35 and 3.5e-1 agree);
``exact``: the number and the unit, the unit spelled as the answer's (case counts: mL is
not ML). A reply with no number scores 0 on both, and its record says so."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from sci_tasks.benchmarks import Check

PROMPT = "{question} Reply with the number and the unit only, for example: 12 cm."
# a number (sign, decimals, exponent) and the word after it, if any
QUANTITY = re.compile(r"(?<![\w.])(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?:\s*([^\W\d_]+))?")


def doc_to_text(doc: Mapping[str, Any]) -> str:
    return PROMPT.format(question=doc["question"])


def doc_to_target(doc: Mapping[str, Any]) -> str:
    return f"{doc['value']:g} {doc['unit']}"


def parse(reply: str) -> tuple[float | None, str]:
    """The last number of ``reply`` and the unit written after it ("" when none)."""
    found = QUANTITY.findall(reply or "")
    if not found:
        return None, ""
    number, unit = found[-1]
    return float(number), unit


def score(doc: Mapping[str, Any], reply: str) -> dict[str, Any]:
    """The record of one question: the answer, what the reply said, and the two scores."""
    value, unit = parse(reply)
    number_ok = value is not None and math.isclose(value, doc["value"], rel_tol=1e-9)
    unit_ok = unit == doc["unit"]
    return {
        "id": doc["id"],
        "kind": doc["kind"],
        "gold": [doc["value"], doc["unit"]],
        "prediction": None if value is None else [value, unit],
        "number": float(number_ok),
        "unit": float(unit_ok),
        "exact": float(number_ok and unit_ok),
    }


def process_results(doc: Mapping[str, Any], results: list[str]) -> dict[str, Any]:
    record = score(doc, results[0] if results else "")
    return {"number": record["number"], "exact": record["exact"], "record": record}


# --- the plugin's hooks -------------------------------------------------------------------


def number_parts(sample: Mapping[str, Any]) -> tuple[float, float]:
    """(num, den) of one logged sample for the bootstrap: its 0/1 over one question."""
    return float(sample["number"]), 1.0


def exact_parts(sample: Mapping[str, Any]) -> tuple[float, float]:
    return float(sample["exact"]), 1.0


def checks(detail: Mapping[str, Any]) -> list[Check]:
    """sci-view's checks of one record: the number and the unit, grouped by kind."""
    gold_value, gold_unit = detail["gold"]
    said = detail.get("prediction")
    kind = str(detail.get("kind") or "")
    if said is None:
        missing = "no number in the reply"
        return [
            Check("number", 0.0, missing, kind, "rule"),
            Check("unit", 0.0, missing, kind, "rule"),
        ]
    value, unit = said
    return [
        Check("number", detail["number"], f"said {value:g}, answer {gold_value:g}", kind, "rule"),
        Check(
            "unit", detail["unit"], f"said {unit or '(none)'!s}, answer {gold_unit}", kind, "rule"
        ),
    ]
