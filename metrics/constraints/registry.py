"""The constraint registry: the one place that knows every SciMIF constraint.

Each catalogue name (``../shared/spec/scimif.md``) maps to its functional group, its domain,
how it is checked, and (once written) its checker. Checkers are added with ``@register``
in their own module; nothing else in the project keeps a list of constraint names.

``evaluate`` is the boundary where a checker's exception becomes an unscored verdict, so a
crash in one checker never aborts a run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import lru_cache
from typing import Any

from sci_tasks.metrics.constraints.text import strip_copied
from sci_tasks.metrics.judge import JudgeClient, JudgeRequest
from sci_tasks.metrics.verdict import Verdict


class Group(str, Enum):
    """The paper's ten functional groups (SciMIF Table 4)."""

    PRECISION = "Precision"
    LETTER = "Letter"
    FORMAT = "Format"
    SELECTION = "Selection"
    STRUCTURE = "Structure"
    NUMBER = "Number"
    UNIT = "Unit"
    TERMINOLOGY = "Terminology"
    METHOD = "Method"
    PROCEDURE = "Procedure"


class Kind(str, Enum):
    """How compliance is decided."""

    RULE = "rule"
    RDKIT = "rdkit"
    EXTRACT = "extract"  # an LLM may extract the span; a rule decides
    JUDGE = "judge"  # an LLM judge decides (may give a fraction)


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


@dataclass(frozen=True)
class JudgedCheck:
    """A judge-decided constraint: ``build`` turns the input into a judge request (or decides
    alone, returning a Verdict, when a rule suffices); ``decide`` reads the judge's answer."""

    build: Callable[[CheckInput], JudgeRequest | Verdict]
    decide: Callable[[Mapping[str, Any], CheckInput], Verdict]


G, K = Group, Kind
# (canonical name, group, kind). The 42 constraints of the catalogue, in its order.
CATALOGUE: tuple[tuple[str, Group, Kind], ...] = (
    ("general_decimal_annotation", G.PRECISION, K.RULE),
    ("general_scientific_annotation", G.PRECISION, K.RULE),
    ("general_all_uppercase", G.LETTER, K.RULE),
    ("general_all_lowercase", G.LETTER, K.RULE),
    ("general_wrap_up", G.FORMAT, K.RULE),
    ("general_json_constraint", G.FORMAT, K.RULE),
    ("general_list_constraint", G.FORMAT, K.RULE),
    ("general_tuple_constraint", G.FORMAT, K.RULE),
    ("general_dictionary_constraint", G.FORMAT, K.RULE),
    ("general_markdown_constraint", G.FORMAT, K.RULE),
    ("general_html_constraint", G.FORMAT, K.RULE),
    ("general_xml_constraint", G.FORMAT, K.RULE),
    ("general_csv_constraint", G.FORMAT, K.RULE),
    ("general_choose_from", G.SELECTION, K.RULE),
    ("general_judge", G.SELECTION, K.RULE),
    ("general_response_structure", G.STRUCTURE, K.RULE),
    ("general_number_response", G.NUMBER, K.JUDGE),
    ("chemistry_unit_consistency", G.UNIT, K.RULE),
    ("chemistry_molecular_format_validity", G.TERMINOLOGY, K.RDKIT),
    ("chemistry_atom_count_constraint", G.NUMBER, K.RDKIT),
    ("chemistry_atom_bond_constraint", G.NUMBER, K.RDKIT),
    ("chemistry_atom_group_constraint", G.NUMBER, K.RDKIT),
    ("chemistry_method_constraint", G.METHOD, K.EXTRACT),
    ("chemistry_reaction_steps_constraint", G.PROCEDURE, K.JUDGE),
    ("geography_unit_consistency", G.UNIT, K.RULE),
    ("geography_address_format_validity", G.TERMINOLOGY, K.RULE),
    ("geography_scene_option_constraint", G.FORMAT, K.RULE),
    ("geography_method_constraint", G.METHOD, K.EXTRACT),
    ("geography_analysis_steps_constraint", G.PROCEDURE, K.JUDGE),
    ("biology_unit_consistency", G.UNIT, K.RULE),
    ("biology_entity_relationship_format_validity", G.TERMINOLOGY, K.RULE),
    ("biology_sequence_length_constraint", G.NUMBER, K.RULE),
    ("biology_method_constraint", G.METHOD, K.EXTRACT),
    ("biology_analysis_steps_constraint", G.PROCEDURE, K.JUDGE),
    ("material_unit_consistency", G.UNIT, K.RULE),
    ("material_characterization_technique_format_constraint", G.TERMINOLOGY, K.RULE),
    ("material_property_prediction_constraint", G.FORMAT, K.RULE),
    ("material_method_constraint", G.METHOD, K.EXTRACT),
    ("material_analysis_steps_constraint", G.PROCEDURE, K.JUDGE),
    ("physics_unit_consistency", G.UNIT, K.RULE),
    ("physics_method_constraint", G.METHOD, K.EXTRACT),
    ("physics_analysis_steps_constraint", G.PROCEDURE, K.JUDGE),
)

# Names the released data uses that are not in the catalogue but are scored: the authors
# score chemistry_analysis_steps_constraint like the other analysis-steps constraints.
EXTRA: tuple[tuple[str, Group, Kind], ...] = (
    ("chemistry_analysis_steps_constraint", G.PROCEDURE, K.JUDGE),
)

# Released files spell two disciplines differently in constraint names; same constraints.
PREFIX_ALIASES: dict[str, str] = {"life_": "biology_", "materials_": "material_"}


@dataclass(frozen=True)
class Constraint:
    name: str
    group: Group
    kind: Kind
    in_catalogue: bool

    @property
    def domain(self) -> str:
        """``general`` or the discipline (chemistry, geography, biology, material, physics)."""
        return self.name.split("_", 1)[0]


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


CONSTRAINTS: dict[str, Constraint] = {
    name: Constraint(name, group, kind, in_catalogue=True) for name, group, kind in CATALOGUE
} | {name: Constraint(name, group, kind, in_catalogue=False) for name, group, kind in EXTRA}

_CHECKERS: dict[str, Checker] = {}
_JUDGED: dict[str, JudgedCheck] = {}


def canonical_name(name: str) -> str:
    """The catalogue spelling of a name as written in the data (aliases, case, spaces)."""
    key = re.sub(r"\s+", "_", str(name).strip().lower())
    for alias, canonical in PREFIX_ALIASES.items():
        if key.startswith(alias):
            return canonical + key[len(alias) :]
    return key


def resolve(name: str) -> Constraint | None:
    return CONSTRAINTS.get(canonical_name(name))


def register(name: str) -> Callable[[Checker], Checker]:
    """Decorator: attach ``fn`` as the checker of catalogue constraint ``name``."""
    if name not in CONSTRAINTS:
        raise KeyError(f"{name!r} is not a constraint of the catalogue")

    def attach(fn: Checker) -> Checker:
        if name in _CHECKERS:
            raise KeyError(f"{name!r} already has a checker: {_CHECKERS[name].__qualname__}")
        _CHECKERS[name] = fn
        return fn

    return attach


def register_judged(name: str, check: JudgedCheck) -> None:
    """Attach a judge-decided check to catalogue (or extra) constraint ``name``."""
    if name not in CONSTRAINTS:
        raise KeyError(f"{name!r} is not a constraint of the catalogue")
    if name in _JUDGED or name in _CHECKERS:
        raise KeyError(f"{name!r} already has a checker")
    _JUDGED[name] = check


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


def _load_checkers() -> None:
    """Import the checker modules once; each fills the registry through ``@register``."""
    global _loaded
    if not _loaded:
        from sci_tasks.metrics.constraints import (  # noqa: F401
            chemistry,
            general,
            judged,
            science,
            units,
        )

        _loaded = True


def registered() -> dict[str, Checker | JudgedCheck]:
    """Every constraint that has a checker (rule or judged), by canonical name."""
    _load_checkers()
    return {**_CHECKERS, **_JUDGED}
