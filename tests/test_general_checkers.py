"""The rule checkers of the general SciMIF constraints, on realistic model outputs."""

from __future__ import annotations

import pytest

from sci_tasks.metrics.constraints import general, registry
from sci_tasks.metrics.constraints.answers import code_blocks, final_answer
from sci_tasks.metrics.constraints.number_grammar import find_numbers, parse_decimal_places
from sci_tasks.metrics.constraints.registry import CheckInput
from sci_tasks.metrics.constraints.structured import structured_answers
from sci_tasks.metrics.constraints.text import requirement_scope

from .checker_cases import read_cases

RULE_GENERAL = sorted(
    c.name
    for c in registry.CONSTRAINTS.values()
    if c.domain == "general" and c.kind is registry.Kind.RULE
)

# (checker, response, parameters, question, score, words the reason must contain)
Case = tuple[str, str, str | None, str, float | None, str]

REASONING = (
    "We use v = d / t with d = 12.5 m and t = 4.0 s.\nStep 1: divide the distance by the time.\n"
)

# The cases are data (tests/cases/checkers/general.jsonl): one JSON object per line with the
# constraint, response, parameters, question, expected score and words the reason must hold.
CASES: list[Case] = [
    (c["constraint"].removeprefix("general_"), c["response"], c["parameters"], c["question"],
     c["expected"], c["reason_has"])
    for c in read_cases("general.jsonl")
]  # fmt: skip


def _run(case: Case) -> registry.ConstraintResult:
    checker, response, parameters, question, _, _ = case
    return registry.evaluate(f"general_{checker}", CheckInput(response, parameters, question))


def test_checkers_are_registered_and_called_directly() -> None:
    checkers = registry.registered()
    for name in RULE_GENERAL:
        assert callable(checkers[name]), name
    verdict = general.judge(CheckInput("No.", None, "Answer Yes or No."))
    assert verdict.score == 1.0


def test_evaluate_through_the_registry_with_aliases_and_metadata() -> None:
    result = registry.evaluate(
        "General_JSON_Constraint", CheckInput('{"a": 1}', None, "Respond in JSON.")
    )
    assert (result.constraint, result.group, result.domain) == (
        "general_json_constraint",
        "Format",
        "general",
    )
    assert result.score == 1.0
    boxed = registry.evaluate(
        "general_wrap_up", CheckInput("So x = \\boxed{2}", "\\boxed{}", "Solve for x.")
    )
    assert boxed.score == 1.0 and boxed.group == "Format"


def test_number_response_is_judge_scored_and_unscored_without_a_judge() -> None:
    inp = CheckInput("Mechanism A ... Mechanism B ... Mechanism C", "N = 3 types", "List 3.")
    result = registry.evaluate("general_number_response", inp)
    assert result.score is None
    assert "judge" in result.reason
    assert "general_number_response" not in {f"general_{c[0]}" for c in CASES}


# The rule checkers that cannot decide without a stated requirement, with one.
_REQUIREMENTS = {
    "general_decimal_annotation": "2 decimal places",
    "general_wrap_up": "\\boxed{}",
    "general_choose_from": "options: A, B",
    "general_response_structure": "end",
}


@pytest.mark.parametrize("name", RULE_GENERAL)
def test_empty_response_fails_every_rule_checker_that_can_be_decided(name: str) -> None:
    question = "Answer in lowercase." if "lowercase" in name else "Answer in uppercase."
    question = question if "case" in name else "Answer."
    result = registry.evaluate(name, CheckInput("", _REQUIREMENTS.get(name), question))
    assert result.score == 0.0, result.reason


# ------------------------------------------------------------------- shared helpers


def test_find_numbers_ignores_markers_identifiers_indices_and_labels() -> None:
    text = (
        "1. Step 2: dissolve H2O and CO2; Fig. 3 shows 3.14 m^2 at 25 °C, "
        "cm^{-1}, x_{12}, the 2nd run, 1.2 × 10^{-4}, 6.02e23, 1,234.5 and 10^{-3}."
    )
    numbers = find_numbers(text)
    assert [n.text for n in numbers] == [
        "3.14",
        "25",
        "1.2 × 10^{-4}",
        "6.02e23",
        "1,234.5",
        "10^{-3}",
    ]
    assert [n.decimals for n in numbers] == [2, 0, 1, 2, 1, 0]
    assert [n.scientific for n in numbers] == [False, False, True, True, False, True]


def test_decimal_places_in_words_and_digits() -> None:
    assert parse_decimal_places("one decimal place") == {1}
    assert parse_decimal_places("2 decimal places") == {2}
    assert parse_decimal_places("three-decimal precision") == {3}
    assert parse_decimal_places("decimal_places = 4") == {4}
    assert parse_decimal_places("to the nearest hundredth") == {2}
    assert parse_decimal_places("two") == {2}
    assert parse_decimal_places("significant figures: 3") == set()


def test_final_answer_prefers_the_last_box_or_marker() -> None:
    assert final_answer("x\n\\boxed{\\frac{1}{2}}\nDone.").text == "\\frac{1}{2}"
    assert final_answer("Final answer: \\boxed{7}").text == "7"
    assert final_answer("\\boxed{7}\n**Final Answer:** 8 m").text == "8 m"
    assert final_answer("**Final Answer**\n\n42\n").text == "42"
    assert final_answer("no marker here") is None


def test_scope_and_structured_answer() -> None:
    import re

    key = re.compile("uppercase")
    assert requirement_scope("Your final answer must be in uppercase.", "", key) == "final"
    assert requirement_scope("Write the entire response in uppercase.", "", key) == "whole"
    assert requirement_scope("Use uppercase.", "", key) == "whole"
    assert requirement_scope("Use uppercase.", "final answer only", key) == "final"
    text = "Intro\n```python\nx = 1\n```\n```json\n{}\n```\n"
    assert [b.lang for b in code_blocks(text)] == ["python", "json"]
    assert structured_answers(text, ("json",), "whole") == ([("{}", "the ```json block")], 1)
    assert structured_answers(" [1] ", ("python",), "whole") == ([("[1]", "the whole response")], 1)
    assert structured_answers("So:\nAnswer: [1]", (), "final")[0] == [
        ("So:\nAnswer: [1]", "the whole response"),
        ("[1]", "the final answer (after answer marker)"),
    ]
