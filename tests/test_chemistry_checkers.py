"""The four RDKit-scored chemistry checkers on realistic outputs, on the bundled sample
records and on megabyte responses, with the verdict and reason each gives (the molecule
finder and the SMARTS table under them: test_chemistry_molecules.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import sci_tasks.metrics.constraints.bonds_groups as bonds_groups
import sci_tasks.metrics.constraints.chemistry as chemistry
from sci_tasks.metrics.constraints import registry
from sci_tasks.metrics.constraints.registry import CheckInput

# The four chemistry checkers, each with a requirement it can check.
CHEMISTRY = {
    "chemistry_molecular_format_validity": "SMILES",
    "chemistry_atom_count_constraint": "2 carbon atoms",
    "chemistry_atom_bond_constraint": "1 double bond",
    "chemistry_atom_group_constraint": "1 hydroxyl group",
}

# --------------------------------------------------------------------------- checkers


def run(name: str, response: str, parameters: str | None, question: str = "") -> Any:
    return registry.evaluate(name, CheckInput(response, parameters, question))


ATOM_Q = (
    "Please generate a molecule with exactly 5 carbon atoms, 1 bromine atom and 2 oxygen "
    "atoms, and no other heavy atoms (hydrogen atoms are not counted). Write the molecule "
    'as a valid SMILES string. Return only a JSON object of the form {"molecule": "<SMILES>"}.'
)
ATOM_P = "5 carbon atoms, 1 bromine atom, and 2 oxygen atoms"

CHECKS: list[tuple[str, str, str | None, str, float | None, str]] = [
    # ---- atom counts: JSON answer, digits, words, symbols, bounds, closure, hydrogens
    (
        "chemistry_atom_count_constraint",
        '{"molecule": "CC(Br)C(=O)OCC"}',
        ATOM_P,
        ATOM_Q,
        1.0,
        "C5H9BrO2 (SMILES 'CC(Br)C(=O)OCC' from JSON key 'molecule'): C=5 ok, Br=1 ok, "
        "O=2 ok, no other heavy atoms ok",
    ),
    (
        "chemistry_atom_count_constraint",
        '{"molecule": "CC(Br)C(=O)OC"}',
        ATOM_P,
        ATOM_Q,
        0.0,
        "C=4 (need exactly 5)",
    ),
    (  # an extra heavy element fails a composition list (TOMG-Bench)
        "chemistry_atom_count_constraint",
        '{"molecule": "NCC(Br)C(=O)OCC"}',
        ATOM_P,
        ATOM_Q,
        0.0,
        "other heavy atoms N=1 (none allowed)",
    ),
    (
        "chemistry_atom_count_constraint",
        "The molecule is CCCCC(=O)OBr? No wait. SMILES: BrCCCCC(=O)O",
        "five carbon atoms, one bromine atom and two oxygen atoms",
        "",
        1.0,
        "C=5 ok, Br=1 ok, O=2 ok",
    ),
    (
        "chemistry_atom_count_constraint",
        "SMILES: `CCN(CC)CC`",
        "at least 2 nitrogen atoms",
        "",
        0.0,
        "N=1 (need at least 2)",
    ),
    (  # "containing exactly N nitrogen" does not close the element list
        "chemistry_atom_count_constraint",
        "SMILES: `NCCN`",
        "exactly 2 nitrogen atoms",
        "",
        1.0,
        "N=2 ok",
    ),
    (
        "chemistry_atom_count_constraint",
        "SMILES: `CCCCO`",
        "at most 4 C atoms and no more than 10 heavy atoms",
        "",
        1.0,
        "C=4 ok, heavy atoms=5 ok",
    ),
    (
        "chemistry_atom_count_constraint",
        "SMILES: `CCO`",
        "C: 2, O: 1, 6 hydrogen atoms",
        "",
        1.0,
        "C=2 ok, O=1 ok, H=6 ok",
    ),
    (
        "chemistry_atom_count_constraint",
        "**SMILES**: `OCC(O)CO`",
        "molecular formula C3H8O3",
        "",
        1.0,
        "C=3 ok, H=8 ok, O=3 ok",
    ),
    (
        "chemistry_atom_count_constraint",
        "SMILES: `CC(=O)Cl`",
        "a total of 4 heavy atoms, without nitrogen",
        "",
        1.0,
        "heavy atoms=4 ok, N=0 ok",
    ),
    (  # an invalid SMILES is a fail: the response did not give a valid molecule
        "chemistry_atom_count_constraint",
        '{"molecule": "C1CC(Br)C(=O)OCC"}',
        ATOM_P,
        ATOM_Q,
        0.0,
        "invalid SMILES 'C1CC(Br)C(=O)OCC' from JSON key 'molecule': unclosed ring bond 1",
    ),
    (
        "chemistry_atom_count_constraint",
        "I am not able to design such a molecule.",
        ATOM_P,
        ATOM_Q,
        0.0,
        "no valid molecule in the response",
    ),
    (
        "chemistry_atom_count_constraint",
        "SMILES: CCO",
        None,
        "Design a drug-like molecule.",
        None,
        "no atom-count requirement found",
    ),
    (
        "chemistry_atom_count_constraint",
        "SMILES: CCO",
        "2 carbon atoms and 1 deuterium atom",
        "",
        None,
        "unknown element",
    ),
    (  # requirement from the question when the parameters are absent
        "chemistry_atom_count_constraint",
        "SELFIES: [C][C][C][=Branch1][C][=O][O]",
        None,
        "Generate a molecule with three carbon atoms and two oxygen atoms, as SELFIES.",
        1.0,
        "C3H6O2 (SELFIES '[C][C][C][=Branch1][C][=O][O]' from label 'SELFIES'): C=3 ok, O=2 ok",
    ),
    (
        "chemistry_atom_count_constraint",
        "The IUPAC name is propan-1-ol.",
        "3 carbon atoms",
        "Give the IUPAC name of a molecule with 3 carbon atoms.",
        1.0,
        "C3H8O (IUPAC name 'propan-1-ol' from label 'IUPAC name'): C=3 ok",
    ),
    (
        "chemistry_atom_count_constraint",
        "The IUPAC name is butan-1-ol.",
        "3 carbon atoms",
        "Give the IUPAC name of a molecule with 3 carbon atoms.",
        0.0,
        "C4H10O (IUPAC name 'butan-1-ol' from label 'IUPAC name'): C=4 (need exactly 3)",
    ),
    (
        "chemistry_atom_count_constraint",
        "The answer is propan-1-ol.",
        "3 carbon atoms",
        "Give a SMILES string for a molecule with 3 carbon atoms.",
        0.0,
        "only a name was given: IUPAC name 'propan-1-ol'",
    ),
    # ---- bonds
    (
        "chemistry_atom_bond_constraint",
        "('C#CC=CC=O', 6)",
        "1 triple bond, 2 double bonds, 0 aromatic bonds",
        "",
        1.0,
        "C5H4O (SMILES 'C#CC=CC=O' from tuple item): triple=1 ok, double=2 ok, aromatic=0 ok",
    ),
    (
        "chemistry_atom_bond_constraint",
        "SMILES: `C1=CC=CC=C1`",  # Kekulé input, aromatic as parsed
        "exactly three double bonds",
        "",
        0.0,
        "double=0 (need exactly 3)",
    ),
    (
        "chemistry_atom_bond_constraint",
        "SMILES: `c1ccccc1CCC`",
        "at least 6 aromatic bonds, at most 2 rotatable bonds, 9 bonds in total",
        "",
        1.0,
        "aromatic=6 ok, rotatable=2 ok, total=9 ok",
    ),
    (
        "chemistry_atom_bond_constraint",
        "SMILES: `CCCCC(=O)NCC`",
        "4 rotatable bonds and no triple bonds",
        "",
        1.0,
        "rotatable=4 ok, triple=0 ok",
    ),
    (
        "chemistry_atom_bond_constraint",
        "SMILES: `C=CC=C`",
        "2 C=C double bonds",
        "",
        None,
        "bond requirement not understood",
    ),
    # ---- groups
    (
        "chemistry_atom_group_constraint",
        "smiles,carboxylic_acid_groups\nCC(O)C(=O)O,1",
        "exactly 1 carboxylic acid group",
        "",
        1.0,
        "C3H6O3 (SMILES 'CC(O)C(=O)O' from CSV column 'smiles'): carboxylic_acid=1 ok",
    ),
    (
        "chemistry_atom_group_constraint",
        "Molecule: OCC(O)CO",
        "two hydroxyl groups",
        "",
        0.0,
        "hydroxyl=3 (need exactly 2)",
    ),
    (
        "chemistry_atom_group_constraint",
        "Molecule: OCC(O)CO",
        "at least two hydroxyl groups and no carbonyl",
        "",
        1.0,
        "hydroxyl=3 ok, carbonyl=0 ok",
    ),
    (
        "chemistry_atom_group_constraint",
        "SMILES: `c1ccc(-c2ccccc2)cc1N`",
        "2 benzene rings and an amino group",
        "",
        1.0,
        "benzene_ring=2 ok, amine=1 ok",
    ),
    (
        "chemistry_atom_group_constraint",
        "SMILES: `CCO`",
        "1 hydroxyl group and 1 azide group",
        "",
        None,
        "not in the SMARTS table",
    ),
    # ---- format validity
    (
        "chemistry_molecular_format_validity",
        "\\boxed{CC(=O)Oc1ccccc1C(=O)O}\n\nThis is aspirin.",
        "SMILES",
        "",
        1.0,
        "valid SMILES 'CC(=O)Oc1ccccc1C(=O)O' from \\boxed{} -> C9H8O4; SMILES required",
    ),
    (
        "chemistry_molecular_format_validity",
        "\\boxed{CC(=O)Oc1cccc1C(=O)O}\n\nThis is aspirin.",  # a carbon short: 5-ring
        "SMILES",
        "",
        0.0,
        "invalid SMILES 'CC(=O)Oc1cccc1C(=O)O' from \\boxed{}: cannot kekulize",
    ),
    (
        "chemistry_molecular_format_validity",
        "SELFIES: [C][C][O]",
        "SMILES",
        "",
        0.0,
        "SELFIES '[C][C][O]' from label 'SELFIES' given, not SMILES",
    ),
    (
        "chemistry_molecular_format_validity",
        "Ethanol, written with SELFIES symbols, gives [C][C][O] (three atoms).",
        None,
        "Write ethanol as a SELFIES string.",
        1.0,
        "valid SELFIES '[C][C][O]' from bare token = CCO -> C2H6O; SELFIES required (question)",
    ),
    (
        "chemistry_molecular_format_validity",
        "Ethanol in SELFIES is [C][C][O].",
        None,
        "Write ethanol as a SELFIES string.",
        1.0,
        "valid SELFIES '[C][C][O]' from label 'SELFIES' = CCO -> C2H6O; SELFIES required",
    ),
    (
        "chemistry_molecular_format_validity",
        "The systematic name of aspirin is 2-(acetyloxy)benzoic acid.",
        "IUPAC name",
        "",
        1.0,
        "IUPAC name '2-(acetyloxy)benzoic acid' from label 'systematic name' -> C(C)(=O)OC1",
    ),
    (
        "chemistry_molecular_format_validity",
        "IUPAC name: 2-methylpentan-7-ol",
        "IUPAC",
        "",
        0.0,
        "OPSIN cannot parse this name",
    ),
    (
        "chemistry_molecular_format_validity",
        "I don't know.",
        "SMILES",
        "",
        0.0,
        "no valid molecule in the response (no SMILES found); no extractor configured",
    ),
    (  # no format named: any
        "chemistry_molecular_format_validity",
        "Answer: CCOC(C)=O",
        None,
        "Name one ester.",
        1.0,
        "no format named: any accepted",
    ),
]


@pytest.mark.parametrize(
    ("name", "response", "parameters", "question", "score", "reason"),
    CHECKS,
    ids=[f"{c[0].split('_', 1)[1][:14]}-{i}" for i, c in enumerate(CHECKS)],
)
def test_checkers_on_realistic_outputs(
    name: str,
    response: str,
    parameters: str | None,
    question: str,
    score: float | None,
    reason: str,
) -> None:
    result = run(name, response, parameters, question)
    assert result.score == score, result.reason
    assert reason in result.reason, result.reason


def test_the_sample_chemistry_records_are_checked() -> None:
    from importlib import resources

    responses = {
        2: "\\boxed{CC(=O)Oc1ccccc1C(=O)O}\n\nAspirin is acetylated salicylic acid.",
        4: '{"molecule": "CC(Br)C(=O)OCC"}',
        5: "('C#CC=CC=O', 6)",
        8: "smiles,carboxylic_acid_groups\nCC(O)C(=O)O,1",
    }
    path = resources.files("sci_tasks.benchmarks") / "scimif" / "samples" / "chemistry.jsonl"
    seen = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for item in record["instruction_list"]:
            name = item["instruction_name"]
            if record["id"] in responses and name in CHEMISTRY:
                inp = CheckInput(
                    responses[record["id"]],
                    item.get("required_parameters"),
                    record["edit_question"],
                )
                result = registry.evaluate(name, inp)
                assert result.score == 1.0, (record["id"], name, result.reason)
                seen += 1
    assert seen == 6


def test_parameter_parsing_reads_words_digits_and_bounds() -> None:
    parsed, closed, unknown = chemistry._atom_requirements(
        "exactly five carbon atoms, at least 1 N atom, up to 3 oxygens and 2 or more Cl", True
    )
    got = {(r.key, r.op, r.n) for r in parsed.requirements}
    assert got == {("C", "==", 5), ("N", ">=", 1), ("O", "<=", 3), ("Cl", ">=", 2)}
    assert not closed and unknown == ""
    parsed, closed, _ = chemistry._atom_requirements("8 carbon atoms and 1 nitrogen atom", True)
    assert closed  # a composition list: other heavy atoms must be absent
    parsed, _ = bonds_groups._bond_requirements(
        "more than 2 double bonds, fewer than 3 triple bonds"
    )
    assert {(r.key, r.op, r.n) for r in parsed.requirements} == {
        ("double", ">=", 3),
        ("triple", "<=", 2),
    }
    parsed, _ = bonds_groups._group_requirements("no nitro groups; 2 -OH groups; one ester")
    assert {(r.key, r.op, r.n) for r in parsed.requirements} == {
        ("nitro", "==", 0),
        ("hydroxyl", "==", 2),
        ("ester", "==", 1),
    }


# --------------------------------------------------------------------------- robustness


def test_the_four_checkers_are_registered() -> None:
    checkers = registry.registered()
    for name in CHEMISTRY:
        module = getattr(checkers[name], "__module__", "")
        assert module in (chemistry.__name__, bonds_groups.__name__)
    units = checkers.get("chemistry_unit_consistency")
    assert getattr(units, "__module__", "") != chemistry.__name__  # not ours


@pytest.mark.parametrize(
    "response",
    [
        "".join(chr(33 + (i * 7919) % 94) + (" " if i % 13 == 0 else "") for i in range(1 << 20)),
        "C" * (1 << 20),
        ("[C]" * 350_000)[: 1 << 20],
        "CCO " * 262_144,
    ],
    ids=["garbage", "carbon", "selfies", "tokens"],
)
@pytest.mark.parametrize(("name", "parameters"), CHEMISTRY.items())
def test_a_megabyte_response_gets_a_verdict(response: str, name: str, parameters: str) -> None:
    """Not timed (benchmarks/checker_scaling.py measures the time)."""
    result = run(name, response, parameters, "Give a SMILES string.")
    assert result.score in (0.0, 1.0), result.reason
