"""The constraint registry: the catalogue, its aliases, groups and domains."""

from __future__ import annotations

from collections import Counter

import pytest

from sci_tasks.metrics.constraints import registry
from sci_tasks.metrics.constraints.registry import CheckInput, Group, Kind


def test_catalogue_has_the_42_constraints_in_10_groups() -> None:
    catalogue = [c for c in registry.CONSTRAINTS.values() if c.in_catalogue]
    assert len(catalogue) == 42
    assert len({c.group for c in catalogue}) == 10 == len(Group)
    domains = Counter(c.domain for c in catalogue)
    assert domains == {
        "general": 17,
        "chemistry": 7,
        "geography": 5,
        "biology": 5,
        "material": 5,
        "physics": 3,
    }


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("life_analysis_steps_constraint", "biology_analysis_steps_constraint"),
        ("life_entity_relationship_format_validity", "biology_entity_relationship_format_validity"),
        ("materials_unit_consistency", "material_unit_consistency"),
        ("materials_property_prediction_constraint", "material_property_prediction_constraint"),
        ("General_JSON_Constraint ", "general_json_constraint"),
        ("chemistry_analysis_steps_constraint", "chemistry_analysis_steps_constraint"),
    ],
)
def test_aliases_resolve_to_one_constraint(written: str, canonical: str) -> None:
    constraint = registry.resolve(written)
    assert constraint is not None and constraint.name == canonical


def test_names_outside_the_catalogue() -> None:
    extra = registry.resolve("chemistry_analysis_steps_constraint")
    assert extra is not None and not extra.in_catalogue
    assert extra.group is Group.PROCEDURE and extra.kind is Kind.JUDGE
    # only inside choose_instruction in the released data: not a scored constraint
    assert registry.resolve("chemistry_entity_option_constraint") is None


def test_every_general_constraint_has_a_checker_of_its_kind() -> None:
    checkers = registry.registered()
    for c in registry.CONSTRAINTS.values():
        if c.domain == "general" or c.kind is Kind.JUDGE:
            assert c.name in checkers, c.name
            assert isinstance(checkers[c.name], registry.JudgedCheck) == (c.kind is Kind.JUDGE)


def test_unknown_and_unchecked_constraints_are_unscored_by_name() -> None:
    inp = CheckInput("anything", None, "question")
    unknown = registry.evaluate("quantum_vibe_constraint", inp)
    assert (unknown.score, unknown.constraint) == (None, None)
    assert "quantum_vibe_constraint" in unknown.reason
    judged = registry.evaluate("general_number_response", inp)
    assert judged.score is None and judged.group == "Number"
    assert "no LLM judge is configured" in judged.reason
    name = "chemistry_atom_count_constraint"
    checker = registry.registered()[name]
    del registry._CHECKERS[name]  # a catalogue constraint whose checker is not loaded
    try:
        unchecked = registry.evaluate(name, inp)
    finally:
        registry._CHECKERS[name] = checker  # type: ignore[assignment]
    assert unchecked.score is None
    assert unchecked.reason == "no checker yet for chemistry_atom_count_constraint (rdkit)"


def test_register_refuses_names_outside_the_catalogue_and_duplicates() -> None:
    with pytest.raises(KeyError):
        registry.register("general_made_up")
    with pytest.raises(KeyError):
        registry.register("general_json_constraint")(lambda inp: None)  # type: ignore[arg-type,return-value]
