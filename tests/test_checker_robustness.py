"""Every rule checker in the registry, fed hostile input: arbitrary text, malformed JSON /
XML / HTML, invalid SMILES, 1 MB responses. No exception may escape a checker, every
verdict is well formed, and no checker's time grows faster than linearly with the input
(no catastrophic regex backtracking)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sci_tasks.metrics.constraints import registry
from sci_tasks.metrics.constraints.registry import CheckInput, JudgedCheck
from sci_tasks.metrics.verdict import Verdict

RULE_CHECKERS: dict[str, Callable[[CheckInput], Verdict]] = {
    name: fn for name, fn in registry.registered().items() if not isinstance(fn, JudgedCheck)
}
QUESTION = (
    "Give the answer with two decimal places in kJ/mol, as a JSON object with keys a and b, "
    "wrapped in \\boxed{}, in all uppercase, with 3 carbon atoms and 2 double bonds, at the end."
)
FRAGMENTS = [
    '{"a": 1, "b": [1, 2', "<root><a>1</b></root>", "<div><p>text</div>", "C1CC(", "C(C)(C)(C)(C)C",
    "[C][=O][Branch1]", "\\boxed{", "Final answer:", "```json\n{", "1.2e-5", "×10^{", "((((",
    "a,b\n1", "[[", "SMILES: ", "5'-AUG", "(A, rel, B", "m^2", "\\mathrm{kJ", "$$", "**",
]  # fmt: skip
hostile = st.lists(st.one_of(st.text(max_size=40), st.sampled_from(FRAGMENTS)), max_size=30).map(
    "".join
)
parameters = st.one_of(st.none(), st.text(max_size=30), st.sampled_from(
    ["two decimal places", "keys: a, b", "root tag <answer>", "3 carbon atoms", "in m/s^2",
     "at least 2 hydroxyl groups", "N = 3", "end", "options: A, B, C", "length 12"]
))  # fmt: skip


def check_all(inp: CheckInput) -> None:
    for name, fn in RULE_CHECKERS.items():
        verdict = fn(inp)  # an exception here fails the test: none may escape
        assert isinstance(verdict, Verdict), name
        assert verdict.score is None or 0.0 <= verdict.score <= 1.0, name
        assert verdict.reason and "\n" not in verdict.reason, name


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(response=hostile, params=parameters, question=st.one_of(st.just(QUESTION), hostile))
def test_no_exception_escapes_any_checker(response: str, params: str | None, question: str) -> None:
    check_all(CheckInput(response, params, question))


@pytest.mark.parametrize("fragment", FRAGMENTS)
def test_malformed_structures_alone(fragment: str) -> None:
    check_all(CheckInput(fragment, None, QUESTION))


# Inputs that make a backtracking regex explode: long runs of one character, nested
# openers, digit runs, near-miss numbers and markers, repeated fences.
PATTERNS = {
    "spaces": " ",
    "digits": "7",
    "openers": "(",
    "brackets": "[",
    "braces": "{",
    "angles": "<a",
    "decimal-ish": "1.",
    "exponent-ish": "1e",
    "times-ten": "×10^",
    "backslashes": "\\",
    "fences": "```\n",
    "letters": "C",
    "mixed": "a1.(<[{",
}


@pytest.mark.parametrize("pattern", list(PATTERNS))
def test_every_checker_gives_a_verdict_on_a_megabyte_of_one_pattern(pattern: str) -> None:
    """Degenerate 1 MB inputs: a verdict from every checker, never an exception. Time and
    its growth are measured by benchmarks/checker_scaling.py, not here."""
    large = PATTERNS[pattern] * (1_000_000 // len(PATTERNS[pattern]))
    for name, fn in RULE_CHECKERS.items():
        verdict = fn(CheckInput(large, None, QUESTION))
        assert isinstance(verdict, Verdict), name
