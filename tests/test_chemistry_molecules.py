"""The molecule finder, the SMILES / SELFIES / IUPAC readers and the functional-group SMARTS
table, molecule by molecule, against counts made by hand (the checkers that use them:
test_chemistry_checkers.py)."""

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
    result = registry.evaluate(
        "chemistry_molecular_format_validity", CheckInput(text, "SMILES", "")
    )
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


def test_every_candidate_found_in_a_megabyte_is_bounded() -> None:
    found = candidates("CCO C=C " * 200_000)
    assert len(found) <= molecule_candidates.MAX_TOKENS
    assert all(len(c.text) <= notation.MAX_SELFIES_LEN or c.rank <= Rank.STRONG for c in found)


def test_rdkit_exceptions_never_escape() -> None:
    for text in ["[C@@@@@@H]", "C" + "(C" * 300, "[", "%99", "c1ccccc1" * 60, "\x00CC"]:
        mol, error = parse_smiles(text)
        assert (mol is None) == bool(error)
