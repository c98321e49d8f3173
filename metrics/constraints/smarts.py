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
the same pattern; where it deliberately differs the entry's ``why`` (``smarts.json``, the
table's data file) says why. The
differences, in short: benzene rings count fused benzenoid rings (naphthalene = 2, TOMG's
``[cR1]`` ring pattern gives 0); ``amine`` counts tertiary amines too (TOMG: primary and
secondary only) and split patterns give primary / secondary / tertiary; ester, amide and
aldehyde include the formyl cases (formate esters, formamides, formaldehyde) and ester
excludes anhydrides; sulfide excludes aromatic sulfur (thiophene) and disulfides; ``sulfone``
is R-SO2-R only, the broad TOMG pattern (any S(=O)(=O)) is ``sulfonyl``.

Every pattern is tested molecule by molecule in ``tests/test_chemistry_molecules.py``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rdkit import Chem, rdBase

MAX_MATCHES = 10_000


@dataclass(frozen=True)
class FunctionalGroup:
    name: str  # canonical key, snake_case
    smarts: str
    aliases: tuple[str, ...]  # lower case; how the group is written in requirements
    intent: str  # what the pattern means to match, in one line


SMARTS_FILE = Path(__file__).with_name("smarts.json")


def _load_table(path: Path = SMARTS_FILE) -> tuple[FunctionalGroup, ...]:
    """The table: one object per group with ``name``, ``smarts``, ``aliases``, ``matches``
    (what the pattern means to match) and ``why`` (what it counts, and where and why it
    departs from TOMG-Bench)."""
    rows = json.loads(path.read_text(encoding="utf-8"))
    return tuple(
        FunctionalGroup(r["name"], r["smarts"], tuple(r["aliases"]), r["matches"]) for r in rows
    )


# Notation: X = total connections including implicit H, H = attached H count, D = explicit
# (heavy-atom) degree, ``$(...)`` = recursive SMARTS (an atom in that environment),
# lower-case c/n/o/s = aromatic atoms, upper-case C/N/O/S = aliphatic atoms only.
TABLE: tuple[FunctionalGroup, ...] = _load_table()

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


@cache  # requirement texts repeat group words
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
