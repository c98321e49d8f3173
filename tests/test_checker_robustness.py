"""Every rule checker in the registry, fed hostile input: arbitrary text, malformed JSON /
XML / HTML, invalid SMILES, 1 MB responses. No exception may escape a checker, every
verdict is well formed, and no checker's time grows faster than linearly with the input
(no catastrophic regex backtracking)."""

from __future__ import annotations

import time
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


def _seconds(fn: Callable[[CheckInput], Verdict], text: str) -> float:
    best = float("inf")
    for _ in range(2):
        started = time.perf_counter()
        fn(CheckInput(text, None, QUESTION))
        best = min(best, time.perf_counter() - started)
    return best


@pytest.mark.parametrize("pattern", list(PATTERNS))
def test_time_grows_at_most_linearly(pattern: str) -> None:
    """Each checker on 125 KB and on 1 MB (8x): linear time gives ~8x, quadratic ~64x.
    The bound 24x leaves room for noise on a shared machine; 1 MB must take under 5 s."""
    unit = PATTERNS[pattern]
    small = unit * (125_000 // len(unit))
    large = unit * (1_000_000 // len(unit))
    slow = []
    for name, fn in RULE_CHECKERS.items():
        t_small, t_large = _seconds(fn, small), _seconds(fn, large)
        if t_large > 5.0 or (t_large > 0.05 and t_large / max(t_small, 1e-3) > 24):
            slow.append(f"{name}: {t_small:.3f}s -> {t_large:.3f}s")
    assert not slow, slow
