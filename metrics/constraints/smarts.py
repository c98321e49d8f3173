"""The functional-group SMARTS table of ``chemistry_atom_group_constraint``.

Counting convention (TOMG-Bench style, as the spec asks): a group's count on a molecule is
``len(mol.GetSubstructMatches(pattern, uniquify=True, maxMatches=MAX_MATCHES))`` on the
RDKit molecule as parsed from SMILES (sanitized: aromaticity perceived, hydrogens implicit,
every fragment of a salt included).

``uniquify=True`` (RDKit's default) keeps one match per distinct SET of matched atoms, so a
pattern's symmetric re-mappings count once: benzene's ring pattern maps onto benzene in 12
ways (6 rotations x 2 directions) and counts 1; ketone ``[#6][CX3](=O)[#6]`` maps onto
acetone twice (the two methyls swapped) and counts 1. Two matches that share some atoms but
not all count twice: the amide pattern on an imide nitrogen (two carbonyls on one N) counts
2, one per C(=O)-N bond. Most patterns below are written so that one group is one atom set
(often a single key atom, with the environment in a recursive ``$(...)``), which makes the
count equal to the number of groups a chemist would count. ``MAX_MATCHES`` bounds the work
on huge molecules; no real molecule reaches it.

Where this table follows TOMG-Bench's ``utils/evaluation.py`` (phenixace/TOMG-Bench) it uses
the same pattern; where it deliberately differs the entry's comment says why. The
differences, in short: benzene rings count fused benzenoid rings (naphthalene = 2, TOMG's
``[cR1]`` ring pattern gives 0); ``amine`` counts tertiary amines too (TOMG: primary and
secondary only) and split patterns give primary / secondary / tertiary; ester, amide and
aldehyde include the formyl cases (formate esters, formamides, formaldehyde) and ester
excludes anhydrides; sulfide excludes aromatic sulfur (thiophene) and disulfides; ``sulfone``
is R-SO2-R only, the broad TOMG pattern (any S(=O)(=O)) is ``sulfonyl``.

Every pattern is tested molecule by molecule in ``tests/test_chemistry_checkers.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from rdkit import Chem, rdBase

MAX_MATCHES = 10_000


@dataclass(frozen=True)
class FunctionalGroup:
    name: str  # canonical key, snake_case
    smarts: str
    aliases: tuple[str, ...]  # lower case; how the group is written in requirements
    intent: str  # what the pattern means to match, in one line


# Notation: X = total connections including implicit H, H = attached H count, D = explicit
# (heavy-atom) degree, ``$(...)`` = recursive SMARTS (an atom in that environment),
# lower-case c/n/o/s = aromatic atoms, upper-case C/N/O/S = aliphatic atoms only.
TABLE: tuple[FunctionalGroup, ...] = (
    FunctionalGroup(
        "benzene_ring",
        "c1ccccc1",
        ("benzene ring", "benzene", "phenyl ring", "phenyl group", "phenyl", "benzenoid ring"),
        # Six aromatic carbons in a 6-cycle. Fused benzenoid rings count each (naphthalene
        # 2, indole 1 = its benzo ring); hetero rings (pyridine, furan) 0. TOMG's
        # [cR1]1[cR1][cR1][cR1][cR1][cR1]1 would give naphthalene 0: a question asking for
        # two benzene rings is met by naphthalene in ordinary usage, so we count fused rings.
        "aromatic carbocyclic six-membered ring, fused rings included",
    ),
    FunctionalGroup(
        "hydroxyl",
        "[OX2H]",
        ("hydroxyl", "hydroxy", "oh"),
        # TOMG's pattern: every O-H oxygen with two connections: alcohol, phenol, and the OH
        # of carboxylic / sulfonic acids. Water (two H) and hydroxide (one connection) are
        # not matched.
        "any O-H: alcohol, phenol and acid OH (TOMG-Bench)",
    ),
    FunctionalGroup(
        "alcohol",
        "[OX2H][CX4]",
        ("alcohol", "alcoholic hydroxyl", "aliphatic hydroxyl"),
        # OH on an sp3 carbon only (not phenol, not acid OH); one C per OH, so one match each.
        "OH on an sp3 carbon",
    ),
    FunctionalGroup(
        "phenol",
        "[OX2H]c",
        ("phenol", "phenolic hydroxyl", "phenolic oh"),
        "OH on an aromatic carbon",
    ),
    FunctionalGroup(
        "carboxylic_acid",
        "[CX3](=O)[OX2H1]",
        ("carboxylic acid", "carboxyl", "carboxy", "cooh"),
        # TOMG's carboxyl. The neutral acid only; the anion is ``carboxylate``.
        "C(=O)OH, neutral acid (TOMG-Bench carboxyl)",
    ),
    FunctionalGroup(
        "carboxylate",
        "[CX3](=O)[OX1-]",
        ("carboxylate", "carboxylate anion", "carboxylate ion", "coo-"),
        "C(=O)O- anion",
    ),
    FunctionalGroup(
        "aldehyde",
        "[$([CX3H1](=O)[#6]),$([CX3H2]=O)]",
        ("aldehyde", "formyl", "cho"),
        # The carbonyl carbon (one atom per group): R-CHO, and formaldehyde H2C=O. TOMG's
        # [CX3H1](=O)[#6] misses formaldehyde. Formic acid / formates / formamides are not
        # aldehydes (their carbonyl C has an O or N neighbour and no carbon).
        "carbonyl C with one H and a carbon, or formaldehyde",
    ),
    FunctionalGroup(
        "ketone",
        "[#6][CX3](=O)[#6]",
        ("ketone", "keto"),
        # TOMG's pattern: a carbonyl carbon between two carbons.
        "C-C(=O)-C (TOMG-Bench)",
    ),
    FunctionalGroup(
        "carbonyl",
        "[CX3]=[OX1]",
        ("carbonyl", "c=o"),
        # Every C=O double bond: aldehydes, ketones, acids, esters, amides...; a carboxylate
        # written with one [O-] still has one C=O.
        "any C=O",
    ),
    FunctionalGroup(
        "ester",
        "[CX3;H1,$(C[#6])](=[OX1])[OX2H0][#6;!$(C=O)]",
        ("ester", "carboxylic ester", "carboxylate ester"),
        # R-C(=O)-O-R' with R = carbon or H (formates), R' a carbon that is not itself a
        # carbonyl carbon. Lactones count. Anhydrides, carbonates and carbamates do not
        # (TOMG's [#6][CX3](=O)[OX2H0][#6] counts an anhydride as 2 esters and misses
        # formates).
        "C(=O)-O-C with an acyl carbon bonded to C or H, not anhydride/carbonate",
    ),
    FunctionalGroup(
        "anhydride",
        "[CX3](=[OX1])[OX2][CX3](=[OX1])",
        ("anhydride", "acid anhydride", "carboxylic anhydride"),
        "C(=O)-O-C(=O) (TOMG-Bench)",
    ),
    FunctionalGroup(
        "amide",
        "[NX3][CX3;H1,$(C[#6])](=[OX1])",
        ("amide", "amido", "carboxamide"),
        # N-C(=O) where the acyl carbon carries C or H: amides, lactams, formamides. Ureas
        # and carbamates do not count (the acyl carbon has two heteroatoms). An imide N
        # with two carbonyls counts 2 (two atom sets). TOMG: [NX3][CX3](=[OX1])[#6].
        "N-C(=O) with the acyl carbon bonded to C or H",
    ),
    FunctionalGroup(
        "amine",
        "[NX3;+0;!$(N~[!#6;!#1]);!$(N[#6]=[#7,#8,#16])]",
        ("amine", "amino", "nh2"),
        # A neutral three-connected aliphatic N whose neighbours are only C (or implicit H)
        # and none of them a C=O / C=N / C=S carbon: primary, secondary and tertiary amines,
        # anilines, enamines. Not amides, ureas, amidines, sulfonamides, hydrazines, nitro,
        # aromatic ring N (pyridine, pyrrole [nH]) or ammonium. TOMG's amine is primary and
        # secondary only; use ``primary_amine`` / ``secondary_amine`` for that.
        "neutral N bonded only to C/H, not acyl: primary, secondary, tertiary",
    ),
    FunctionalGroup(
        "primary_amine",
        "[NX3;H2;+0;!$(N~[!#6;!#1]);!$(N[#6]=[#7,#8,#16])]",
        ("primary amine", "primary amino"),
        "amine N with two H",
    ),
    FunctionalGroup(
        "secondary_amine",
        "[NX3;H1;+0;!$(N~[!#6;!#1]);!$(N[#6]=[#7,#8,#16])]",
        ("secondary amine", "secondary amino"),
        "amine N with one H",
    ),
    FunctionalGroup(
        "tertiary_amine",
        "[NX3;H0;+0;!$(N~[!#6;!#1]);!$(N[#6]=[#7,#8,#16])]",
        ("tertiary amine", "tertiary amino"),
        "amine N with no H",
    ),
    FunctionalGroup(
        "ammonium",
        "[NX4+]",
        ("ammonium", "ammonium ion", "quaternary ammonium"),
        # Four-connected cationic N: NH4+, protonated amines R-NH3+, quaternary R4N+.
        "four-connected N+",
    ),
    FunctionalGroup(
        "nitro",
        "[$([NX3](=O)=O),$([NX3+](=O)[O-]);!$(N[OX2])]",
        ("nitro", "no2"),
        # The nitro N, in either notation (RDKit converts N(=O)=O to [N+](=O)[O-] anyway).
        # TOMG's pattern adds a neighbour atom; one N per group here. Nitrate esters
        # (N bonded to an O-R) are excluded.
        "nitro N, either charge notation, not nitrate",
    ),
    FunctionalGroup(
        "nitrile",
        "[NX1]#[CX2]",
        ("nitrile", "cyano", "carbonitrile"),
        "C#N (TOMG-Bench)",
    ),
    FunctionalGroup(
        "halogen",
        "[F,Cl,Br,I]",
        ("halogen", "halo", "halide", "halogen atom"),
        # TOMG's halo: every F, Cl, Br, I atom, including halide ions of a salt ([Cl-]).
        "any F, Cl, Br or I atom (TOMG-Bench halo)",
    ),
    FunctionalGroup("fluoro", "[F]", ("fluoro",), "F atom"),
    FunctionalGroup("chloro", "[Cl]", ("chloro",), "Cl atom"),
    FunctionalGroup("bromo", "[Br]", ("bromo",), "Br atom"),
    FunctionalGroup("iodo", "[I]", ("iodo",), "I atom"),
    FunctionalGroup(
        "acyl_halide",
        "[CX3](=[OX1])[F,Cl,Br,I]",
        ("acyl halide", "acid halide", "acyl chloride", "acid chloride"),
        "C(=O)-halogen",
    ),
    FunctionalGroup(
        "ether",
        "[OX2;H0;+0;$(O([#6])[#6]);!$(O[#6]=[#7,#8,#16])]",
        ("ether", "alkoxy"),
        # An aliphatic O between two carbons, neither of them an acyl (C=O/C=N/C=S)
        # carbon: dialkyl and aryl ethers, cyclic ethers (THF, epoxides), each acetal O.
        # Ester / anhydride / carbonate oxygens are not ethers; aromatic ring O (furan)
        # is not matched (lower-case o).
        "C-O-C, not ester/anhydride oxygen, not aromatic ring O",
    ),
    FunctionalGroup(
        "thiol",
        "[#16X2H]",
        ("thiol", "sulfhydryl", "mercapto", "sh"),
        "S-H (TOMG-Bench)",
    ),
    FunctionalGroup(
        "sulfide",
        "[SX2;H0;$(S([#6])[#6]);!$(S[#16])]",
        ("sulfide", "thioether"),
        # C-S-C with an aliphatic S; not thiophene s, not a disulfide S. TOMG's sulfide is
        # [#16X2H0] minus disulfide matches.
        "C-S-C, aliphatic S, not disulfide",
    ),
    FunctionalGroup(
        "disulfide",
        "[#16X2H0][#16X2H0]",
        ("disulfide",),
        "S-S (TOMG-Bench)",
    ),
    FunctionalGroup(
        "sulfoxide",
        "[$([#16X3]=[OX1]),$([#16X3+][OX1-])]",
        ("sulfoxide", "sulfinyl"),
        "S=O on three-connected S, either notation (TOMG-Bench)",
    ),
    FunctionalGroup(
        "sulfonyl",
        "[$([#16X4](=[OX1])=[OX1]),$([#16X4+2]([OX1-])[OX1-])]",
        ("sulfonyl",),
        # TOMG's "sulfone" pattern: any S(=O)(=O), so also sulfonic acids, sulfonamides,
        # sulfonate esters and sulfates.
        "any S(=O)(=O) (TOMG-Bench sulfone)",
    ),
    FunctionalGroup(
        "sulfone",
        "[#6][SX4](=[OX1])(=[OX1])[#6]",
        ("sulfone",),
        "C-S(=O)(=O)-C only",
    ),
    FunctionalGroup(
        "sulfonamide",
        "[SX4](=[OX1])(=[OX1])[NX3]",
        ("sulfonamide",),
        "S(=O)(=O)-N",
    ),
    FunctionalGroup(
        "sulfonic_acid",
        "[SX4](=[OX1])(=[OX1])[OX2H]",
        ("sulfonic acid",),
        "S(=O)(=O)-OH",
    ),
    FunctionalGroup(
        "phosphate",
        "[PX4](=[OX1])([#8])([#8])[#8]",
        ("phosphate", "phosphate ester"),
        "P(=O) with three O neighbours: phosphoric acid, its esters and anions",
    ),
    FunctionalGroup(
        "alkene",
        "[CX3]=[CX3]",
        (
            "alkene",
            "olefin",
            "c=c double bond",
            "carbon-carbon double bond",
            "c=c",
            "double bond",
        ),
        # Non-aromatic C=C (aromatic bonds are not '=' and aromatic c is not C); a Kekulé
        # benzene C1=CC=CC=C1 is aromatized on parsing and has none. Allene centres (CX2)
        # are not matched. In this table "double bond" means a C=C; the bond-count
        # constraint counts every double bond (C=O too).
        "non-aromatic C=C",
    ),
    FunctionalGroup(
        "alkyne",
        "[CX2]#[CX2]",
        ("alkyne", "c#c", "c≡c", "carbon-carbon triple bond", "triple bond"),
        "C#C",
    ),
    FunctionalGroup(
        "imine",
        "[CX3]=[NX2]",
        ("imine", "schiff base"),
        "C=N, non-aromatic (oximes and hydrazones included)",
    ),
    FunctionalGroup(
        "borane",
        "[BX3]",
        ("borane",),
        "three-connected B (TOMG-Bench)",
    ),
)

BY_NAME: dict[str, FunctionalGroup] = {g.name: g for g in TABLE}


def _alias_key(text: str) -> str:
    return re.sub(r"[\s_-]+", " ", text.strip().lower())


ALIASES: dict[str, str] = {}
for _group in TABLE:
    for _alias in (*_group.aliases, _group.name.replace("_", " ")):
        _key = _alias_key(_alias)
        if ALIASES.get(_key, _group.name) != _group.name:
            raise ValueError(f"alias {_alias!r} names two groups")
        ALIASES[_key] = _group.name


def lookup(name: str) -> FunctionalGroup | None:
    """The group named ``name`` (canonical name or alias, any case; a trailing "group(s)",
    plural "s" and hyphens/underscores are tolerated), or None."""
    key = _alias_key(name)
    key = re.sub(r"\s+(?:groups?|moiet(?:y|ies)|substituents?|units?)$", "", key)
    for candidate in (key, key[:-1] if key.endswith("s") else key, key[:-2]):
        if candidate in ALIASES:
            return BY_NAME[ALIASES[candidate]]
    return None


@cache
def pattern(name: str) -> Chem.Mol:
    """The compiled SMARTS of group ``name`` (canonical name)."""
    with rdBase.BlockLogs():
        patt = Chem.MolFromSmarts(BY_NAME[name].smarts)
    if patt is None:
        raise ValueError(f"SMARTS of {name!r} does not compile: {BY_NAME[name].smarts}")
    return patt


def count(mol: Chem.Mol, name: str) -> int:
    """How many times group ``name`` occurs in ``mol`` (unique atom sets; module docstring)."""
    return len(mol.GetSubstructMatches(pattern(name), uniquify=True, maxMatches=MAX_MATCHES))


def table_markdown() -> str:
    """The table as Markdown, for the README."""
    rows = ["| group | SMARTS | aliases | matches |", "| --- | --- | --- | --- |"]
    for g in TABLE:
        smarts = g.smarts.replace("|", "\\|")
        rows.append(f"| {g.name} | `{smarts}` | {', '.join(g.aliases)} | {g.intent} |")
    return "\n".join(rows)
