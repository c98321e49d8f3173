"""The constraint registry: the one place that scores a SciMIF constraint by name.

The catalogue (names, functional groups, domains, kinds, released aliases) is the table
``catalogue.csv`` (read by ``catalogue.py``). Checkers attach themselves with
``base.register`` in their own module; the registry imports every module of this package
once (``pkgutil``), so no list of checker modules is kept anywhere.

``evaluate`` is the boundary where a checker's exception becomes an unscored verdict, so a
crash in one checker never aborts a run.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, replace
from functools import lru_cache

from sci_tasks.metrics.constraints import base
from sci_tasks.metrics.constraints.base import (
    Checker,
    CheckInput,
    JudgedCheck,
    register,
    register_judged,
)
from sci_tasks.metrics.constraints.catalogue import (
    CONSTRAINTS,
    Constraint,
    Group,
    Kind,
    canonical_name,
    resolve,
)
from sci_tasks.metrics.constraints.text import strip_copied
from sci_tasks.metrics.judge import JudgeClient
from sci_tasks.metrics.verdict import Verdict

__all__ = [
    "CONSTRAINTS",
    "CheckInput",
    "Checker",
    "Constraint",
    "ConstraintResult",
    "Group",
    "JudgedCheck",
    "Kind",
    "canonical_name",
    "evaluate",
    "register",
    "register_judged",
    "registered",
    "resolve",
]


@dataclass(frozen=True)
class ConstraintResult:
    """One constraint of one sample, as written to the samples log."""

    name: str  # as written in the data
    constraint: str | None  # canonical name, None when unknown
    group: str | None
    domain: str | None
    score: float | None
    reason: str
    judge: str | None = None  # "<judge model> / <prompt version>" when a judge decided

    def as_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "constraint": self.constraint,
            "group": self.group,
            "domain": self.domain,
            "score": self.score,
            "reason": self.reason,
            "judge": self.judge,
        }


_CHECKERS = base.CHECKERS  # rule checkers by canonical name (filled by ``register``)
_JUDGED = base.JUDGED


def evaluate(name: str, inp: CheckInput, judge: JudgeClient | None = None) -> ConstraintResult:
    """Score one constraint. Never raises: every failure is an unscored verdict with a reason.

    ``judge`` decides judge-scored constraints; without one they are unscored."""
    _load_checkers()
    constraint = resolve(name)
    if constraint is None:
        return ConstraintResult(
            str(name), None, None, None, None, f"unknown constraint {name!r}: not in the catalogue"
        )
    provenance: list[str] = []
    if judge is not None and inp.judge is None:
        inp = replace(inp, judge=judge)
    try:
        own, copied = _own_text(inp.response, inp.question)
    except Exception:  # text that is not a string: nothing can be said to be copied
        own, copied = inp.response, 0
    if copied:
        inp = replace(inp, response=own)
    try:
        verdict = _run(constraint, inp, judge, provenance)
    except Exception as exc:
        verdict = Verdict.unscored(f"checker {constraint.name} raised {type(exc).__name__}: {exc}")
    if not isinstance(verdict, Verdict):
        verdict = Verdict.unscored(f"checker {constraint.name} returned {type(verdict).__name__}")
    reason = verdict.reason
    if copied:
        reason += f" [{copied} characters copied from the question were ignored]"
    return ConstraintResult(
        str(name),
        constraint.name,
        constraint.group.value,
        constraint.domain,
        verdict.score,
        reason,
        provenance[0] if provenance else None,
    )


@lru_cache(maxsize=8)
def _own_text(response: str, question: str) -> tuple[str, int]:
    """The response minus what it copies from the question (``text.strip_copied``), once
    per sample: every constraint of a sample sees the same response and question."""
    return strip_copied(response, question or "")


def _run(
    constraint: Constraint, inp: CheckInput, judge: JudgeClient | None, provenance: list[str]
) -> Verdict:
    fn = _CHECKERS.get(constraint.name)
    if fn is not None:
        return fn(inp)
    check = _JUDGED.get(constraint.name)
    if check is None:
        if constraint.kind is Kind.JUDGE:
            return Verdict.unscored(
                f"{constraint.name} is judge-scored and has no judged check yet"
            )
        return Verdict.unscored(f"no checker yet for {constraint.name} ({constraint.kind.value})")
    request = check.build(inp)
    if isinstance(request, Verdict):  # a rule decided without the judge
        return request
    if judge is None:
        return Verdict.unscored(f"{constraint.name} is judge-scored and no LLM judge is configured")
    reply = judge.ask(request)
    provenance.append(reply.provenance)
    if reply.data is None:
        return Verdict.unscored(f"judge {reply.model}: {reply.error}")
    return check.decide(reply.data, inp)


_loaded = False
_NOT_CHECKERS = frozenset({"base", "catalogue", "registry"})


def _load_checkers() -> None:
    """Import every module of this package once; checker modules fill the registry through
    ``base.register`` as they are imported."""
    global _loaded
    if not _loaded:
        package = importlib.import_module(__package__ or "sci_tasks.metrics.constraints")
        for module in pkgutil.iter_modules(package.__path__):
            if module.name not in _NOT_CHECKERS:
                importlib.import_module(f"{package.__name__}.{module.name}")
        _loaded = True


def registered() -> dict[str, Checker | JudgedCheck]:
    """Every constraint that has a checker (rule or judged), by canonical name."""
    _load_checkers()
    return {**_CHECKERS, **_JUDGED}
