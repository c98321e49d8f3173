"""Checkers of the RDKit-scored chemistry constraints of the SciMIF catalogue.

``chemistry_unit_consistency`` is not here (``unit_check.py``). The molecule a response
gives is found by ``molecules.find_molecule`` (its docstring: where a molecule is looked
for, which one is chosen, the bounds, the optional LLM extraction). Counting follows
TOMG-Bench (the source of the molcustom tasks) on the RDKit molecule as parsed from SMILES
(or decoded from SELFIES): sanitized, aromaticity perceived, hydrogens implicit, every
fragment of a salt or mixture ("CC(=O)[O-].[Na+]") counted.

Requirements are read from the parameters first and, when none can be read there, from the
question (``count_requirements.py``: how counts and bounds are written). A requirement that
cannot be read from either -> unscored, with why.

Decisions (one per constraint):

* molecular_format_validity: the format required is the one the parameters name (SMILES,
  SELFIES, IUPAC), else the one(s) the question names; none named -> any of the three (names
  then only from labels, lines, code and LaTeX, not from prose words, where every chemical
  word would pass). Several named -> any of them. Pass iff the chosen candidate in a
  required format is valid: SMILES parsed by RDKit, SELFIES decoded by ``selfies`` then
  parsed, an IUPAC name that OPSIN parses to a structure (``opsin.py``). A stated answer
  that is invalid fails even when a valid molecule appears elsewhere in prose. A valid
  molecule in another format only fails ("SELFIES given, SMILES required").
* For the three count constraints the molecule must be a structure (SMILES, SELFIES, or a
  name OPSIN reads when the question asks for a name). No
  valid structure -> fail ("no valid molecule in the response"); an INVALID SMILES/SELFIES
  is a fail too (the response did not give a valid molecule), with the parse error in the
  reason. When the question asks for an IUPAC name only, the name's structure is OPSIN's.
* atom_count: per-element counts of heavy atoms ("5 carbon atoms", "five carbons", "1 Br
  atom", "Br: 1", element names or symbols), an optional total of heavy atoms ("12 heavy
  atoms", "a total of 12 atoms", "12 non-hydrogen atoms"), or a molecular formula
  ("molecular formula C5H9BrO2", exact for every element including H). Hydrogens are not
  counted unless a hydrogen count is stated; then it is the total attached H, implicit
  included (``GetTotalNumHs`` plus explicit H atoms), so "CCO" has 6. Heavy elements the
  requirement does not list must be absent (TOMG-Bench: "a molecule with 8 carbon atoms and
  1 nitrogen atom" has no other heavy atoms) when the text says so ("no other heavy atoms",
  "composed only of", a formula), or when it lists a composition: exact counts of two or
  more elements, carbon among them ("6 carbon atoms" alone leaves other elements free), no
  total, and no "including" / "among them" / "in addition" / "other atoms allowed" wording.
  "containing exactly 2 nitrogen atoms" alone does not close the list.
* atom_bond and atom_group: ``bonds_groups.py`` (its docstring).

Each reason names the molecule and every count checked, e.g. ``C5H9BrO2 (SMILES
'CC(Br)C(=O)OCC' from JSON key 'molecule'): C=5 ok, Br=1 ok, O=2 ok, no other heavy atoms ok``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from rdkit import Chem

from sci_tasks.metrics.constraints.base import CheckInput, register, register_judged
from sci_tasks.metrics.constraints.count_requirements import (
    CMP,
    POST,
    Parsed,
    Requirement,
    check_line,
    count_patterns,
    parse_counts,
    requirement_texts,
)
from sci_tasks.metrics.constraints.judged import STEPS
from sci_tasks.metrics.constraints.methods import check_method
from sci_tasks.metrics.constraints.molecule_tokens import FORMAT_WORDS, FORMATS, Candidate
from sci_tasks.metrics.constraints.molecules import find_molecule
from sci_tasks.metrics.constraints.text import (
    NUMBER_WORD,
    clean_parameters,
    clip,
    phrases,
)
from sci_tasks.metrics.constraints.unit_check import check_units
from sci_tasks.metrics.verdict import Verdict

# --------------------------------------------------------------------------- molecules

_FORMAT_RES = {
    "smiles": re.compile(r"\bSMILES\b", re.I),
    "selfies": re.compile(r"\bSELFIES\b", re.I),
    "iupac": re.compile(r"\bIUPAC\b|\bsystematic[ \t]+name\b", re.I),
}


def required_formats(inp: CheckInput) -> tuple[tuple[str, ...], str]:
    """The molecule formats the parameters name, else the question names, else all three;
    and where that was read ("parameters" / "question" / "")."""
    for text, source in requirement_texts(inp):
        named = tuple(f for f in FORMATS if _FORMAT_RES[f].search(text))
        if named:
            return named, source
    return FORMATS, ""


# A second search, only to say what else the response holds ("only a name was given"),
# is skipped for responses longer than this.
_EXPLAIN_LIMIT = 100_000


# "Give three different molecules ...": every molecule of the answer meets the counts
_SEVERAL_RE = re.compile(
    r"\b(?:two|three|four|five|six|[2-9])[ \t]+(?:(?:different|distinct|unique|possible|"
    r"valid|new)[ \t]+)*(?:molecules|compounds|structures|isomers|SMILES|candidates)\b",
    re.I,
)


def structures(inp: CheckInput) -> tuple[list[Candidate], Verdict | None]:
    """The answer's molecules as structures: ``structure``'s one, and where the question
    asks for several molecules, each of the list the reply gives them in
    (``Search.listed``); or the verdict when there is none."""
    mol, verdict = structure(inp)
    if mol is None or not _SEVERAL_RE.search(inp.question or "") or mol.fmt == "iupac":
        return ([mol] if mol is not None else []), verdict
    return find_molecule(inp, ("smiles", "selfies")).listed(), None


def structure(inp: CheckInput) -> tuple[Candidate | None, Verdict | None]:
    """The response's molecule as a structure (SMILES / SELFIES), or the verdict when there
    is none."""
    formats, _ = required_formats(inp)
    if formats == ("iupac",):  # the name's structure, as OPSIN reads it
        named = find_molecule(inp, ("iupac",), what="IUPAC name", names_in_prose=True)
        if named.molecule is not None and named.molecule.mol is not None:
            return named.molecule, None
    search = find_molecule(inp, ("smiles", "selfies"))
    if search.molecule is None:
        reason = search.why_none(("smiles", "selfies"))
        if search.chosen is None and len(inp.response) <= _EXPLAIN_LIMIT:
            names = find_molecule(CheckInput(inp.response, None, ""), ("iupac",))
            if names.molecule is not None:
                reason += f"; only a name was given: {names.molecule.describe()}"
        return None, Verdict.failed(reason)
    return search.molecule, None


def about(mol: Candidate) -> str:
    return f"{mol.formula} ({mol.describe()})"


# --------------------------------------------------------------------------- format


@register("chemistry_molecular_format_validity")
def molecular_format_validity(inp: CheckInput) -> Verdict:
    formats, source = required_formats(inp)
    words = " or ".join(FORMAT_WORDS[f] for f in formats)
    required = f"{words} required ({source})" if source else "no format named: any accepted"
    search = find_molecule(
        inp,
        formats,
        what="IUPAC name" if formats == ("iupac",) else None,
        names_in_prose=bool(source) and "iupac" in formats,
    )
    found = search.molecule
    if found is not None:
        if found.fmt == "iupac":
            return Verdict.passed(
                f"{found.describe()} -> {found.smiles} ({found.formula}, OPSIN); {required}"
            )
        extra = f" = {found.smiles}" if found.fmt == "selfies" else ""
        return Verdict.passed(f"valid {found.describe()}{extra} -> {found.formula}; {required}")
    reason = search.why_none(formats)
    if search.chosen is None and source and len(inp.response) <= _EXPLAIN_LIMIT:
        others = tuple(f for f in FORMATS if f not in formats)
        other = find_molecule(CheckInput(inp.response, None, ""), others, names_in_prose=False)
        if other.molecule is not None:
            reason = f"{other.molecule.describe()} given, not {words}"
    return Verdict.failed(f"{reason}; {required}")


# --------------------------------------------------------------------------- atoms

_ELEMENTS: dict[str, str] = {
    "hydrogen": "H",
    "lithium": "Li",
    "boron": "B",
    "carbon": "C",
    "nitrogen": "N",
    "oxygen": "O",
    "fluorine": "F",
    "sodium": "Na",
    "magnesium": "Mg",
    "aluminium": "Al",
    "aluminum": "Al",
    "silicon": "Si",
    "phosphorus": "P",
    "phosphorous": "P",
    "sulfur": "S",
    "sulphur": "S",
    "chlorine": "Cl",
    "potassium": "K",
    "calcium": "Ca",
    "iron": "Fe",
    "copper": "Cu",
    "zinc": "Zn",
    "germanium": "Ge",
    "arsenic": "As",
    "selenium": "Se",
    "bromine": "Br",
    "tin": "Sn",
    "antimony": "Sb",
    "tellurium": "Te",
    "iodine": "I",
    "bismuth": "Bi",
    "polonium": "Po",
}
_SYMBOLS = sorted(set(_ELEMENTS.values()), key=len, reverse=True)
_NAMES = "|".join(sorted(_ELEMENTS, key=len, reverse=True))
_SYMS = "|".join(_SYMBOLS)
_ATOMS = r"(?:[ \t]+atoms?(?![a-z]))"
_HEAVY = (
    r"(?P<heavy>heavy[ \t-]+atoms?|non-?hydrogen[ \t]+atoms?|non-?H[ \t]+atoms?|"
    r"atoms?[ \t]+in[ \t]+total|total[ \t]+(?:heavy[ \t]+)?atoms?)(?![a-z])"
)
_NAME_KEY = rf"(?P<name>{_NAMES})s?(?![a-z]){_ATOMS}?"
_SYM_BARE = rf"(?-i:(?P<sym>{_SYMS}))(?![A-Za-z]){_ATOMS}?"
_SYM_ATOMS = rf"(?-i:(?P<sym>{_SYMS})){_ATOMS}"
_TOTAL_RE = re.compile(
    rf"(?<![\w])(?:a[ \t]+)?total[ \t]+(?:number[ \t]+)?of[ \t]+(?:(?P<cmp>{CMP})[ \t]+)?"
    rf"(?P<n>{NUMBER_WORD}){POST}[ \t]+(?:heavy[ \t]+|non-?hydrogen[ \t]+)?atoms?(?![a-z])",
    re.I,
)
_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
_FORMULA_RE = re.compile(
    r"\b(?:molecular|chemical|empirical)?[ \t]*formula[ \t]*(?:of|is|:|=)?[ \t]*[`*$]{0,2}"
    r"(?P<formula>(?:[A-Z][a-z]?[0-9]*){1,30})(?![A-Za-z0-9])"
)
_FORMULA_PART_RE = re.compile(r"([A-Z][a-z]?)([0-9]*)")
_CLOSED_RE = re.compile(
    phrases(
        r"\bno (?:other|additional|further) (?:heavy |non-?hydrogen )?(?:atoms?|elements?)\b",
        r"\b(?:composed|consist(?:s|ing)?|made up) (?:only|solely|entirely|exclusively) of\b",
        r"\bonly these (?:atoms|elements)\b",
        r"\bnothing else\b",
    ),
    re.I,
)
_OPEN_RE = re.compile(
    r"\b(?:including|among[ \t]+(?:them|which)|in[ \t]+addition|besides|"
    r"may[ \t]+(?:also[ \t]+)?(?:contain|include|have)|other[ \t]+(?:heavy[ \t]+)?atoms?"
    r"[ \t]+(?:are[ \t]+|may[ \t]+be[ \t]+)?(?:allowed|permitted))\b",
    re.I,
)
_UNKNOWN_ATOM_RE = re.compile(
    rf"(?<![\w.])(?P<n>{NUMBER_WORD})[ \t]+(?P<word>[A-Za-z-]+)[ \t]+atoms?(?![a-z])", re.I
)
_IGNORED_ATOM_WORDS = {"heavy", "other", "additional", "more", "total", "non-hydrogen", "non-h"}


def _atom_key(m: re.Match[str]) -> str | None:
    groups = m.groupdict()
    if groups.get("heavy"):
        return "heavy"
    if groups.get("name"):
        return _ELEMENTS[groups["name"].lower()]
    if groups.get("sym"):
        return groups["sym"]
    return "heavy" if "total" in m.group().lower() else None


def _atom_requirements(text: str, in_parameters: bool) -> tuple[Parsed, bool, str]:
    """(requirements, the heavy-atom list is closed, an unknown element word or "")."""
    formula = _FORMULA_RE.search(text.translate(_SUBSCRIPTS))
    if formula:
        parsed = Parsed([], [formula.span()])
        counts: Counter[str] = Counter()
        for sym, digits in _FORMULA_PART_RE.findall(formula.group("formula")):
            if sym not in _SYMBOLS:
                break
            counts[sym] += int(digits or 1)
        else:
            for sym in sorted(counts):
                parsed.add(sym, ("==", counts[sym]), formula)
            if "H" not in counts:
                parsed.add("H", ("==", 0), formula)
            return parsed, True, ""
    sym = _SYM_BARE if in_parameters else _SYM_ATOMS
    keys = rf"{_HEAVY}|{_NAME_KEY}|{sym}"
    negative = rf"{_NAME_KEY}|{_SYM_ATOMS}"
    patterns = count_patterns(keys, total=_TOTAL_RE, negative=negative)
    parsed = parse_counts(text, patterns, _atom_key)
    unknown = ""
    for m in _UNKNOWN_ATOM_RE.finditer(text):
        word = m.group("word").lower()
        if (
            word not in _ELEMENTS
            and word not in _IGNORED_ATOM_WORDS
            and not parsed.covers(m.span())
        ):
            unknown = m.group().strip()
            break
    reqs = parsed.requirements
    elements = [r for r in reqs if r.key not in ("heavy", "H")]
    composition = (
        len({r.key for r in elements}) >= 2  # "6 carbon atoms" alone lists no composition
        and all(r.op == "==" for r in elements)
        and any(r.key == "C" for r in elements)
        and not any(r.key == "heavy" for r in reqs)
        and not _OPEN_RE.search(text)
    )
    return parsed, composition or bool(_CLOSED_RE.search(text)), unknown


def _hydrogens(mol: Chem.Mol) -> int:
    return sum(a.GetTotalNumHs() for a in mol.GetAtoms()) + sum(
        1 for a in mol.GetAtoms() if a.GetAtomicNum() == 1
    )


@register("chemistry_atom_count_constraint")
def atom_count_constraint(inp: CheckInput) -> Verdict:
    found: tuple[Parsed, bool, str, str] | None = None
    for text, source in requirement_texts(inp):
        parsed, closed, unknown = _atom_requirements(text, source == "parameters")
        if unknown:
            return Verdict.unscored(f"unknown element in the {source}: {unknown!r}")
        if parsed.requirements:
            found = (parsed, closed, unknown, source)
            break
    if found is None:
        return Verdict.unscored(
            "no atom-count requirement found in parameters "
            f"{clip(clean_parameters(inp.parameters)) or '(none)'!r} or question"
        )
    parsed, closed, _, source = found
    if not closed and source == "parameters":  # the question may close the list
        closed = bool(_CLOSED_RE.search(inp.question or ""))
    mols, verdict = structures(inp)
    if verdict is not None:
        return verdict
    return each_molecule(mols, lambda mol: _atom_counts(mol, parsed, closed))


def each_molecule(
    mols: list[Candidate], judge_one: Callable[[Candidate], tuple[bool, str]]
) -> Verdict:
    """One verdict over the answer's molecules: the first that fails, else all pass."""
    lines: list[str] = []
    for mol in mols:
        ok, line = judge_one(mol)
        if not ok:
            prefix = f"molecule {len(lines) + 1} of {len(mols)}, " if len(mols) > 1 else ""
            return Verdict.failed(f"{prefix}{about(mol)}: {line}")
        lines.append(f"{about(mol)}: {line}")
    return Verdict.passed("; ".join(lines))


def _atom_counts(mol: Candidate, parsed: Parsed, closed: bool) -> tuple[bool, str]:
    assert mol.mol is not None
    heavy = Counter(a.GetSymbol() for a in mol.mol.GetAtoms() if a.GetAtomicNum() > 1)
    pairs: list[tuple[str, int, Requirement | None]] = []
    for req in parsed.requirements:
        if req.key == "heavy":
            pairs.append(("heavy atoms", mol.mol.GetNumHeavyAtoms(), req))
        elif req.key == "H":
            pairs.append(("H", _hydrogens(mol.mol), req))
        else:
            pairs.append((req.key, heavy.get(req.key, 0), req))
    ok, line = check_line(pairs)
    if closed:
        listed = {r.key for r in parsed.requirements}
        others = sorted(sym for sym in heavy if sym not in listed)
        if others:
            ok = False
            extra = ", ".join(f"{sym}={heavy[sym]}" for sym in others)
            line += f", other heavy atoms {extra} (none allowed)"
        else:
            line += ", no other heavy atoms ok"
    return ok, line


register("chemistry_unit_consistency")(check_units)
register("chemistry_method_constraint")(check_method)
register_judged(STEPS, "chemistry_reaction_steps_constraint", "chemistry_analysis_steps_constraint")
