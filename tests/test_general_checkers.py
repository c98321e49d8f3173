"""The rule checkers of the general SciMIF constraints, on realistic model outputs."""

from __future__ import annotations

import pytest

from sci_tasks.metrics.constraints import general, registry
from sci_tasks.metrics.constraints.registry import CheckInput
from sci_tasks.metrics.constraints.text import (
    code_blocks,
    final_answer,
    find_numbers,
    parse_decimal_places,
    requirement_scope,
    structured_answers,
)

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

CASES: list[Case] = [
    # ---------------------------------------------------------------- decimal annotation
    (
        "decimal_annotation",
        "The density is 2.70 g/cm^3 and the mass is 13.50 g.",
        "2 decimal places",
        "Report every value to two decimal places.",
        1.0,
        "2 numbers",
    ),
    (
        "decimal_annotation",
        "The density is 2.7 g/cm^3 and the mass is 13.50 g.",
        "two decimal places",
        "",
        0.0,
        "2.7",
    ),
    (  # parameters null: the count comes from the question, scope = final answer
        "decimal_annotation",
        REASONING + "Final answer: 3.1 m/s",
        None,
        "What is the speed? Give your final answer to one decimal place.",
        1.0,
        "final answer",
    ),
    (  # same response, but the question asks for every number: 12.5, 4.0 are fine, 3.12 not
        "decimal_annotation",
        REASONING + "Final answer: 3.12 m/s",
        None,
        "Express all numerical values in your response with one decimal place.",
        0.0,
        "3.12",
    ),
    (  # a bare count as parameter; list markers, H2O and Step labels are not numbers
        "decimal_annotation",
        "1. Heat 2.50 g of CuSO4 in H2O.\n2. Step 3 gives 0.75 g.",
        "2",
        "",
        1.0,
        "2 numbers",
    ),
    ("decimal_annotation", "The yield is 85.20%.", None, "Explain your reasoning.", None, "not"),
    ("decimal_annotation", "No numbers at all.", "1 decimal place", "", 0.0, "no number"),
    (
        "decimal_annotation",
        "x = 1.5",
        None,
        "Give x to one decimal place and y to three decimal places.",
        None,
        "conflicting",
    ),
    (
        "decimal_annotation",
        "The answer is 42.",
        None,
        "Round your answer to the nearest integer.",
        1.0,
        "0 decimals",
    ),
    # ---------------------------------------------------------- scientific annotation
    (
        "scientific_annotation",
        "Final answer: $1.23 \\times 10^{-4}$ mol/L",
        None,
        "Express the final answer in scientific notation.",
        1.0,
        "scientific notation",
    ),
    (
        "scientific_annotation",
        "k = 6.02e23 per mol and c = 3.0 × 10^8 m/s, E = 1.6*10^-19 J",
        None,
        "Write every number in scientific notation.",
        1.0,
        "3 numbers",
    ),
    (
        "scientific_annotation",
        "Final answer: 0.000123 mol/L",
        None,
        "Express the final answer in scientific notation.",
        0.0,
        "0.000123",
    ),
    (
        "scientific_annotation",
        "Final answer: 12.3 × 10^-5 mol/L",
        None,
        "Express the final answer in scientific notation.",
        0.0,
        "mantissa",
    ),
    (  # whole response: the intermediate 2 is not in scientific notation
        "scientific_annotation",
        "Multiply by 2 to get 2.46e-4.",
        "all numbers in scientific notation",
        "",
        0.0,
        "2",
    ),
    (
        "scientific_annotation",
        "The rate constant is 2.5 × 10⁻³ s⁻¹.",
        None,
        "Give the rate constant in scientific notation.",
        1.0,
        "1 number",
    ),
    # ------------------------------------------------------------------- letter case
    (
        "all_uppercase",
        "THE PRODUCT IS SODIUM CHLORIDE (NACL), 58.44 G/MOL.",
        None,
        "Your entire response must be in uppercase letters.",
        1.0,
        "uppercase",
    ),
    (
        "all_uppercase",
        "The product is sodium chloride.\nFINAL ANSWER: SODIUM CHLORIDE",
        None,
        "Your final answer must be in all uppercase.",
        1.0,
        "final answer",
    ),
    (
        "all_uppercase",
        "The product is sodium chloride.\nFINAL ANSWER: SODIUM CHLORIDE",
        None,
        "Your entire response must be in uppercase letters.",
        0.0,
        "'The'",
    ),
    (
        "all_uppercase",
        "Final answer: Sodium chloride",
        None,
        "Your final answer must be in all capital letters.",
        0.0,
        "'Sodium'",
    ),
    ("all_uppercase", "42 -> 17 (±3)", None, "Respond in uppercase.", 0.0, "no letters"),
    (
        "all_lowercase",
        "the mitochondrion makes atp through oxidative phosphorylation; $\\Delta g < 0$.",
        None,
        "Your response must be entirely in lowercase.",
        1.0,
        "lowercase",
    ),
    (
        "all_lowercase",
        "The mitochondrion makes ATP.",
        None,
        "Your response must be entirely in lowercase.",
        0.0,
        "not lowercase",
    ),
    (
        "all_lowercase",
        "The Gibbs energy is negative, so the reaction is spontaneous.\n\\boxed{spontaneous}",
        None,
        "Write your final answer in lowercase.",
        1.0,
        "\\boxed{}",
    ),
    # ------------------------------------------------------------------------ wrap up
    (
        "wrap_up",
        REASONING + "So the speed is \\boxed{3.1\\ \\text{m/s}}.",
        None,
        "Put your final answer in \\boxed{}.",
        1.0,
        "3.1",
    ),
    ("wrap_up", REASONING + "So the speed is 3.1 m/s.", "\\boxed{}", "", 0.0, "no closed"),
    ("wrap_up", "The answer is \\boxed{}.", None, "Box your final answer.", 0.0, "empty"),
    (
        "wrap_up",
        REASONING + "Final answer: [[3.1 m/s]]",
        "wrap the final answer in [[ ]]",
        "",
        1.0,
        "[[ ]]",
    ),
    ("wrap_up", REASONING + "Final answer: 3.1 m/s", "[[ ]]", "", 0.0, "[[ ]]"),
    (
        "wrap_up",
        "The speed is <answer>3.1 m/s</answer>.",
        None,
        "Enclose the final answer within <answer></answer> tags.",
        1.0,
        "<answer>",
    ),
    ("wrap_up", "**Final Answer: 3.1 m/s**", "bold", "", 1.0, "3.1"),
    (  # the bold label alone does not wrap the answer
        "wrap_up",
        "**Final Answer:** 3.1 m/s",
        None,
        "Wrap your final answer in bold (** **).",
        0.0,
        "** **",
    ),
    (
        "wrap_up",
        'The mineral is "quartz".',
        None,
        "Wrap the final answer in double quotes.",
        1.0,
        "quartz",
    ),
    # No wrapper named in parameters or question: any recognised wrapper is accepted
    # (the authors' newest rule), and plain prose is none.
    ("wrap_up", "The mineral is quartz.", None, "Explain your reasoning.", 0.0, "no wrapper"),
    ("wrap_up", "It is quartz.\nFinal answer: [quartz]", None, "Wrap up.", 1.0, "[ ]"),
    # ------------------------------------------------------------------ json
    (
        "json_constraint",
        'Here is the result:\n```json\n{"compound": "NaCl", "molar_mass": 58.44}\n```',
        None,
        "Format your answer as a JSON object.",
        1.0,
        "JSON object",
    ),
    (
        "json_constraint",
        '{"compound": "NaCl"}',
        None,
        "Your entire response must be JSON.",
        1.0,
        "1 key",
    ),
    ("json_constraint", '["NaCl", "KCl"]', None, "Respond in JSON.", 0.0, "array"),
    (
        "json_constraint",
        '{"compound": "NaCl",}',
        None,
        "Respond in JSON.",
        0.0,
        "parse error at char",
    ),
    (
        "json_constraint",
        'The compound is {"compound": "NaCl"}',
        None,
        "Your entire response must be valid JSON.",
        0.0,
        "parse error",
    ),
    (  # scoped to the final answer, no fence: the text after the marker is checked
        "json_constraint",
        'The salt forms from Na and Cl.\nFinal answer: {"compound": "NaCl"}',
        None,
        "Give the final answer as a JSON object.",
        1.0,
        "final answer",
    ),
    ("json_constraint", '{"x": NaN}', None, "Respond in JSON.", 0.0, "NaN"),
    # ------------------------------------------------------------------ list / tuple
    ("list_constraint", "['NaCl', 'KCl', 'LiF']", None, "Give a Python list.", 1.0, "3 items"),
    (
        "list_constraint",
        "The salts are:\n```python\n['NaCl', 'KCl']\n```",
        None,
        "Return the salts as a Python list.",
        1.0,
        "```python",
    ),
    ("list_constraint", "NaCl, KCl, LiF", None, "Give a Python list.", 0.0, "not bracketed"),
    ("list_constraint", "('NaCl', 'KCl')", None, "Give a Python list.", 0.0, "tuple"),
    ("list_constraint", "[NaCl, KCl]", None, "Give a Python list.", 0.0, "not a Python literal"),
    (
        "tuple_constraint",
        "(6.02e23, 'mol^-1')",
        None,
        "Answer as a Python tuple.",
        1.0,
        "tuple of 2",
    ),
    (
        "tuple_constraint",
        "6.02e23, 'mol^-1'",
        None,
        "Answer as a Python tuple.",
        0.0,
        "not bracketed",
    ),
    ("tuple_constraint", "[6.02e23, 'mol^-1']", None, "Answer as a Python tuple.", 0.0, "list"),
    # ---------------------------------------------------------------- dictionary
    (
        "dictionary_constraint",
        "{'name': 'glucose', 'value': 180.16}",
        "keys: name, value",
        "",
        1.0,
        "required keys name, value",
    ),
    ("dictionary_constraint", "{'name': 'glucose'}", "keys: name, value", "", 0.0, "value"),
    (
        "dictionary_constraint",
        "{'element': 'Fe', 'mass': 55.85}",
        None,
        "Return a Python dictionary with the keys 'element' and 'mass'.",
        1.0,
        "element, mass",
    ),
    (
        "dictionary_constraint",
        "{'element': 'Fe'}",
        None,
        'Answer with a dictionary such as {"element": ..., "mass": ...}.',
        0.0,
        "mass",
    ),
    ("dictionary_constraint", "{'a': 1}", None, "Answer with a Python dictionary.", 1.0, "dict"),
    ("dictionary_constraint", "['a', 1]", None, "Answer with a Python dictionary.", 0.0, "list"),
    # ------------------------------------------------------------------ markdown
    (
        "markdown_constraint",
        "## Mechanism\n\n1. Protonation of the carbonyl\n2. Nucleophilic attack\n",
        None,
        "Format your response in Markdown.",
        1.0,
        "heading, list",
    ),
    (
        "markdown_constraint",
        "| step | reagent |\n| --- | --- |\n| 1 | HCl |",
        None,
        "Use Markdown.",
        1.0,
        "table",
    ),
    (
        "markdown_constraint",
        "The rate doubles because **k** grows.",
        None,
        "Use Markdown.",
        1.0,
        "bold",
    ),
    (
        "markdown_constraint",
        "The reaction is first order, so the rate doubles when the concentration doubles.",
        None,
        "Use Markdown.",
        0.0,
        "no Markdown",
    ),
    # ---------------------------------------------------------------------- html
    (
        "html_constraint",
        "<div><p>The answer is <b>4</b> mol.</p><br><img src='a.png'></div>",
        None,
        "Format your answer as HTML.",
        1.0,
        "5 elements",
    ),
    (
        "html_constraint",
        "```html\n<!DOCTYPE html>\n<html><body><p>4 mol</p></body></html>\n```",
        None,
        "Format your answer as HTML.",
        1.0,
        "<html>",
    ),
    (
        "html_constraint",
        "<div><p>4 <b>mol</p></b></div>",
        None,
        "Use HTML.",
        0.0,
        "</p> closes <b>",
    ),
    ("html_constraint", "<div><p>4 mol</p>", None, "Use HTML.", 0.0, "<div> never closed"),
    ("html_constraint", "Sure! <p>4 mol</p>", None, "Use HTML.", 0.0, "text outside"),
    ("html_constraint", "4 mol", None, "Use HTML.", 0.0, "no HTML tags"),
    # ----------------------------------------------------------------------- xml
    (
        "xml_constraint",
        "<answer><value unit='mol'>4</value></answer>",
        "root tag <answer>",
        "",
        1.0,
        "root <answer>",
    ),
    (
        "xml_constraint",
        "<result><value>4</value></result>",
        "root tag <answer>",
        "",
        0.0,
        "required <answer>",
    ),
    (
        "xml_constraint",
        "<result>4</result>",
        None,
        "Format the output as XML with <answer> as the root element.",
        0.0,
        "required <answer>",
    ),
    ("xml_constraint", "<answer><value>4</answer>", None, "Use XML.", 0.0, "line 1, column"),
    ("xml_constraint", "```xml\n<r><v>4</v></r>\n```", None, "Use XML.", 1.0, "root <r>"),
    # ----------------------------------------------------------------------- csv
    (
        "csv_constraint",
        'element,mass\nFe,55.85\n"O, oxygen",16.00',
        None,
        "Give the table in CSV format.",
        1.0,
        "3 rows x 2 columns",
    ),
    ("csv_constraint", "element\nFe\nO", None, "Give the table as CSV.", 0.0, "1 column"),
    (
        "csv_constraint",
        "element,mass\nFe,55.85,solid\nO,16.00",
        None,
        "Give the table as CSV.",
        0.0,
        "row 2 has 3 fields",
    ),
    ("csv_constraint", "Fe, 55.85", None, "Give the table as CSV.", 0.0, "1 CSV row"),
    # --------------------------------------------------------------- choose from
    (
        "choose_from",
        "The clouds cover the sky.\nAnswer: cloudy",
        None,
        "What is the weather? Choose one of: sunny, cloudy, rainy.",
        1.0,
        "cloudy",
    ),
    (  # two options named in the final answer
        "choose_from",
        "It could be sunny or cloudy.",
        None,
        "What is the weather? Choose one of: sunny, cloudy, rainy.",
        0.0,
        "2 options",
    ),
    ("choose_from", "snowy", None, "Choose one of: sunny, cloudy, rainy.", 0.0, "none of the 3"),
    (
        "choose_from",
        "The layering points to (a) sedimentary.",
        None,
        "Which rock type? Choose from: (a) sedimentary, (b) igneous, (c) metamorphic.",
        1.0,
        "sedimentary",
    ),
    (  # answered by label only
        "choose_from",
        "Crystals interlock, so it cooled from a melt.\nFinal answer: b",
        None,
        "Which rock type? Choose from: (a) sedimentary, (b) igneous, (c) metamorphic.",
        1.0,
        "igneous",
    ),
    ("choose_from", "Final answer: C", "options: A, B, C, D", "Which is correct?", 1.0, "C"),
    ("choose_from", "Answer: A", "options: A, B, C, D", "Which is correct?", 1.0, "A"),
    ("choose_from", "A or B", "options: A, B, C, D", "Which is correct?", 0.0, "2 options"),
    (  # the article "A" is not option A
        "choose_from",
        "A careful look rules out the rest.\nThe correct option is D.",
        "options: A, B, C, D",
        "",
        1.0,
        "D",
    ),
    (  # a shorter option inside a longer one does not count
        "choose_from",
        "partly cloudy",
        None,
        "Choose one of: cloudy, partly cloudy, sunny.",
        1.0,
        "partly cloudy",
    ),
    ("choose_from", "increase", None, "Choose between increase or decrease.", 1.0, "increase"),
    (
        "choose_from",
        "Desert\n",
        None,
        "Identify the scene. Options:\nA. Forest\nB. Desert\nC. Urban",
        1.0,
        "Desert",
    ),
    ("choose_from", "cloudy", None, "Describe the weather.", None, "not found"),
    ("choose_from", "**Cloudy**", None, "Choose one of: sunny, cloudy, rainy.", 1.0, "cloudy"),
    # ---------------------------------------------------------------------- judge
    ("judge", "Yes.", None, "Is the compound chiral? Answer with only Yes or No.", 1.0, "'Yes.'"),
    ("judge", "no", None, "Is the compound chiral? Answer with only Yes or No.", 1.0, "'no'"),
    (
        "judge",
        "Yes, because C2 is a stereocenter.",
        None,
        "Is the compound chiral? Answer with only Yes or No.",
        0.0,
        "not just Yes or No",
    ),
    ("judge", "Yes!", None, "Answer Yes or No.", 0.0, "not just"),
    ("judge", "**Yes**", None, "Answer Yes or No.", 0.0, "not just"),
    (
        "judge",
        "C2 carries four different groups.\nFinal answer: Yes",
        None,
        "Is it chiral? Your final answer must be Yes or No.",
        1.0,
        "final answer",
    ),
    # -------------------------------------------------------- response structure
    (
        "response_structure",
        "Final answer: 3.1 m/s\n\nReasoning: v = d / t.\nWith d = 12.5 m and t = 4.0 s.",
        "beginning",
        "",
        1.0,
        "line 1",
    ),
    (
        "response_structure",
        "# Solution\nFinal answer: 3.1 m/s\nReasoning: v = d / t.\nSo it is fast.",
        None,
        "Place the final answer at the beginning of your response.",
        1.0,
        "beginning",
    ),
    (
        "response_structure",
        REASONING + "Final answer: 3.1 m/s",
        "beginning",
        "",
        0.0,
        "line(s) 3",
    ),
    (
        "response_structure",
        REASONING + "Final answer: 3.1 m/s",
        "final_answer_position = end",
        "",
        1.0,
        "end",
    ),
    (
        "response_structure",
        REASONING + "**Final Answer:**\n3.1 m/s",
        None,
        "End your response with the final answer.",
        1.0,
        "end",
    ),
    (
        "response_structure",
        "Final answer: 3.1 m/s\n" + REASONING,
        "end",
        "",
        0.0,
        "not at the end",
    ),
    (
        "response_structure",
        "We need the speed.\n\nThe answer is 3.1 m/s.\n\nThis assumes constant speed.",
        "middle",
        "",
        1.0,
        "paragraph 2 of 3",
    ),
    (
        "response_structure",
        "We need the speed.\n\nThis assumes constant speed.\n\nThe answer is 3.1 m/s.",
        "middle",
        "",
        0.0,
        "not at the middle",
    ),
    (
        "response_structure",
        "Final answer: 3.1 m/s\nbecause v = d / t",
        "middle",
        "",
        0.0,
        "no middle",
    ),
    (
        "response_structure",
        "The speed is 3.1 m/s.",
        "end",
        "",
        0.0,
        "no final-answer marker",
    ),
    ("response_structure", "Final answer: 3.1 m/s", None, "Explain.", None, "not stated"),
]


def _run(case: Case) -> registry.ConstraintResult:
    checker, response, parameters, question, _, _ = case
    return registry.evaluate(f"general_{checker}", CheckInput(response, parameters, question))


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_checker_on_realistic_outputs(case: Case) -> None:
    result = _run(case)
    assert result.score == case[4], result.reason
    assert case[5] in result.reason, result.reason


def test_every_rule_checker_has_a_passing_and_a_failing_case() -> None:
    covered = {(f"general_{c[0]}", c[4]) for c in CASES}
    for name in RULE_GENERAL:
        assert (name, 1.0) in covered and (name, 0.0) in covered, name
    assert len(RULE_GENERAL) == 16


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


def test_empty_response_fails_every_rule_checker_that_can_be_decided() -> None:
    params = {
        "general_decimal_annotation": "2 decimal places",
        "general_wrap_up": "\\boxed{}",
        "general_choose_from": "options: A, B",
        "general_response_structure": "end",
    }
    for name in RULE_GENERAL:
        result = registry.evaluate(name, CheckInput("", params.get(name), "Answer."))
        assert result.score == 0.0, (name, result.reason)


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
    assert structured_answers(text, ("json",), "whole") == [("{}", "the ```json block")]
    assert structured_answers(" [1] ", ("python",), "whole") == [("[1]", "the whole response")]
    assert structured_answers("So:\nAnswer: [1]", (), "final") == [
        ("So:\nAnswer: [1]", "the whole response"),
        ("[1]", "the final answer (after answer marker)"),
    ]
