"""The constraint registry: the catalogue, its aliases, groups and domains."""

from __future__ import annotations

import csv
import importlib.util
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from sci_tasks.benchmarks.scimif import loader as scimif_data
from sci_tasks.metrics.constraints import catalogue, registry
from sci_tasks.metrics.constraints.registry import CheckInput, Group, Kind
from sci_tasks.metrics.verdict import Verdict

from .checker_cases import all_cases


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
        registry._CHECKERS[name] = checker
    assert unchecked.score is None
    assert unchecked.reason == "no checker yet for chemistry_atom_count_constraint (rdkit)"


@pytest.fixture
def restored_registry() -> Iterator[dict[str, Any]]:
    """The registry as every checker module left it, put back after the test whatever it
    registered, so no test leaves a checker of its own behind for the next."""
    before = registry.registered()  # loads every checker first
    rules, judged = dict(registry._CHECKERS), dict(registry._JUDGED)
    yield before
    registry._CHECKERS.clear()
    registry._CHECKERS.update(rules)
    registry._JUDGED.clear()
    registry._JUDGED.update(judged)


def test_register_refuses_names_outside_the_catalogue_and_duplicates(
    restored_registry: dict[str, Any],
) -> None:
    def never(inp: CheckInput) -> Verdict:
        raise AssertionError("a refused checker was called")

    with pytest.raises(KeyError, match="general_made_up"):
        registry.register("general_made_up")
    with pytest.raises(KeyError, match="already has a checker"):
        registry.register("general_json_constraint")(never)
    assert registry.registered() == restored_registry  # nothing replaced, nothing added
    free = "chemistry_atom_count_constraint"
    del registry._CHECKERS[free]  # a free name before a taken one: the whole call is refused
    with pytest.raises(KeyError, match="already has a checker"):
        registry.register(free, "general_json_constraint")(never)
    assert free not in registry.registered()
    with pytest.raises(KeyError, match="already has a checker"):
        registry.register_judged(
            restored_registry["general_number_response"], free, "general_number_response"
        )
    assert free not in registry.registered()


def _catalogue_rows() -> list[dict[str, str]]:
    with catalogue.CATALOGUE_FILE.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_every_catalogue_row_has_exactly_one_checker_and_every_checker_a_row() -> None:
    rows = _catalogue_rows()
    names = [row["name"] for row in rows]
    assert len(names) == len(set(names))
    assert sum(row["in_paper"] == "yes" for row in rows) == 42
    checkers = registry.registered()
    assert sorted(checkers) == sorted(names)  # a dict: one checker per name, no stray one
    for row in rows:  # a judge-kind row has a judged check, every other kind a rule function
        assert isinstance(checkers[row["name"]], registry.JudgedCheck) == (row["kind"] == "judge")


def test_released_aliases_in_the_table_resolve_to_their_row() -> None:
    rows = _catalogue_rows()
    aliased = {a: row["name"] for row in rows for a in row["released_aliases"].split(";") if a}
    assert len(aliased) == 10  # life_ x5, materials_ x5 (spec, released data)
    for alias, name in aliased.items():
        found = registry.resolve(alias.upper())
        assert found is not None and found.name == name


def test_a_malformed_catalogue_row_is_a_one_line_error_naming_the_line(tmp_path: Path) -> None:
    table = tmp_path / "catalogue.csv"
    header = ",".join(catalogue.COLUMNS)
    table.write_text(
        f"{header}\ngeneral_x,Precision,general,rule,yes,\ngeneral_y,Colour,general,rule,yes,\n"
    )
    with pytest.raises(ValueError, match=r"catalogue.csv line 3: 'Colour' is not a valid Group"):
        catalogue.read_catalogue(table)
    table.write_text(f"{header}\nphysics_x,Unit,general,rule,yes,\n")
    with pytest.raises(ValueError, match="line 2: 'physics_x' does not start with its domain"):
        catalogue.read_catalogue(table)


def test_checker_modules_do_not_import_the_registry() -> None:
    """No import cycle: checker modules import ``base``; the registry discovers them."""
    folder = Path(catalogue.__file__).parent
    for module in folder.glob("*.py"):
        if module.name != "registry.py":
            assert "constraints.registry" not in module.read_text(encoding="utf-8"), module.name


def _generator() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "scripts" / "generate_scimif_task_types.py"
    spec = importlib.util.spec_from_file_location("generate_scimif_task_types", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_task_type_configs_are_what_the_script_generates() -> None:
    generator = _generator()
    wanted = generator.configs()
    committed = {p.name: p.read_bytes() for p in generator.FOLDER.glob("*.yaml")}
    assert len(wanted) == 22  # the paper's task types (spec table)
    assert committed == {name: text.encode("utf-8") for name, text in wanted.items()}
    assert generator.main(["--check"]) == 0


def test_every_task_type_names_a_discipline_the_catalogue_and_loader_know() -> None:
    generator = _generator()
    for path in generator.FOLDER.glob("*.yaml"):
        kwargs = yaml.safe_load(path.read_text().replace("!function", ""))["dataset_kwargs"]
        assert kwargs["discipline"] in catalogue.DOMAINS, path.name
        assert kwargs["task_type"] in scimif_data.TASK_TYPES[kwargs["discipline"]], path.name
    assert set(scimif_data.TASK_TYPES) == set(catalogue.DOMAINS) - {"general"}


CASES = all_cases()


@pytest.mark.parametrize("case", CASES, ids=[c["where"] for c in CASES])
def test_checker_case(case: dict[str, Any]) -> None:
    """Every row of every ``tests/cases/checkers/*.jsonl`` file: the registry's verdict."""
    inp = CheckInput(case["response"], case["parameters"], case["question"])
    result = registry.evaluate(case["constraint"], inp)
    assert result.score == case["expected"], result.reason
    assert case["reason_has"] in result.reason, result.reason


def test_every_checked_constraint_has_a_passing_and_a_failing_case() -> None:
    """A constraint decided without a judge needs both verdicts among the case files."""
    covered = {(registry.canonical_name(c["constraint"]), c["expected"]) for c in CASES}
    for name, constraint in registry.CONSTRAINTS.items():
        if constraint.kind is not Kind.JUDGE:
            assert (name, 1.0) in covered and (name, 0.0) in covered, name
