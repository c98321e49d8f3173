"""Checkers of ``chemistry_atom_bond_constraint`` and ``chemistry_atom_group_constraint``: the
molecule is found and parsed as for the other chemistry constraints (``chemistry.py``, whose
docstring states how), requirements are read by ``count_requirements.py``. Decisions:

* atom_bond: single / double / triple / aromatic counts are ``GetBondType()`` counts over
  the molecule's bonds as parsed: bonds to implicit hydrogens are not bonds of the graph and
  are not counted; aromatic bonds stay AROMATIC (not kekulized), so a Kekulé benzene
  "C1=CC=CC=C1" has 6 aromatic bonds and no double bond; RDKit writes nitro as
  [N+](=O)[O-] (one double, one single N-O bond) whichever way the SMILES wrote it. Rotatable
  bonds: ``rdMolDescriptors.CalcNumRotatableBonds`` with ``NumRotatableBondsOptions.Default``
  (TOMG-Bench's ``Descriptors.NumRotatableBonds``), which in current RDKit is the Strict
  definition: non-ring single bonds between two non-terminal heavy atoms, excluding bonds
  to triple-bonded atoms and amide C-N bonds ("CCCCC(=O)NCC": 4, NonStrict would say 5).
  Total: every bond of the graph (``GetNumBonds``); "N bonds", "N chemical bonds", "N
  covalent bonds" and "a total of N bonds" all state it. Types not named are not constrained.
  A bond phrase that is not understood ("2 C=C double bonds") -> unscored.
* atom_group: functional groups by the SMARTS table of ``smarts.py`` (aliases: hydroxyl,
  carboxylic acid / carboxyl, amine / amino, benzene ring / phenyl, halogen / halo, ...),
  counted as unique substructure matches (``smarts.count``). Groups not named are not
  constrained. A group the table does not know ("2 azide groups") -> unscored.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from rdkit import Chem, rdBase
from rdkit.Chem import rdMolDescriptors

from sci_tasks.metrics.constraints import count_requirements, smarts
from sci_tasks.metrics.constraints.base import CheckInput, register
from sci_tasks.metrics.constraints.chemistry import each_molecule, structures
from sci_tasks.metrics.constraints.molecule_tokens import Candidate
from sci_tasks.metrics.constraints.text import (
    NUMBER_WORD,
    clean_parameters,
    clip,
)
from sci_tasks.metrics.verdict import Verdict

# --------------------------------------------------------------------------- bonds

_BOND_TYPES = {
    "single": Chem.BondType.SINGLE,
    "double": Chem.BondType.DOUBLE,
    "triple": Chem.BondType.TRIPLE,
    "aromatic": Chem.BondType.AROMATIC,
}
# "chemical bonds" / "covalent bonds" without a type are all bonds (the total).
_ANY_BOND = r"(?:(?:chemical|covalent)[ \t]+)?bonds?(?![a-z])"
_BOND_KEY = (
    r"(?P<type>single|double|triple|aromatic|rotatable|total)[ \t-]+(?:covalent[ \t]+|"
    rf"chemical[ \t]+)?bonds?(?![a-z])|(?P<bare>{_ANY_BOND}(?:[ \t]+in[ \t]+total)?)"
)
_BOND_REVERSE_KEY = (
    r"(?P<type>single|double|triple|aromatic|rotatable|total)[ \t-]+bonds?(?![a-z])"
    rf"|(?P<bare>(?:number[ \t]+of[ \t]+)?{_ANY_BOND})"
)
_TOTAL_BONDS_RE = re.compile(
    r"(?<![\w])(?:a[ \t]+)?total[ \t]+(?:number[ \t]+)?of[ \t]+"
    rf"(?:(?P<cmp>{count_requirements.CMP})[ \t]+)?(?P<n>{NUMBER_WORD}){count_requirements.POST}"
    rf"[ \t]+{_ANY_BOND}",
    re.I,
)
_UNKNOWN_BOND_RE = re.compile(
    rf"(?<![\w.])(?P<n>{NUMBER_WORD}|no)[ \t]+(?P<what>[^\s,;.]+(?:[ \t]+[^\s,;.]+)?)[ \t]+"
    r"bonds?(?![a-z])",
    re.I,
)


def _bond_key(m: re.Match[str]) -> str | None:
    kind = m.groupdict().get("type")
    if kind:
        return kind.lower()
    return "total"


def _bond_requirements(text: str) -> tuple[count_requirements.Parsed, str]:
    typed = r"(?P<type>single|double|triple|aromatic|rotatable)[ \t-]+bonds?(?![a-z])"
    patterns = count_requirements.count_patterns(
        _BOND_KEY, total=_TOTAL_BONDS_RE, reverse=_BOND_REVERSE_KEY, negative=typed
    )
    parsed = count_requirements.parse_counts(text, patterns, _bond_key)
    for m in _UNKNOWN_BOND_RE.finditer(text):
        if not parsed.covers(m.span()):
            return parsed, m.group().strip()
    return parsed, ""


def bond_counts(mol: Chem.Mol) -> dict[str, int]:
    """Single / double / triple / aromatic / rotatable / total bond counts (module doc)."""
    kinds = Counter(b.GetBondType() for b in mol.GetBonds())
    counts = {name: kinds.get(kind, 0) for name, kind in _BOND_TYPES.items()}
    with rdBase.BlockLogs():
        counts["rotatable"] = rdMolDescriptors.CalcNumRotatableBonds(
            mol, rdMolDescriptors.NumRotatableBondsOptions.Default
        )
    counts["total"] = mol.GetNumBonds()
    return counts


@dataclass(frozen=True)
class _CountCheck:
    """The bond and group checks: the first requirement text (parameters, else question)
    that states counts (``read``), then the answer molecule's ``count`` of each key."""

    read: Callable[[str], tuple[count_requirements.Parsed, str]]
    not_understood: str  # message template with {source} and {unknown}
    what: str
    count: Callable[[Chem.Mol, str], int]

    def __call__(self, inp: CheckInput) -> Verdict:
        found: count_requirements.Parsed | None = None
        for text, source in count_requirements.requirement_texts(inp):
            parsed, unknown = self.read(text)
            if unknown and (parsed.requirements or source == "parameters"):
                return Verdict.unscored(self.not_understood.format(source=source, unknown=unknown))
            if parsed.requirements:
                found = parsed
                break
        if found is None:
            return Verdict.unscored(
                f"no {self.what} found in parameters "
                f"{clip(clean_parameters(inp.parameters)) or '(none)'!r} or question"
            )
        mols, verdict = structures(inp)
        if verdict is not None:
            return verdict
        return each_molecule(mols, lambda mol: self._counts(mol, found))

    def _counts(self, mol: Candidate, found: count_requirements.Parsed) -> tuple[bool, str]:
        assert mol.mol is not None
        return count_requirements.check_line(
            [(r.key, self.count(mol.mol, r.key), r) for r in found.requirements]
        )


register("chemistry_atom_bond_constraint")(
    _CountCheck(
        _bond_requirements,
        "bond requirement not understood in the {source}: {unknown!r}",
        "bond-count requirement",
        lambda mol, key: bond_counts(mol)[key],
    )
)


# --------------------------------------------------------------------------- groups


def _alias_pattern(alias: str) -> str:
    parts = [re.escape(p) for p in re.split(r"[ \t-]+", alias)]
    return r"[ \t-]+".join(parts)


_GROUP_ALIASES = sorted(smarts.ALIASES, key=len, reverse=True)
_GROUP_WORDS = "|".join(_alias_pattern(a) for a in _GROUP_ALIASES)
_GROUP_TAIL = (
    r"(?:[ \t]+(?:functional[ \t]+)?(?:groups?|rings?|moiet(?:y|ies)|substituents?|units?|"
    r"functionalit(?:y|ies))(?![a-z]))?"
)
_GROUP_KEY = rf"-?(?P<group>{_GROUP_WORDS})(?:e?s)?(?![\w=#]){_GROUP_TAIL}"
_GROUP_BETWEEN = r"(?:(?:free|distinct|separate|additional|individual|terminal)[ \t]+)?"
_UNKNOWN_GROUP_RE = re.compile(
    rf"(?<![\w.])(?P<n>{NUMBER_WORD}|an?|no)[ \t]+"
    r"(?P<what>[A-Za-z][\w=#-]*(?:[ \t]+[A-Za-z][\w-]*)?)"
    r"[ \t]+(?:functional[ \t]+)?groups?(?![a-z])",
    re.I,
)


_VAGUE_GROUP_WORDS = {
    "functional",
    "other",
    "additional",
    "more",
    "different",
    "such",
    "these",
    "those",
    "the",
    "any",
    "distinct",
    "separate",
    "of",
    "polar",
    "chemical",
    "reactive",
}


def _group_key(m: re.Match[str]) -> str | None:
    group = smarts.lookup(m.group("group"))
    return group.name if group else None


def _group_requirements(text: str) -> tuple[count_requirements.Parsed, str]:
    reverse = rf"(?:number[ \t]+of[ \t]+)?{_GROUP_KEY}"
    patterns = count_requirements.count_patterns(
        _GROUP_KEY, reverse=reverse, between=_GROUP_BETWEEN
    )
    parsed = count_requirements.parse_counts(text, patterns, _group_key)
    for m in _UNKNOWN_GROUP_RE.finditer(text):
        what = m.group("what").lower().split()
        if what[0] in _VAGUE_GROUP_WORDS or parsed.covers(m.span()):
            continue
        if smarts.lookup(m.group("what")) is None:
            return parsed, m.group().strip()
    return parsed, ""


register("chemistry_atom_group_constraint")(
    _CountCheck(
        _group_requirements,
        "functional group not in the SMARTS table ({source}): {unknown!r}",
        "functional-group count",
        smarts.count,
    )
)
