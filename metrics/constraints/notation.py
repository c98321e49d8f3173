"""Molecule notations: SMILES parsing with RDKit's reasons, SELFIES decoding, the shapes
that tell a token's notation, and the shape test of IUPAC names. Used by ``molecules.py``
(finding the molecule of an answer) and the option matching of ``options.py``.
"""

from __future__ import annotations

import functools
import re

from rdkit import Chem, rdBase
from rdkit.Chem import rdMolDescriptors

MAX_SMILES_LEN = 400
MAX_SELFIES_LEN = 1600
MAX_NAME_LEN = 200


# --------------------------------------------------------------------------- parsing


def molecular_formula(mol: Chem.Mol) -> str:
    try:
        return rdMolDescriptors.CalcMolFormula(mol)
    except Exception:  # never let RDKit escape
        return "?"


_RING_LABEL_RE = re.compile(r"%[0-9]{2}|[0-9]")
SPACE_RE = re.compile(r"\s")
_BRACKET_ATOM_RE = re.compile(r"\[[^\]]*\]")


def _syntax_problem(smiles: str) -> str:
    """A short diagnosis of a SMILES that RDKit cannot even read."""
    if smiles.count("(") != smiles.count(")"):
        return "unbalanced parentheses"
    if smiles.count("[") != smiles.count("]"):
        return "unbalanced brackets"
    outside = _BRACKET_ATOM_RE.sub("A", smiles)
    seen: dict[str, int] = {}
    for m in _RING_LABEL_RE.finditer(outside):
        seen[m.group()] = seen.get(m.group(), 0) + 1
    unclosed = sorted(label for label, n in seen.items() if n % 2)
    if unclosed:
        return f"unclosed ring bond {unclosed[0].lstrip('%')}"
    return "SMILES syntax error"


_PROBLEM_WORDS = {
    "AtomValenceException": "bad valence",
    "AtomKekulizeException": "cannot kekulize",
    "KekulizeException": "cannot kekulize aromatic ring",
    "AtomSanitizeException": "bad atom",
}


@functools.lru_cache(maxsize=8192)
def parse_smiles(smiles: str) -> tuple[Chem.Mol | None, str]:
    """(molecule, "") or (None, why). Never raises; RDKit logging is blocked.

    Cached: the chemistry constraints of one sample parse the same candidates, and the
    checkers only read the molecule (they never modify a cached Mol)."""
    if not smiles or not smiles.strip():
        return None, "empty string"
    if len(smiles) > MAX_SMILES_LEN:
        return None, f"longer than {MAX_SMILES_LEN} characters, not parsed"
    if SPACE_RE.search(smiles):
        return None, "contains whitespace"
    with rdBase.BlockLogs():
        try:
            mol = Chem.MolFromSmiles(smiles)
        except Exception as exc:
            return None, f"RDKit error {type(exc).__name__}"
        if mol is not None:
            if mol.GetNumAtoms() == 0:
                return None, "no atoms"
            return mol, ""
        try:
            raw = Chem.MolFromSmiles(smiles, sanitize=False)
            if raw is None:
                return None, _syntax_problem(smiles)
            problems = Chem.DetectChemistryProblems(raw)
        except Exception as exc:
            return None, f"RDKit error {type(exc).__name__}"
        if problems:
            kind = problems[0].GetType()
            message = " ".join(problems[0].Message().split())
            return None, f"{_PROBLEM_WORDS.get(kind, kind)}: {message}"
        return None, "not a valid molecule"


def decode_selfies(selfies_text: str) -> tuple[Chem.Mol | None, str | None, str]:
    """(molecule, decoded SMILES, "") or (None, SMILES or None, why). Never raises."""
    if len(selfies_text) > MAX_SELFIES_LEN:
        return None, None, f"longer than {MAX_SELFIES_LEN} characters, not parsed"
    try:
        import selfies
    except ImportError:
        return None, None, "the selfies package is not installed"
    try:
        smiles = selfies.decoder(selfies_text)
    except Exception as exc:
        first = str(exc).strip().splitlines()
        return None, None, f"invalid SELFIES: {first[0] if first else type(exc).__name__}"
    if not smiles:
        return None, smiles, "SELFIES decodes to an empty molecule"
    mol, error = parse_smiles(smiles)
    return mol, smiles, (f"decodes to an invalid SMILES ({error})" if error else "")


# --------------------------------------------------------------------------- shapes

# One SMILES token: a bracket atom, an organic-subset atom (aromatic in lower case), a
# two-digit or one-digit ring label, a bond / branch / dot. Tokens are prefix-distinct
# enough that the fullmatch below backtracks at most a step: linear.
_ATOM = r"\[[^\[\]\s]{1,40}\]|Br|Cl|[BCNOPSFI]|[bcnops]|\*"
_SMILES_RE = re.compile(rf"(?:{_ATOM}|%[0-9]{{2}}|[0-9]|[()=#/\\.:-])+")
_ATOM_RE = re.compile(_ATOM)
_SELFIES_RE = re.compile(r"(?:\[[A-Za-z0-9=#@+\-\\/]{1,20}\]|\.)+")
_SELFIES_SYMBOL_RE = re.compile(r"\[[A-Za-z0-9=#@+\-\\/]{1,20}\]")
_PUNCT = set("()[]=#/\\@%.0123456789")
SMILES_PUNCT_RE = re.compile(r"[()\[\]=#@%0-9]")


def selfies_shaped(token: str) -> bool:
    """Two or more ``[...]`` symbols and nothing else (dots between fragments allowed)."""
    return (
        "[" in token  # two symbols need a bracket: prose words end here
        and len(token) <= MAX_SELFIES_LEN
        and _SELFIES_RE.fullmatch(token) is not None
        and len(_SELFIES_SYMBOL_RE.findall(token)) >= 2
    )


# What only SELFIES writes: a bond or branch symbol ("[=O]", "[Branch1]", "[Ring1]") or a
# bare element symbol ("[C]"); a bracket atom with a charge or hydrogen count ("[Na+]",
# "[BH4-]", "[NH4+]") is SMILES as much as SELFIES.
_SELFIES_ONLY_SYMBOL_RE = re.compile(r"\[(?:[=#/\\]|Branch|Ring|Expl|[A-Z][a-z]?\])")


def selfies_only(token: str) -> bool:
    """SELFIES-shaped with a symbol that a SMILES writer would not write."""
    return selfies_shaped(token) and _SELFIES_ONLY_SYMBOL_RE.search(token) is not None


def smiles_shaped(token: str, min_atoms: int = 1) -> bool:
    """Made of SMILES tokens only, with at least ``min_atoms`` atoms."""
    if not token or len(token) > MAX_SMILES_LEN or _SMILES_RE.fullmatch(token) is None:
        return False
    return min_atoms <= 1 or len(_ATOM_RE.findall(token)) >= min_atoms


def long_format(token: str) -> str | None:
    """For a token too long to parse: "smiles" / "selfies" when its first
    ``MAX_SMILES_LEN`` characters have that shape (so it is reported as too long), else
    None (1 MB of braces is not a molecule)."""
    if len(token) <= MAX_SMILES_LEN:
        return None
    sample = token[:MAX_SMILES_LEN]
    m = _SELFIES_RE.match(sample)
    if m and m.end() >= len(sample) - 25 and sample.startswith("["):
        return "selfies"
    m = _SMILES_RE.match(sample)
    if m and m.end() >= len(sample) - 45 and len(_ATOM_RE.findall(sample[: m.end()])) >= 2:
        return "smiles"
    return None


def generic_shape(token: str) -> bool:
    """SMILES shape where the format is not stated: two atoms at least ("Answer: B" is a
    choice, not borane)."""
    return smiles_shaped(token, min_atoms=2)


def weak_shape(token: str) -> bool:
    """A bare prose token that may be SMILES: two atoms at least, and either SMILES
    punctuation / digits / aromatic atoms, or (letters only) two carbons at least, so all-caps
    words made of atom symbols (NO, IF, SON, CNN) are not molecules."""
    if not smiles_shaped(token, min_atoms=2):
        return False
    if any(ch in _PUNCT for ch in token) or any(ch in "bcnops" for ch in token):
        return True
    return sum(1 for a in _ATOM_RE.findall(token) if a == "C") >= 2


# --------------------------------------------------------------------------- IUPAC names

# Morphemes of substitutive names, by role. A name is "IUPAC-style" when, after
# stereodescriptors and locants are removed and hyphens / parentheses joined, every word
# segments into these morphemes following the transition rules of ``_allowed``, some word
# holds a parent (a chain stem or a ring), and the name ends with an ending (a suffix such
# as -ol / -one / -amine, -ane / -ene / -yne, a ring name, or a final word such as "acid",
# "ether" or an anion). A cation word followed by an anion word (sodium chloride) is a name
# too. Trivial names (aspirin, caffeine) and English words fail; retained names that IUPAC
# keeps (acetic acid, benzoic acid, phenol, aniline, toluene, acetone, formaldehyde,
# benzaldehyde, styrene, acetonitrile) pass. This is a shape test, not a parser: a
# well-formed name for an impossible structure also passes.
_CHAIN = (
    "meth eth prop but pent hex hept oct non dec undec dodec tridec tetradec pentadec "
    "hexadec heptadec octadec nonadec icos eicos"
).split()
_RETAINED = "acet form benz tolu styr".split()  # stems that take a suffix directly
_RING = (
    "benzen pyridin pyrimidin pyrazin pyridazin pyrrol pyrrolidin piperidin piperazin "
    "morpholin furan thiophen thiazol oxazol isoxazol imidazol pyrazol indol isoindol "
    "quinolin isoquinolin quinazolin purin pyran oxiran oxetan oxolan oxan thiiran "
    "aziridin azetidin azepin triazol tetrazol triazin naphthalen anthracen phenanthren "
    "azulen inden fluoren carbazol benzofuran benzothiophen benzimidazol anilin phen "
    "naphth"
).split()
_RING_TERMINAL = {"furan", "pyran", "oxolan", "oxan", "benzofuran"}  # complete without "e"
_SATURATION = ("an", "en", "yn")
_MULTIPLIER = (
    "bi di tri tetra penta hexa hepta octa nona deca undeca dodeca bis tris tetrakis".split()
)
_PREFIX = (
    "fluoro chloro bromo iodo nitro nitroso amino imino hydroxy oxo cyano carboxy formyl "
    "sulfanyl mercapto sulfo sulfonyl sulfinyl oxy thio azido hydro dehydro vinyl allyl "
    "benzyl tolyl aza oxa thia cyclo iso tert sec neo spiro bicyclo tricyclo epoxy "
    "carbamoyl sulfamoyl phospho phosphono peroxy amido hydrazinyl diazenyl "
    "ylidene ylene yl oyl"
).split()
_ENDING_SUFFIX = (
    "ol al one oate ate amide amine imine nitrile thiol ium carboxylate carbaldehyde "
    "carbonitrile carboxamide sulfonate sulfonamide aldehyde oxide peroxide imide"
).split()
_ACID_SUFFIX = "oic ic carboxylic sulfonic".split()  # need the word "acid" after them
CATION_WORDS = "sodium potassium lithium calcium magnesium ammonium barium caesium cesium".split()
ANION_WORDS = (
    "chloride bromide iodide fluoride hydroxide oxide sulfide cyanide azide hydride sulfate "
    "sulfite nitrate nitrite carbonate bicarbonate phosphate perchlorate acetate formate"
).split()
WORDS_AFTER_NAME = {"acid", "anhydride", "ether", "ketone", "alcohol", *ANION_WORDS}

_LEXICON: list[tuple[str, str]] = sorted(
    [(m, "chain") for m in _CHAIN]
    + [(m, "retained") for m in _RETAINED]
    + [(m, "ring") for m in _RING]
    + [(m, "sat") for m in _SATURATION]
    + [(m, "mult") for m in _MULTIPLIER]
    + [(m, "prefix") for m in _PREFIX]
    + [(m, "suffix") for m in _ENDING_SUFFIX]
    + [(m, "acid") for m in _ACID_SUFFIX]
    + [("e", "e"), ("a", "a"), ("o", "o")],
    key=lambda mc: -len(mc[0]),
)
_BY_FIRST: dict[str, list[tuple[str, str]]] = {}
for _m, _c in _LEXICON:
    _BY_FIRST.setdefault(_m[0], []).append((_m, _c))
_PARENTS = ("chain", "retained", "ring")


def _allowed(prev: str | None, kind: str) -> bool:
    """Transition rules: which morpheme kind may follow which."""
    if kind == "e":  # propane, pyridine, propanediol: after -an/-en/-yn or a ring stem
        return prev in ("sat", "ring")
    if kind == "a":  # buta-1,3-diene: after a chain stem
        return prev == "chain"
    if kind == "o":  # benzo-, aceto-: connecting vowel after a ring or retained stem
        return prev in ("ring", "retained")
    if kind == "sat":  # methane, dien, butadiene, cyclohexane, toluene
        return prev in ("chain", "retained", "mult", "a", "ring")
    if kind in ("suffix", "acid"):  # methanol (not "methol"), acetone, propanediol
        return prev in ("sat", "ring", "retained", "mult", "e", "o")
    return True  # stems, multipliers and prefixes may start anywhere


def _segments(word: str) -> set[tuple[bool, bool, bool]]:
    """Every (has a parent, ends with an ending, ends with an acid suffix) reachable by a
    full segmentation of ``word``. Breadth-first over (position, previous kind, flags): at
    most len(word) x 10 x 2 states, each expanded once."""
    n = len(word)
    start: tuple[int, str | None, bool, bool, bool] = (0, None, False, False, False)
    frontier = [start]
    seen = {start}
    results: set[tuple[bool, bool, bool]] = set()
    while frontier:
        nxt: list[tuple[int, str | None, bool, bool, bool]] = []
        for pos, prev, parent, ending, acid in frontier:
            if pos == n:
                results.add((parent, ending, acid))
                continue
            for morpheme, kind in _BY_FIRST.get(word[pos], ()):
                if word.startswith(morpheme, pos) and _allowed(prev, kind):
                    state: tuple[int, str | None, bool, bool, bool] = (
                        pos + len(morpheme),
                        kind,
                        parent or kind in _PARENTS,
                        kind in ("suffix", "e") or morpheme in _RING_TERMINAL,
                        kind == "acid",
                    )
                    if state not in seen:
                        seen.add(state)
                        nxt.append(state)
        frontier = nxt
    return results


# "(2S,3R)-", "(E)-", "(±)-": stereodescriptors, comma-separated (linear: one way to match).
_STEREO = r"(?:[0-9]{0,3}[RSEZrsez*]|[+±−-])"
_STEREO_RE = re.compile(rf"\({_STEREO}(?:,[ \t]?{_STEREO})*\)-?")
# "2-", "1,2-", "2,2'-", "4a-", "N,N-", "1H-", "-1-", "cis-", "L-": locants and the like.
_LOCANT = r"(?:[0-9]{1,3}[a-z]?'{0,3}|[NOS]'{0,2})"
_LOCANT_RE = re.compile(
    rf"(?<![A-Za-z]){_LOCANT}(?:,{_LOCANT})*(?:[0-9]{{0,3}}H)?(?=-)"
    rf"|\b(?:cis|trans|rac|meso|[DL])(?=-)"
)


def iupac_problem(name: str) -> str:
    """ "" when ``name`` looks like a systematic (IUPAC-style) name, else why not."""
    text = " ".join(name.split())
    if not text:
        return "empty name"
    if len(text) > MAX_NAME_LEN:
        return f"longer than {MAX_NAME_LEN} characters"
    if not re.search(r"[a-z]{3}", text):
        return "no lower-case word"
    joined = _LOCANT_RE.sub("", _STEREO_RE.sub("", text))
    joined = re.sub(r"[-−()\[\]{}]+", "", joined)
    words = joined.split()
    if not words:
        return "no name part"
    parent = False
    last: tuple[bool, bool, bool] | None = None
    cation = False
    for i, word in enumerate(words):
        if not word.isalpha():
            return f"unexpected characters in {word!r}"
        if word != word.lower() and not (i == 0 and word[0].isupper() and word[1:].islower()):
            return f"unexpected capitals in {word!r}"
        low = word.lower()
        if i == 0 and low in CATION_WORDS and len(words) > 1:
            cation = True
            continue
        if i > 0 and low in WORDS_AFTER_NAME:
            if last is not None and last[2] != (low == "acid"):
                return f"{low!r} does not fit the word before it"
            parent = parent or (cation and low in ANION_WORDS)
            last = (True, True, False)
            continue
        found = _segments(low)
        if not found:
            return f"{word!r} is not made of IUPAC name parts"
        parent = parent or any(p for p, _, _ in found)
        last = max(found, key=lambda f: (f[1] or f[2], f[0]))
    if not parent:
        return "no parent chain or ring"
    if last is None or not last[1]:
        return "does not end like a name"
    return ""
