"""What every checker module needs: the input a checker sees and the ``register`` decorators.

Checker modules import this module, never the registry, so the registry can import them
(it discovers them in this package) without an import cycle. Names are validated against
the catalogue (``catalogue.csv``) when they register.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sci_tasks.metrics.constraints.catalogue import CONSTRAINTS
from sci_tasks.metrics.constraints.text import Scope, clean_parameters, requirement_scope
from sci_tasks.metrics.verdict import Verdict

if TYPE_CHECKING:  # annotations only: importing the client would load openai with every checker
    from sci_tasks.metrics.judge import JudgeClient, JudgeRequest


@dataclass(frozen=True)
class CheckInput:
    """What a checker sees: the model's response, the free-text parameters, the question,
    and the judge in force (rule checkers may use it only to EXTRACT a span; see
    ``extraction.py``; the rule still decides)."""

    response: str
    parameters: str | None
    question: str
    judge: JudgeClient | None = field(default=None, compare=False, repr=False)


Checker = Callable[[CheckInput], Verdict]


def input_scope(inp: CheckInput, keyword: re.Pattern[str], default: Scope = "whole") -> Scope:
    """Where a requirement applies (``text.requirement_scope``) for this input."""
    return requirement_scope(inp.question or "", clean_parameters(inp.parameters), keyword, default)


@dataclass(frozen=True)
class JudgedCheck:
    """A judge-decided constraint: ``build`` turns the input into a judge request (or decides
    alone, returning a Verdict, when a rule suffices); ``decide`` reads the judge's answer."""

    build: Callable[[CheckInput], JudgeRequest | Verdict]
    decide: Callable[[Mapping[str, Any], CheckInput], Verdict]


CHECKERS: dict[str, Checker] = {}
JUDGED: dict[str, JudgedCheck] = {}


def _claim(names: tuple[str, ...]) -> None:
    """Refuse the whole registration before any name is attached, so a refused call leaves
    the registry as it was (no partial entry for the names before the refused one)."""
    for name in names:
        if name not in CONSTRAINTS:
            raise KeyError(f"{name!r} is not a constraint of the catalogue (catalogue.csv)")
        if name in CHECKERS or name in JUDGED:
            raise KeyError(f"{name!r} already has a checker")
    if len(set(names)) != len(names):
        raise KeyError(f"a constraint is named twice in {names!r}")


def register(*names: str) -> Callable[[Checker], Checker]:
    """Decorator: attach ``fn`` as the checker of each catalogue constraint in ``names``."""
    for name in names:
        if name not in CONSTRAINTS:
            raise KeyError(f"{name!r} is not a constraint of the catalogue (catalogue.csv)")

    def attach(fn: Checker) -> Checker:
        _claim(names)
        CHECKERS.update(dict.fromkeys(names, fn))
        return fn

    return attach


def register_judged(check: JudgedCheck, *names: str) -> None:
    """Attach a judge-decided check to each catalogue constraint in ``names``."""
    _claim(names)
    JUDGED.update(dict.fromkeys(names, check))
