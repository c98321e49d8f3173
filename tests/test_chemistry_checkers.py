"""The RDKit-scored chemistry checkers, the molecule finder and the functional-group SMARTS
table, molecule by molecule, against counts made by hand."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from rdkit import Chem

import sci_tasks.metrics.constraints.bonds_groups as bonds_groups
import sci_tasks.metrics.constraints.chemistry as chemistry
from sci_tasks.metrics.constraints import molecule_candidates, molecules, notation, registry, smarts
from sci_tasks.metrics.constraints.molecule_candidates import candidates
from sci_tasks.metrics.constraints.molecule_tokens import Rank
from sci_tasks.metrics.constraints.molecules import find_molecule
from sci_tasks.metrics.constraints.notation import decode_selfies, iupac_problem, parse_smiles
from sci_tasks.metrics.constraints.registry import CheckInput

# The four chemistry checkers, each with a requirement it can check.
CHEMISTRY = {
    "chemistry_molecular_format_validity": "SMILES",
    "chemistry_atom_count_constraint": "2 carbon atoms",
    "chemistry_atom_bond_constraint": "1 double bond",
    "chemistry_atom_group_constraint": "1 hydroxyl group",
}
CASES = Path(__file__).parent / "cases"

# --------------------------------------------------------------------------- the table
#
# Counted by hand, on the molecule as RDKit parses it: heavy atoms per element; H = all
# hydrogens (implicit included); bonds between heavy atoms only (hydrogens are implicit, so
# C-H bonds are not bonds of the graph); aromatic bonds stay aromatic; rotatable bonds by
# RDKit's Strict definition (non-ring single bonds between two non-terminal heavy atoms,
# not to a triple-bonded atom, not C(=O)-N / C(=O)-O / C(=S)-X where the acyl C has three
# neighbours, not to CF3 / CCl3 / CBr3 / t-butyl); groups = every SMARTS-table entry that
# is not 0 (every other entry is asserted 0).
#
# Tricky ones, as counted:
# * Kekulé benzene C1=CC=CC=C1 is aromatized on parsing: 6 aromatic bonds, 0 double, and
#   no alkene.
# * nitro: RDKit holds nitro as [N+](=O)[O-] however it is written (CN(=O)=O is converted
#   on sanitization), so a nitro group is 1 double N=O + 1 single N-O- bond.
# * naphthalene: 10 atoms in two fused 6-rings sharing one bond: 6 + 6 - 1 = 11 aromatic
#   bonds; two benzene rings (fused rings count). Indole: 6 + 5 - 1 = 10 aromatic bonds,
#   one benzene ring (the 5-ring has an n); its [nH] is aromatic, not an amine.
# * ethyl acetate: CH2-O rotates (1); the ester C(=O)-O bond does not (Strict).
# * methyl formate / DMF: the formyl carbon has only two heavy neighbours (D2), so the
#   Strict amide/ester exclusion ([CD3]) does not apply: O-CHO and N-CHO count as
#   rotatable (1 each).
# * aspirin: O-c and c-C(acid) rotate (2); CH3-C and C-OH end at a terminal atom, the
#   ester C(=O)-O is excluded.
# * pent-1-yn-... C#CC=CC=O: C2-C3 touches the triple bond (excluded); C4-C5 rotates (1).
# * carbon dioxide O=C=O: its C has two connections, so the carbonyl pattern [CX3]=[OX1]
#   does not match: 0 carbonyls, 2 double bonds.
# * sodium acetate CC(=O)[O-].[Na+]: the ion pair is two fragments, no bond to Na; one
#   carboxylate, one C=O (the other C-O is single to O-), no carboxylic acid, no OH.
# * acetic anhydride: no ester (the alkoxy side is itself a carbonyl carbon), 2 carbonyls.
# * urea: no amide (the acyl C carries no C or H) and no amine (N on a C=O carbon).
# * hydroxyl counts acid OH (acetic acid 1, alanine 1, methanesulfonic acid 1).
# * [NH4+]: N with 4 implicit H, no bond; ammonium 1, not an amine.
# * dimethyl disulfide: each S is bonded to S, so not a sulfide; S-S rotates (1).


@dataclass(frozen=True)
class Row:
    smiles: str
    atoms: dict[str, int]  # heavy atoms per element
    hydrogens: int
    bonds: tuple[int, int, int, int]  # single, double, triple, aromatic
    rotatable: int
    groups: dict[str, int]  # non-zero SMARTS-table counts

    @property
    def total_bonds(self) -> int:
        return sum(self.bonds)


# The table is data: tests/cases/molecules.jsonl, one molecule per line, counted by hand as
# described above (atoms, hydrogens, bonds = single / double / triple / aromatic, rotatable,
# the non-zero SMARTS-table counts).
def _row(m: dict[str, Any]) -> Row:
    single, double, triple, aromatic = m["bonds"]
    bonds = (single, double, triple, aromatic)
    return Row(m["smiles"], m["atoms"], m["hydrogens"], bonds, m["rotatable"], m["groups"])


TABLE: list[Row] = [
    _row(json.loads(line))
    for line in (CASES / "molecules.jsonl").read_text(encoding="utf-8").splitlines()
]

INVALID: list[tuple[str, str]] = [
    ("C1CC", "unclosed ring bond 1"),
    ("C(C)(C)(C)(C)C", "bad valence"),
    ("c1cccc1", "kekulize"),
    ("CC(C", "unbalanced parentheses"),
    ("C[Xx]C", "SMILES syntax error"),
    ("hello world", "whitespace"),
    ("", "empty"),
    ("C" * 500, "longer than 400"),
]


def _mol(smiles: str) -> Chem.Mol:
    mol, error = parse_smiles(smiles)
    assert mol is not None, f"{smiles}: {error}"
    return mol


@pytest.mark.parametrize("row", TABLE, ids=[r.smiles for r in TABLE])
def test_counts_match_the_hand_checked_table(row: Row) -> None:
    mol = _mol(row.smiles)
    heavy: dict[str, int] = {}
    for atom in mol.GetAtoms():
        if atom.GetAtomicNum() > 1:
            heavy[atom.GetSymbol()] = heavy.get(atom.GetSymbol(), 0) + 1
    assert heavy == row.atoms
    assert mol.GetNumHeavyAtoms() == sum(row.atoms.values())
    assert chemistry._hydrogens(mol) == row.hydrogens
    bonds = bonds_groups.bond_counts(mol)
    assert (bonds["single"], bonds["double"], bonds["triple"], bonds["aromatic"]) == row.bonds
    assert bonds["total"] == row.total_bonds
    assert bonds["rotatable"] == row.rotatable
    counted = {g.name: smarts.count(mol, g.name) for g in smarts.TABLE}
    assert {k: v for k, v in counted.items() if v} == row.groups


def test_the_table_is_large_and_exercises_every_smarts_entry() -> None:
    assert len(TABLE) >= 30
    seen = {name for row in TABLE for name in row.groups}
    assert seen == {g.name for g in smarts.TABLE}


@pytest.mark.parametrize(("smiles", "why"), INVALID, ids=[s[:20] or "empty" for s, _ in INVALID])
def test_invalid_smiles_are_rejected_with_a_reason_and_no_rdkit_noise(
    smiles: str, why: str, capfd: pytest.CaptureFixture[str]
) -> None:
    mol, error = parse_smiles(smiles)
    assert mol is None and why in error
    out, err = capfd.readouterr()
    assert out == "" and err == ""  # RDKit's logging is blocked


def test_selfies_decode_then_parse() -> None:
    mol, smiles, error = decode_selfies("[C][C][=Branch1][C][=O][O]")
    assert error == "" and smiles == "CC(=O)O" and mol is not None
    assert decode_selfies("[C][Foo]")[2].startswith("invalid SELFIES")
    assert decode_selfies("[nop]")[2] == "SELFIES decodes to an empty molecule"


# --------------------------------------------------------------------------- SMARTS table


def test_every_smarts_compiles_and_every_alias_resolves() -> None:
    for group in smarts.TABLE:
        assert smarts.pattern(group.name) is not None
        for alias in group.aliases:
            assert smarts.lookup(alias) is group, alias
    assert smarts.lookup("Hydroxyl groups").name == "hydroxyl"
    assert smarts.lookup("carboxylic acid group").name == "carboxylic_acid"
    assert smarts.lookup("carboxyl").name == "carboxylic_acid"
    assert smarts.lookup("amino").name == "amine"
    assert smarts.lookup("benzene rings").name == "benzene_ring"
    assert smarts.lookup("phenyl").name == "benzene_ring"
    assert smarts.lookup("halo").name == "halogen"
    assert smarts.lookup("cyano").name == "nitrile"
    assert smarts.lookup("double bond").name == "alkene"
    assert smarts.lookup("azide") is None
    assert "| benzene_ring | `c1ccccc1` |" in smarts.table_markdown()


def test_uniquify_counts_a_symmetric_match_once() -> None:
    benzene = _mol("c1ccccc1")
    patt = smarts.pattern("benzene_ring")
    assert len(benzene.GetSubstructMatches(patt, uniquify=False)) == 12
    assert smarts.count(benzene, "benzene_ring") == 1
    # an imide N carries two C(=O)-N amide bonds: two atom sets, two matches
    assert smarts.count(_mol("CC(=O)NC(C)=O"), "amide") == 2


# --------------------------------------------------------------------------- finding


@pytest.mark.parametrize(
    ("response", "text", "fmt", "source"),
    [
        ('{"molecule": "CC(Br)C(=O)OCC"}', "CC(Br)C(=O)OCC", "smiles", "JSON key 'molecule'"),
        ("```json\n{'smiles': 'CCO'}\n```", "CCO", "smiles", "JSON key 'smiles'"),
        ("('C#CC=CC=O', 6)", "C#CC=CC=O", "smiles", "tuple item"),
        ("smiles,n\nCC(O)C(=O)O,1", "CC(O)C(=O)O", "smiles", "CSV column 'smiles'"),
        (
            "Sure!\n\n**SMILES**: `CC(=O)Oc1ccccc1C(=O)O`",
            "CC(=O)Oc1ccccc1C(=O)O",
            "smiles",
            "label",
        ),
        ("The SMILES string of ethanol is CCO.", "CCO", "smiles", "label 'SMILES'"),
        ("\\boxed{CC(=O)O} is acetic acid, not C=C.", "CC(=O)O", "smiles", "\\boxed{}"),
        ("Reasoning...\nFinal answer: CCN(CC)CC", "CCN(CC)CC", "smiles", "final answer"),
        ("```smiles\nc1ccncc1\n```", "c1ccncc1", "smiles", "```smiles``` block"),
        ("Here it is:\n\nCCOC(C)=O\n\nAn ester.", "CCOC(C)=O", "smiles", "a line of its own"),
        ("As $\\text{CCO}$ shows, $\\text{CO}_2$ is not it.", "CCO", "smiles", "LaTeX"),
        ("Ethanol (CCO) is the product.", "CCO", "smiles", "bare token"),
        ("SELFIES: [C][C][O]", "[C][C][O]", "selfies", "label 'SELFIES'"),
        ("[C][=C][C][=O]", "[C][=C][C][=O]", "selfies", "the whole response"),
        ("The IUPAC name is 2-acetyloxybenzoic acid.", "2-acetyloxybenzoic acid", "iupac", "label"),
    ],
)
def test_the_molecule_is_found_where_responses_put_it(
    response: str, text: str, fmt: str, source: str
) -> None:
    search = find_molecule(CheckInput(response, None, "q"), molecules.FORMATS)
    assert search.molecule is not None, search.why_none(molecules.FORMATS)
    assert (search.molecule.text, search.molecule.fmt) == (text, fmt)
    assert source in search.molecule.source


def test_a_stated_invalid_answer_wins_over_valid_tokens_in_prose() -> None:
    search = find_molecule(CheckInput("SMILES: C1CC\nIt resembles CCO.", None, "q"))
    assert search.molecule is None
    assert "invalid SMILES 'C1CC' from label 'SMILES'" in search.why_none(("smiles",))
    assert "unclosed ring bond 1" in search.why_none(("smiles",))


def test_prose_words_formulas_and_bonds_are_not_molecules() -> None:
    text = (
        "NO and SON are words. Water is H2O, CO2 is a gas, and the answer is B.\n"
        "NO\n"
        "The product has a C=O group and a C#C bond."
    )
    search = find_molecule(CheckInput(text, None, "q"))
    assert search.chosen is None
    assert "no valid molecule in the response" in search.why_none(("smiles",))
    result = run("chemistry_molecular_format_validity", text, "SMILES")
    assert result.score == 0.0, result.reason


def test_the_biggest_bare_structure_is_chosen_over_fragments() -> None:
    text = "The molecule C#CC=CC=O has one C#C and two C=C double bonds."
    search = find_molecule(CheckInput(text, None, "q"))
    assert search.molecule is not None and search.molecule.text == "C#CC=CC=O"
    assert search.molecule.rank is Rank.WEAK


@pytest.mark.parametrize(
    "name",
    [
        "ethanol",
        "2-methylpropan-1-ol",
        "2-(acetyloxy)benzoic acid",
        "propan-2-one",
        "(2S)-2-aminopropanoic acid",
        "buta-1,3-diene",
        "N,N-dimethylformamide",
        "1H-indole",
        "ethyl acetate",
        "sodium chloride",
        "cyclohexanone",
        "tert-butyl alcohol",
        "(E)-but-2-ene",
        "propane-1,2,3-triol",
        "2,2'-bipyridine",
    ],
)
def test_iupac_style_names_pass_the_rule(name: str) -> None:
    assert iupac_problem(name) == ""


@pytest.mark.parametrize(
    "name",
    [
        "aspirin",
        "acetylsalicylic acid",
        "caffeine",
        "water",
        "none",
        "one",
        "methyl",
        "benzoic",
        "octal",
        "CCO",
        "hexagonal",
        "protein",
    ],
)
def test_trivial_names_and_words_fail_the_rule(name: str) -> None:
    assert iupac_problem(name) != ""


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
    import json
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


# --------------------------------------------------------------------------- extraction


def test_without_a_judge_extraction_is_skipped_cleanly() -> None:
    inp = CheckInput("The product is an ester of acetic acid.", "SMILES", "q")
    assert inp.judge is None
    result = registry.evaluate("chemistry_molecular_format_validity", inp)
    assert result.score == 0.0 and result.judge is None
    assert result.reason == (
        "no valid molecule in the response (no SMILES found); no extractor configured; "
        "SMILES required (parameters)"
    )


def test_with_a_judge_the_extracted_span_is_still_decided_by_rdkit(tmp_path: Path) -> None:
    """A real judge server on loopback (llm-katan, forced tool call): its schema-shaped
    reply copies the span "test_span". The span is used only if it is in the response,
    and RDKit, not the judge, decides whether it is a molecule."""
    from sci_tasks.metrics.judge import JudgeClient, JudgeConfig

    from .servers import KATAN_KEY, katan

    text = "The answer: ethyl ethanoate, which I write as C C O C ( C ) = O ... i.e. CCOC(C)=O"
    with katan(tmp_path) as server:
        os.environ["SCI_TASKS_TEST_JUDGE_KEY"] = KATAN_KEY
        judge = JudgeClient(
            JudgeConfig(
                server.model, server.base_url, api_key_env="SCI_TASKS_TEST_JUDGE_KEY",
                structured_output="tool", cache=False,
            )
        )  # fmt: skip
        rules = find_molecule(CheckInput(text, None, "q", judge=judge))
        assert rules.molecule is not None and rules.molecule.text == "CCOC(C)=O"
        assert server.requests_received() == 0  # found by rule: the judge is not asked
        refused = find_molecule(CheckInput("It is ethyl ethanoate.", None, "q", judge=judge))
        assert refused.chosen is None and server.requests_received() == 1
        assert "returned text not in the response" in refused.why_none(("smiles",))
        copied = find_molecule(
            CheckInput("I would call it test_span, really.", None, "q", judge=judge), ("smiles",)
        )
        assert copied.molecule is None
        assert "invalid SMILES 'test_span'" in copied.why_none(("smiles",))


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


def test_every_candidate_found_in_a_megabyte_is_bounded() -> None:
    found = candidates("CCO C=C " * 200_000)
    assert len(found) <= molecule_candidates.MAX_TOKENS
    assert all(len(c.text) <= notation.MAX_SELFIES_LEN or c.rank <= Rank.STRONG for c in found)


def test_rdkit_exceptions_never_escape() -> None:
    for text in ["[C@@@@@@H]", "C" + "(C" * 300, "[", "%99", "c1ccccc1" * 60, "\x00CC"]:
        mol, error = parse_smiles(text)
        assert (mol is None) == bool(error)
