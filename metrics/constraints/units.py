"""Units: a small grammar that reads a unit however it is written, and the five
``<discipline>_unit_consistency`` checkers (one implementation, five names).

**Cleaning** (``clean_unit_text``, before any parsing): LaTeX wrappers are unwrapped
(``\\mathrm{m}``, ``\\text{ kJ}``, ``\\rm``, ``\\operatorname``, ``\\mbox``, ``\\SI{3}{km}``);
``\\frac{a}{b}`` becomes ``(a)/(b)``; ``^{\\circ}`` / ``\\circ`` / ``\\degree`` / ``º`` / ``˚``
become ``°``; ``\\AA`` / ``\\mathring{A}`` / U+212B become ``Å``; ``\\mu`` / ``µ`` become ``μ``;
``\\Omega`` / U+2126 become ``Ω``; ``\\cdot`` / ``⋅`` / ``∙`` / ``•`` become ``·``; ``℃`` / ``℉``
become ``°C`` / ``°F``; ``\\%`` becomes ``%``; LaTeX spaces (``\\,`` ``\\;`` ``~``) become
spaces; ``−`` becomes ``-``; ``$`` is dropped.

**Grammar** (``read_unit`` reads the longest unit at a position; ``parse_unit`` a whole
string)::

    unit  := term (sep term)*
    sep   := "/" | "per"          every later term is in the denominator ("J/mol K" = J/(mol K))
           | "·" | "*" | "."      product ("." only when glued to the next letter)
           | " "                  implicit product; the next term must carry an exponent
                                  ("kJ mol^-1") or be m / s / h after N W A V Pa J ("N m", "kW h")
    term  := "(" unit ")" [exp]
           | ["square" | "sq" | "cubic"] atom [exp | "squared" | "cubed"]
    exp   := "^" ["{" | "("] [sign] int ["/" int] [")" | "}"]  |  "**" [sign] int
           | superscripts ("²", "⁻¹")
           | sign? digit glued to a symbol ("m2", "s-1"; after an implicit product only
             a negative one, so "2 mol H2" is mol, not mol·H²)
    atom  := symbol | prefix symbol | name | two glued symbols ("kWh", "Nm", "mAh")

Symbols are case-sensitive (``mPa`` is not ``MPa``, ``K`` is not ``k``). A token of two or
more letters that is written all in capitals, or that reads as nothing as written, may
also be read case-insensitively (``KJ/MOL``, ``kj/mol``, ``MPA``: text whose case a letter
constraint forced). Names are case-insensitive and may be plural: ``kilojoules``,
``square metres``, ``meters per second squared``, ``degrees Celsius``, ``micron``,
``angstroms``, ``percent``. Prefixes: P T G M k h da d c m μ (also ``u`` before m g L M
mol A V W F J N Pa) n p f; h, da, d and c only before the units that use them (m g L,
hPa); atto and smaller are left out (``as``, ``am`` are words). ``in`` (inch) and bare
``a`` (year) are not units.

**Canonical form** (``Unit``): a sorted tuple of ``(symbol, prefix, exponent)``, exponents
summed per prefixed symbol. Two spellings are the same unit iff their canonical forms are
equal: ``m^2`` = ``m²`` = ``m**2`` = ``square metres`` = ``sq m`` = ``\\mathrm{m}^{2}``;
``kJ/mol`` = ``kJ mol^-1`` = ``kJ·mol⁻¹`` = ``kilojoules per mole``; ``°C`` = ``degC`` =
``degrees Celsius``. Different units stay different even for the same quantity (``km`` vs
``m``, ``kJ`` vs ``J``, ``L`` vs ``dm^3``, ``M`` vs ``mol/L``, ``K`` vs ``°C``); each symbol's
dimension (``dimension``) is known, which says which quantities in a response measure the
same thing as the required unit.

**unit_consistency decision rule.** Required unit(s): the parameters when they parse as
units ("kJ/mol", "unit: m/s^2", "grams (g)", several joined by "," / "and"), else the
question: a unit read after "in" / "in units of" / "unit(s):" / "convert ... to" / "as a
percentage" in a sentence that asks for a value (express / give / report / answer /
calculate / ...); a molecule ("in N2") or labels ("in A and B") there are not units.
"SI units" with no unit named -> every unit in scope must be SI (base and derived, any
prefix, °C allowed; dimensionless and angle units exempt). Nothing found -> unscored.
Scope: the whole response when the parameters or the unit sentence say all / every / each /
throughout / entire / whole / consistent; otherwise the final answer: the last ``\\boxed{}`` or
the answer after the last answer marker (with the rest of its line, so ``\\boxed{2.09} Å``
counts), else the last non-empty line that holds a number.
A quantity is a number (``text.find_numbers``) followed by a unit. Final-answer scope:
pass iff, for each required unit, some quantity carries it (if no number in scope has a
unit, a bracketed unit "(m/s^2)" / "[kJ/mol]" or "unit: X" in scope counts). Whole scope:
pass iff each required unit is carried by some quantity and every quantity whose dimension
equals a required unit's dimension carries a required unit. More than ``MAX_QUANTITIES``
numbers in scope (degenerate text): unscored.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

from sci_tasks.metrics.constraints.base import CheckInput, register
from sci_tasks.metrics.constraints.text import (
    clean_parameters,
    clip,
    final_answer,
    non_empty_lines,
    sentences,
)
from sci_tasks.metrics.verdict import Verdict

# --------------------------------------------------------------------------- tables

# (symbol, dimension, prefixes, names, SI). prefixes: "*" any, "" none, else the allowed
# prefix symbols ("!" = the bare symbol is not a unit, only prefixed: ka, Ma, Ga).
# Dimensions: L M T I Θ N Iv (luminous) and pseudo-dimensions for dimensionless kinds.
_UNIT_TABLE: tuple[tuple[str, str, str, str, bool], ...] = (
    ("m", "L", "*", "metre meter", True),
    ("g", "M", "*", "gram gramme", True),
    ("s", "T", "*", "second sec", True),
    ("A", "I", "*", "ampere amp", True),
    ("K", "Θ", "*", "kelvin", True),
    ("mol", "N", "*", "mole", True),
    ("cd", "Iv", "*", "candela", True),
    ("Hz", "T-1", "*", "hertz", True),
    ("N", "M L T-2", "*", "newton", True),
    ("Pa", "M L-1 T-2", "*", "pascal", True),
    ("J", "M L2 T-2", "*", "joule", True),
    ("W", "M L2 T-3", "*", "watt", True),
    ("C", "I T", "*", "coulomb", True),
    ("V", "M L2 T-3 I-1", "*", "volt", True),
    ("F", "M-1 L-2 T4 I2", "*", "farad", True),
    ("Ω", "M L2 T-3 I-2", "*", "ohm", True),
    ("S", "M-1 L-2 T3 I2", "*", "siemens", True),
    ("Wb", "M L2 T-2 I-1", "*", "weber", True),
    ("T", "M T-2 I-1", "*", "tesla", True),
    ("H", "M L2 T-2 I-2", "*", "henry henries", True),
    ("Bq", "T-1", "*", "becquerel", True),
    ("Gy", "L2 T-2", "*", "gray", True),
    ("Sv", "L2 T-2", "*", "sievert", True),
    ("lm", "Iv", "*", "lumen", True),
    ("lx", "Iv L-2", "*", "lux", True),
    ("kat", "N T-1", "*", "katal", True),
    ("rad", "angle", "m μ", "radian", True),
    ("sr", "angle2", "", "steradian", True),
    ("°C", "Θ", "", "celsius centigrade", True),
    ("°F", "Θ", "", "fahrenheit", False),
    ("°", "angle", "", "degree", False),
    ("L", "L3", "*", "litre liter", False),
    ("eV", "M L2 T-2", "*", "electronvolt", False),
    ("Å", "L", "", "angstrom ångström angstroem", False),
    ("Da", "M", "k M", "dalton", False),
    ("M", "N L-3", "m μ n p f", "molar", False),
    ("bar", "M L-1 T-2", "m k", "bar", False),
    ("atm", "M L-1 T-2", "", "atmosphere", False),
    ("mmHg", "M L-1 T-2", "", "", False),
    ("Torr", "M L-1 T-2", "m", "torr", False),
    ("psi", "M L-1 T-2", "k", "", False),
    ("cal", "M L2 T-2", "k", "calorie", False),
    ("erg", "M L2 T-2", "", "erg", False),
    ("dyn", "M L T-2", "", "dyne", False),
    ("min", "T", "", "minute", False),
    ("h", "T", "", "hour", False),
    ("d", "T", "", "day", False),
    ("yr", "T", "k M G", "year", False),
    ("a", "T", "k M G !", "", False),
    ("t", "M", "k M G", "tonne", False),
    ("ha", "L2", "", "hectare", False),
    ("mi", "L", "", "mile", False),
    ("ft", "L", "", "foot feet", False),
    ("au", "L", "", "", False),
    ("ly", "L", "", "", False),
    ("pc", "L", "k M G", "parsec", False),
    ("rpm", "T-1", "", "", False),
    ("dB", "level", "", "decibel", False),
    ("%", "ratio", "", "percent percentage pct", False),
    ("‰", "ratio", "", "permille", False),
    ("ppm", "ratio", "", "", False),
    ("ppb", "ratio", "", "", False),
    ("wt%", "ratio", "", "", False),
    ("at%", "ratio", "", "", False),
    ("vol%", "ratio", "", "", False),
    ("mol%", "ratio", "", "", False),
    ("okta", "ratio", "", "okta octa", False),  # cloud cover in eighths of the sky
    ("U", "N T-1", "k m μ n", "", False),  # enzyme unit (1 μmol/min): "U/μL", "0.5 U"
    ("bp", "count", "k M G", "", False),
    ("nt", "count", "k", "nucleotide", False),
    ("aa", "count", "", "", False),
    ("cells", "count", "", "cell", False),
    ("people", "count", "", "person persons inhabitant individual", False),
    ("CFU", "count", "", "", False),
)
# Other spellings of one symbol (or of a prefixed symbol): symbol -> (symbol, prefix, exp).
_SYMBOL_ALIASES: dict[str, tuple[str, str, int]] = {
    "l": ("L", "", 1),
    "ℓ": ("L", "", 1),
    "sec": ("s", "", 1),
    "hr": ("h", "", 1),
    "hrs": ("h", "", 1),
    "y": ("yr", "", 1),
    "u": ("Da", "", 1),
    "amu": ("Da", "", 1),
    "AU": ("au", "", 1),
    "degC": ("°C", "", 1),
    "degF": ("°F", "", 1),
    "deg": ("°", "", 1),
    "cc": ("m", "c", 3),
    "kb": ("bp", "k", 1),
    "Mb": ("bp", "M", 1),
    "cfu": ("CFU", "", 1),
    "Ohm": ("Ω", "", 1),
    "µ": ("m", "μ", 1),  # a bare "µ" after a number is micrometre (micron) shorthand
}
_NAME_ALIASES: dict[str, tuple[str, str, int]] = {
    "micron": ("m", "μ", 1),
    "micrometre": ("m", "μ", 1),  # also produced by prefix + name; listed for clarity
    "base pair": ("bp", "", 1),
    "kilobase": ("bp", "k", 1),
    "amino acid": ("aa", "", 1),
    "residue": ("aa", "", 1),
    "electron volt": ("eV", "", 1),
    "light year": ("ly", "", 1),
    "astronomical unit": ("au", "", 1),
    "per cent": ("%", "", 1),
    "per mille": ("‰", "", 1),
    "weight percent": ("wt%", "", 1),
    "weight percentage": ("wt%", "", 1),
    "mass percent": ("wt%", "", 1),
    "atomic percent": ("at%", "", 1),
    "volume percent": ("vol%", "", 1),
    "mole percent": ("mol%", "", 1),
    "millimetre of mercury": ("mmHg", "", 1),
    "millimeter of mercury": ("mmHg", "", 1),
}
_PREFIXES: dict[str, int] = {
    "P": 15,
    "T": 12,
    "G": 9,
    "M": 6,
    "k": 3,
    "h": 2,
    "da": 1,
    "d": -1,
    "c": -2,
    "m": -3,
    "μ": -6,
    "n": -9,
    "p": -12,
    "f": -15,
}
_PREFIX_WORDS: dict[str, str] = {
    "peta": "P",
    "tera": "T",
    "giga": "G",
    "mega": "M",
    "kilo": "k",
    "hecto": "h",
    "deca": "da",
    "deka": "da",
    "deci": "d",
    "centi": "c",
    "milli": "m",
    "micro": "μ",
    "nano": "n",
    "pico": "p",
    "femto": "f",
}
# Prefixes that only some units take (everything else: P T G M k m μ n p f).
_NARROW_PREFIXES: dict[str, frozenset[str]] = {
    "h": frozenset({"Pa", "L", "m", "g"}),
    "da": frozenset({"m", "g", "L"}),
    "d": frozenset({"m", "g", "L"}),
    "c": frozenset({"m", "g", "L"}),
}
_YEAR = "yr"  # ka, Ma, Ga (annum) are kyr, Myr, Gyr
_U_MICRO = frozenset({"m", "g", "L", "M", "mol", "A", "V", "W", "F", "J", "N", "Pa"})
# Pieces two glued symbols may be made of ("kWh", "Nm", "mAh", "Pas").
_GLUE_PIECES = frozenset({"W", "h", "A", "V", "N", "m", "s", "Pa", "J", "eV"})
# Implicit (space) products without an exponent: m / s / h after these.
_SPACE_PRODUCT = (frozenset({"N", "W", "A", "V", "Pa", "J"}), frozenset({"m", "s", "h"}))
_NOT_UNITS = frozenset({"in", "a", "as", "at", "am", "an", "is", "it", "on", "or", "of", "to"})

_BASE_DIMS = ("L", "M", "T", "I", "Θ", "N", "Iv", "angle", "angle2", "ratio", "count", "level")


def _dim(spec: str) -> tuple[tuple[str, int], ...]:
    out: dict[str, int] = {}
    for part in spec.split():
        m = re.fullmatch(r"([^-0-9]+)(-?[0-9]*)", part)
        assert m, part
        out[m.group(1)] = out.get(m.group(1), 0) + int(m.group(2) or 1)
    assert set(out) <= set(_BASE_DIMS), spec
    return tuple(sorted(out.items()))


@dataclass(frozen=True)
class _Symbol:
    symbol: str
    dimension: tuple[tuple[str, int], ...]
    prefixes: frozenset[str] | None  # None: any prefix
    bare: bool
    si: bool


_SYMBOLS: dict[str, _Symbol] = {}
_NAMES: dict[str, tuple[str, str, int]] = dict(_NAME_ALIASES)
for _sym, _dims, _pfx, _names, _si in _UNIT_TABLE:
    _allowed = None if _pfx == "*" else frozenset(p for p in _pfx.split() if p != "!")
    _SYMBOLS[_sym] = _Symbol(_sym, _dim(_dims), _allowed, "!" not in _pfx, _si)
    for _name in _names.split():
        _NAMES[_name] = (_sym, "", 1)
_FOLDED: dict[str, list[str]] = {}
for _sym in [*_SYMBOLS, *_SYMBOL_ALIASES]:
    _FOLDED.setdefault(_sym.lower(), []).append(_sym)


class Unit(NamedTuple):
    """A unit in canonical form: sorted ``(symbol, prefix, exponent)`` factors."""

    factors: tuple[tuple[str, str, Fraction], ...]

    def __str__(self) -> str:
        return render(self)


def _make(factors: dict[tuple[str, str], Fraction]) -> Unit:
    return Unit(tuple(sorted((s, p, e) for (s, p), e in factors.items() if e != 0)))


def render(unit: Unit) -> str:
    """``kJ·mol^-1``: positive exponents first, then negative ones."""
    parts = []
    for sym, pfx, exp in sorted(unit.factors, key=lambda f: (f[2] < 0, f[0], f[1])):
        parts.append(pfx + sym + ("" if exp == 1 else f"^{exp}"))
    return "·".join(parts) or "1"


def dimension(unit: Unit) -> tuple[tuple[str, int | Fraction], ...]:
    """The unit's dimension as sorted ``(base dimension, exponent)`` pairs."""
    out: dict[str, Fraction] = {}
    for sym, _, exp in unit.factors:
        for base, k in _SYMBOLS[sym].dimension:
            out[base] = out.get(base, Fraction(0)) + k * exp
    return tuple(sorted((b, int(e) if e.denominator == 1 else e) for b, e in out.items() if e))


def is_si(unit: Unit) -> bool:
    """Every factor an SI base or derived unit (any prefix; °C allowed)."""
    return all(_SYMBOLS[sym].si for sym, _, _ in unit.factors)


# --------------------------------------------------------------------------- cleaning

_WRAPPER_RE = re.compile(
    r"\\(?:mathrm|text|textrm|mathit|textit|rm|operatorname|mbox|mathsf|textsf|unit|si|"
    r"mathup|textup|ensuremath)[ \t]*\{((?:[^{}]|\{[^{}]*\})*)\}"
)
_SI_RE = re.compile(r"\\(?:SI|qty)[ \t]*\{([^{}]*)\}[ \t]*\{([^{}]*)\}")
_FRAC_RE = re.compile(
    r"\\[dt]?frac[ \t]*\{((?:[^{}]|\{[^{}]*\})*)\}[ \t]*\{((?:[^{}]|\{[^{}]*\})*)\}"
)
# "wt.%", "wt. %", "at %": the percent kinds written with a dot or a space
_PERCENT_KIND_RE = re.compile(r"\b(wt|at|vol|mol)[ \t]*\.?[ \t]*%")
_DEGREE_RE = re.compile(r"\^[ \t]*\{?[ \t]*\\circ[ \t]*\}?|\\circ|\\degree|\\textdegree")
_ANGSTROM_RE = re.compile(
    r"\\(?:AA|angstrom)(?![A-Za-z])|\\(?:mathring|r)[ \t]*\{?[ \t]*A[ \t]*\}?"
)
_LATEX_SIMPLE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\\(?:mu|micro)(?![A-Za-z])[ \t]*"), "μ"),
    (re.compile(r"\\(?:Omega|ohm)(?![A-Za-z])"), "Ω"),
    (re.compile(r"\\(?:cdot|bullet|centerdot)(?![A-Za-z])"), "·"),
    (re.compile(r"\\(?:left|right|big|Big|bigl|bigr|Bigl|Bigr)(?![A-Za-z])"), ""),
    (re.compile(r"\\(?:quad|qquad|thinspace|enspace)(?![A-Za-z])|\\[,;:! ]|~"), " "),
    (re.compile(r"\\%"), "%"),
    (re.compile(r"\\permil(?![A-Za-z])"), "‰"),
)
_CHAR_MAP = str.maketrans(
    {
        "\u00b5": "\u03bc",  # micro sign -> Greek mu
        "\u212b": "\u00c5",  # angstrom sign -> A with ring
        "\u2126": "\u03a9",  # ohm sign -> Greek omega
        "\u212a": "K",  # kelvin sign
        "º": "°",
        "˚": "°",
        "−": "-",
        "⋅": "·",
        "∙": "·",
        "•": "·",
        "$": None,
        "\u00a0": " ",
        "\u2009": " ",
        "\u202f": " ",
    }
)


_CHAR_MAP_RE = re.compile("[" + re.escape("".join(chr(k) for k in _CHAR_MAP)) + "]")


def clean_unit_text(text: str) -> str:
    """``text`` with the LaTeX and Unicode spellings of units rewritten (module docstring)."""
    if "\\" in text:
        text = _SI_RE.sub(r"\1 \2", text)
        for _ in range(2):
            text = _WRAPPER_RE.sub(r"\1", text)
        text = _DEGREE_RE.sub("°", text)
        text = _ANGSTROM_RE.sub("Å", text)
        for pattern, repl in _LATEX_SIMPLE:
            text = pattern.sub(repl, text)
        for _ in range(2):
            text = _FRAC_RE.sub(r"(\1)/(\2)", text)
    if "%" in text:
        text = _PERCENT_KIND_RE.sub(r"\1%", text)
    text = text.replace("A\u030a", "Å").replace("℃", "°C").replace("℉", "°F")
    return _CHAR_MAP_RE.sub(lambda m: _CHAR_MAP[ord(m.group())] or "", text)


# --------------------------------------------------------------------------- grammar

_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SUP_CHARS = frozenset("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺")
_SIGNS = "-+–"
_SPACE = " \t"
_LETTER_EXTRA = frozenset("μΩÅ°")
_MAX_ALTERNATIVES = 16
_LOOKAHEAD = 120  # characters a unit may span

# A term: alternative readings, each a list of (symbol, prefix, exponent) factors.
_Factors = tuple[tuple[str, str, Fraction], ...]


def _is_letter(ch: str) -> bool:
    return ch.isalpha() or ch in _LETTER_EXTRA


def _prefix_ok(prefix: str, sym: str) -> bool:
    info = _SYMBOLS[sym]
    if not prefix:
        return info.bare
    if info.prefixes is not None:
        return prefix in info.prefixes
    narrow = _NARROW_PREFIXES.get(prefix)
    return narrow is None or sym in narrow


@functools.lru_cache(maxsize=65536)
def _symbol_readings(word: str) -> tuple[_Factors, ...]:
    """Case-sensitive readings of a letter run as a (prefixed) symbol."""
    out: list[_Factors] = []
    if word in _SYMBOLS and _prefix_ok("", word):
        out.append(((word, "", Fraction(1)),))
    if word in _SYMBOL_ALIASES:
        sym, pfx, exp = _SYMBOL_ALIASES[word]
        out.append(((sym, pfx, Fraction(exp)),))
    if out:
        return tuple(out)
    for prefix in _PREFIXES:
        if word.startswith(prefix) and len(word) > len(prefix):
            rest = word[len(prefix) :]
            if rest in _SYMBOLS and _prefix_ok(prefix, rest):
                out.append(((_YEAR if rest == "a" else rest, prefix, Fraction(1)),))
    if word.startswith("u") and word[1:] in _U_MICRO:
        out.append(((word[1:], "μ", Fraction(1)),))
    return tuple(out)


@functools.lru_cache(maxsize=65536)
def _glued_readings(word: str) -> tuple[_Factors, ...]:
    """Two glued symbols, each optionally prefixed: kWh, Nm, mAh (mixed-case runs only)."""
    if word.isupper() or word.islower():
        return ()
    out: list[_Factors] = []
    for cut in range(1, len(word)):
        left = [r for r in _symbol_readings(word[:cut]) if r[0][0] in _GLUE_PIECES]
        right = [r for r in _symbol_readings(word[cut:]) if r[0][0] in _GLUE_PIECES]
        out.extend(a + b for a in left for b in right)
    return tuple(out)


@functools.lru_cache(maxsize=65536)
def _folded_readings(word: str) -> tuple[_Factors, ...]:
    """Case-insensitive readings of a letter run (for text whose case was forced)."""
    low = word.lower()
    out: list[_Factors] = []
    for sym in _FOLDED.get(low, ()):
        out.extend(_symbol_readings(sym))
    for prefix in _PREFIXES:
        p = prefix.lower()
        if low.startswith(p) and len(low) > len(p):
            for sym in _FOLDED.get(low[len(p) :], ()):
                if sym in _SYMBOLS and _prefix_ok(prefix, sym):
                    out.append(((sym, prefix, Fraction(1)),))
    return tuple(out)


def _singular(word: str) -> Iterable[str]:
    yield word
    if word.endswith("s"):
        yield word[:-1]
    if word.endswith("es"):
        yield word[:-2]
    if word.endswith("ies"):
        yield word[:-3] + "y"


@functools.lru_cache(maxsize=65536)
def _name_reading(word: str) -> tuple[str, str, int] | None:
    """A unit name, maybe plural, maybe with a prefix word: kilojoules, micrometre."""
    low = word.lower()
    for form in _singular(low):
        if form in _NAMES:
            return _NAMES[form]
    for pword, prefix in _PREFIX_WORDS.items():
        if low.startswith(pword) and len(low) > len(pword):
            for form in _singular(low[len(pword) :]):
                found = _NAMES.get(form)
                if found and not found[1] and _prefix_ok(prefix, found[0]):
                    return (found[0], prefix, found[2])
    return None


class _Reader:
    """Recursive-descent reader over ``s[i:end]`` (see the module docstring)."""

    def __init__(self, s: str, end: int, fold: bool = True) -> None:
        self.s = s
        self.end = end
        self.fold = fold

    # -- low level --------------------------------------------------------------------

    def _skip_space(self, i: int) -> int:
        while i < self.end and self.s[i] in _SPACE:
            i += 1
        return i

    def _word(self, i: int) -> tuple[str, int]:
        j = i
        while j < self.end and j - i < 24 and _is_letter(self.s[j]):
            j += 1
        return self.s[i:j], j

    def _int(self, i: int) -> tuple[int | None, int]:
        j = i
        while j < self.end and j - i < 3 and self.s[j].isdigit():
            j += 1
        return (int(self.s[i:j]), j) if j > i else (None, i)

    # -- exponents --------------------------------------------------------------------

    def _exponent(self, i: int, glued_ok: bool, after_space: bool) -> tuple[Fraction | None, int]:
        s, end = self.s, self.end
        j = self._skip_space(i)
        if j < end and (s[j] == "^" or s.startswith("**", j)):
            j += 1 if s[j] == "^" else 2
            j = self._skip_space(j)
            close = ""
            if j < end and s[j] in "{(":
                close = "}" if s[j] == "{" else ")"
                j = self._skip_space(j + 1)
            sign = 1
            if j < end and s[j] in _SIGNS:
                sign = -1 if s[j] != "+" else 1
                j = self._skip_space(j + 1)
            num, j = self._int(j)
            if num is None:
                return None, i
            value = Fraction(sign * num)
            if j + 1 < end and s[j] == "/" and s[j + 1].isdigit():
                den, j2 = self._int(j + 1)
                if den:
                    value, j = Fraction(sign * num, den), j2
            elif j + 1 < end and s[j] == "." and s[j + 1].isdigit():
                _, j2 = self._int(j + 1)
                value, j = sign * Fraction(f"{num}.{s[j + 1 : j2]}"), j2
            if close:
                j = self._skip_space(j)
                if j < end and s[j] == close:
                    j += 1
                else:
                    return None, i
            return value, j
        if i < end and s[i] in _SUP_CHARS:
            j = i
            while j < end and s[j] in _SUP_CHARS:
                j += 1
            text = s[i:j].translate(_SUPERSCRIPTS)
            if re.fullmatch(r"[-+]?[0-9]{1,2}", text):
                return Fraction(int(text)), j
            return None, i
        if glued_ok and i < end:
            j = i
            sign = 1
            if s[j] in _SIGNS:
                sign, j = -1 if s[j] != "+" else 1, j + 1
            nxt = s[j + 1 : j + 2]
            if j < end and s[j] in "1234" and not nxt.isalnum():
                if after_space and sign > 0:
                    return None, i
                if nxt in (".", ",") and s[j + 2 : j + 3].isdigit():
                    return None, i  # "m2.5", "s1,000": not an exponent
                return Fraction(sign * int(s[j])), j + 1
        return None, i

    # -- terms ------------------------------------------------------------------------

    def _atom(self, i: int) -> tuple[list[_Factors], int, bool] | None:
        """Readings of the unit atom at ``i``, where it ends, and whether it is a symbol
        (a glued exponent may follow a symbol, not a name)."""
        s, end = self.s, self.end
        if i >= end:
            return None
        ch = s[i]
        if ch == "%":
            return [(("%", "", Fraction(1)),)], i + 1, False
        if ch == "‰":
            return [(("‰", "", Fraction(1)),)], i + 1, False
        if ch == "°":
            j = i + 1
            k = j + 1 if j < end and s[j] == " " else j
            if k < end and s[k] in "CF" and not (k + 1 < end and _is_letter(s[k + 1])):
                return [((f"°{s[k]}", "", Fraction(1)),)], k + 1, False
            return [(("°", "", Fraction(1)),)], j, False
        if not _is_letter(ch):
            return None
        word, j = self._word(i)
        if j < end and s[j] == "%" and word in ("wt", "at", "vol", "mol"):
            return [((word + "%", "", Fraction(1)),)], j + 1, False
        if word in _NOT_UNITS:
            return None
        readings = list(_symbol_readings(word))
        is_symbol = bool(readings)
        low = word.lower()
        if low in ("degree", "degrees", "deg"):
            k = self._skip_space(j)
            nxt, k2 = self._word(k)
            temp = {"celsius": "°C", "centigrade": "°C", "c": "°C", "fahrenheit": "°F", "f": "°F"}
            if nxt.lower() in temp and (nxt.lower() not in "cf" or nxt.isupper()):
                return [((temp[nxt.lower()], "", Fraction(1)),)], k2, False
            if nxt.lower() == "kelvin":
                return [(("K", "", Fraction(1)),)], k2, False
            return [(("°", "", Fraction(1)),)], j, False
        if not readings:
            two = self._two_word_name(word, j)
            if two:
                return two
            name = _name_reading(word)
            if name:
                sym, pfx, exp = name
                return [((sym, pfx, Fraction(exp)),)], j, False
            readings = list(_glued_readings(word))
            is_symbol = bool(readings)
        if self.fold and len(word) >= 2 and (not readings or word.isupper()):
            extra = [r for r in _folded_readings(word) if r not in readings]
            readings = readings + extra
            is_symbol = is_symbol or bool(extra)
        if not readings:
            return None
        return readings[:_MAX_ALTERNATIVES], j, is_symbol

    def _two_word_name(self, word: str, j: int) -> tuple[list[_Factors], int, bool] | None:
        k = self._skip_space(j)
        if k == j or k >= self.end:
            return None
        nxt, k2 = self._word(k)
        if not nxt:
            return None
        first = word.lower()
        for second in _singular(nxt.lower()):
            key = f"{first} {second}"
            for prefix_word, prefix in [("", ""), *_PREFIX_WORDS.items()]:
                if prefix_word and not first.startswith(prefix_word):
                    continue
                base = key[len(prefix_word) :] if prefix_word else key
                if base in _NAMES:
                    sym, pfx, exp = _NAMES[base]
                    if prefix and (pfx or not _prefix_ok(prefix, sym)):
                        continue
                    return [((sym, prefix or pfx, Fraction(exp)),)], k2, False
        return None

    def term(self, i: int, depth: int, after_space: bool) -> tuple[list[_Factors], int] | None:
        s, end = self.s, self.end
        if i < end and s[i] == "(" and depth < 2 and not after_space:
            inner = self.unit(i + 1, depth + 1)
            if inner is None:
                return None
            readings, j = inner
            j = self._skip_space(j)
            if j >= end or s[j] != ")":
                return None
            exp, j2 = self._exponent(j + 1, False, False)
            if exp is not None:
                readings = [tuple((a, b, e * exp) for a, b, e in r) for r in readings]
                j = j2 - 1
            return readings, j + 1
        power = None
        word, j = self._word(i)
        low = word.lower()
        if low in ("square", "sq", "cubic", "cu") and j < end and s[j] in " .":
            k = self._skip_space(j + (1 if s[j] == "." else 0))
            if k > j or s[j] == ".":
                power, i = Fraction(3 if low.startswith("cu") else 2), k
        atom = self._atom(i)
        if atom is None:
            return None
        readings, j, is_symbol = atom
        exp, j2 = self._exponent(j, glued_ok=is_symbol, after_space=after_space)
        if exp is None:
            k = self._skip_space(j)
            nxt, k2 = self._word(k)
            if k > j and nxt.lower() in ("squared", "cubed"):
                exp, j2 = Fraction(2 if nxt.lower() == "squared" else 3), k2
        if after_space and exp is None and power is None:
            return None  # an implicit product needs an explicit exponent (or N m, kW h ...)
        if power is not None:
            exp = power * (exp or 1)
        if exp is not None:
            readings = [tuple((a, b, e * exp) for a, b, e in r) for r in readings]
            j = j2
        return readings, j

    def unit(self, i: int, depth: int = 0) -> tuple[list[_Factors], int] | None:
        """The longest unit starting exactly at ``i``: (readings, end) or None."""
        s, end = self.s, self.end
        first = self.term(i, depth, after_space=False)
        if first is None:
            return None
        readings, j = first
        readings = [self._scaled(r, 1) for r in readings]
        best = (readings, j)
        sign = 1
        while j < end:
            k = self._skip_space(j)
            spaced = k > j
            op = ""
            if k < end and s[k] == "/":
                op, k = "/", k + 1
            elif k < end and s[k] in "·*" and not s.startswith("**", k):
                op, k = "*", k + 1
            elif not spaced and k + 1 < end and s[k] == "." and s[k + 1].isalpha():
                op, k = "*", k + 1
            else:
                word, k2 = self._word(k)
                if word.lower() == "per" and k2 < end and s[k2] in _SPACE:
                    op, k = "/", k2
                elif spaced:
                    op = " "
                else:
                    break
            k = self._skip_space(k)
            # an implicit product needs an exponent, except inside a denominator (J/mol K)
            term = self.term(k, depth, after_space=op == " " and sign > 0 and depth == 0)
            if term is None and op == " ":
                term = self._space_product(best[0], k, depth) or self._bare_before_power(k, depth)
            if term is None:
                break
            if op == "/":
                sign = -1
            new, j = term
            combined = [a + self._scaled(b, sign) for a in best[0] for b in new]
            best = (combined[:_MAX_ALTERNATIVES], j)
        return best

    def _space_product(
        self, left: list[_Factors], k: int, depth: int
    ) -> tuple[list[_Factors], int] | None:
        """ "N m", "kW h", "Pa s": a bare m / s / h after N, W, A, V, Pa or J."""
        if not left or left[0][-1][0] not in _SPACE_PRODUCT[0]:
            return None
        term = self.term(k, depth, after_space=False)
        if term and all(r[-1][0] in _SPACE_PRODUCT[1] for r in term[0]):
            return term
        return None

    def _bare_before_power(self, k: int, depth: int) -> tuple[list[_Factors], int] | None:
        """ "kg m s^-2", "kg m/s": a bare symbol followed by "/" or by a term that carries an
        exponent."""
        term = self.term(k, depth, after_space=False)
        if term is None:
            return None
        j = self._skip_space(term[1])
        if j < self.end and self.s[j] in "/·*":
            return term
        if j > term[1] and self.term(j, depth, after_space=True) is not None:
            return term
        return None

    @staticmethod
    def _scaled(reading: _Factors, sign: int) -> _Factors:
        return tuple((a, b, e * sign) for a, b, e in reading)


def _units_of(readings: list[_Factors]) -> list[Unit]:
    out: list[Unit] = []
    for reading in readings:
        acc: dict[tuple[str, str], Fraction] = {}
        for sym, pfx, exp in reading:
            acc[(sym, pfx)] = acc.get((sym, pfx), Fraction(0)) + exp
        unit = _make(acc)
        if unit.factors and unit not in out:
            out.append(unit)
    return out


def read_unit(text: str, pos: int, fold: bool = True) -> tuple[list[Unit], int]:
    """The unit written at ``text[pos:]`` (already cleaned): its readings, best first (the
    case-sensitive one, then case-insensitive ones), and where it ends; ``([], pos)`` if
    none. A unit never runs past a newline or ``_LOOKAHEAD`` characters."""
    nl = text.find("\n", pos, pos + _LOOKAHEAD)
    end = min(len(text), pos + _LOOKAHEAD) if nl < 0 else nl
    found = _Reader(text, end, fold).unit(pos)
    if found is None:
        return [], pos
    readings, stop = found
    # trailing punctuation the reader may have consumed is never part of a unit
    return _units_of(readings), stop


def parse_unit(text: str) -> list[Unit]:
    """Readings of ``text`` when the whole of it (stripped, cleaned) is one unit, else []."""
    cleaned = clean_unit_text(text).strip().strip(".")
    invert = re.match(r"1[ \t]*/[ \t]*", cleaned)  # "1/s"
    if invert:
        cleaned = cleaned[invert.end() :]
    if not cleaned:
        return []
    units, stop = read_unit(cleaned, 0)
    if stop != len(cleaned):
        return []
    if invert:
        units = [Unit(tuple(sorted((s, p, -e) for s, p, e in u.factors))) for u in units]
    return units


# --------------------------------------------------------------------------- quantities


class Quantity(NamedTuple):
    """A number and the unit written after it (``units`` empty when there is none)."""

    number: str
    unit_text: str
    units: list[Unit]
    start: int


# A number: like ``text.find_numbers`` (sign, thousands separators, decimals, e-notation,
# "× 10^n"), but a single regex pass, so a response of a million numbers stays cheap. The
# regex starts with a digit (fast scanning); a sign before it is taken, and digits glued to
# a letter, "_", "^", "{" or "." before them are not numbers (H2O, x_1, m^2), checked after.
NUMBER_RE = re.compile(
    r"(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?"
    r"(?:[eE][-+−]?[0-9]+(?![A-Za-z])"
    r"|[ \t]*(?:×|\\times|\*|·|x|X)[ \t]*10"
    r"(?:[ \t]*\^[ \t]*\{?[ \t]*[-+−]?[0-9]+[ \t]*\}?|\*\*[ \t]*\(?[-+−]?[0-9]+\)?"
    r"|[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))?"
)
_GLUE_BEFORE = frozenset("._^{")
_SIGN_CHARS = frozenset("-+−")


def numbers(text: str) -> Iterator[tuple[str, int, int]]:
    """(number as written, start, end) for the numbers of ``text`` (see ``NUMBER_RE``)."""
    for m in NUMBER_RE.finditer(text):
        start, end = m.span()
        before = text[start - 1] if start else ""
        if before and (before.isalnum() or before in _GLUE_BEFORE):
            continue
        if before in _SIGN_CHARS:
            prev = text[start - 2] if start > 1 else ""
            if not (prev and (prev.isalnum() or prev in _GLUE_BEFORE)):
                start -= 1
        yield text[start:end], start, end


_WORD_AT_RE = re.compile(r"(?:[^\W\d_⁰¹²³⁴⁵⁶⁷⁸⁹]|°){1,24}")
# The characters a unit may be made of; a window of them after a number is what the
# reader sees (a space followed by a digit ends it: "2 m 3 s" is two quantities).
_WINDOW_RE = re.compile(r"[\w \t^{}()·*/.+\-–%‰°⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]*")
MAX_QUANTITIES = 5_000  # more numbers than this in scope: the text is not an answer
_WINDOW_CUT_RE = re.compile(r"[ \t]+[0-9]")
_FIRST_WORDS = frozenset(
    ["square", "sq", "cubic", "cu", "per", "degree", "degrees", "deg"]
    + [name.split()[0] for name in _NAMES if " " in name]
)


@functools.lru_cache(maxsize=65536)
def _may_start_unit(word: str) -> bool:
    """Whether a unit can begin with this letter run (a cheap filter before parsing)."""
    low = word.lower()
    if low in ("wt", "at", "vol"):  # wt% / at% / vol%: "at" is also a word, read on
        return True
    if word in _NOT_UNITS:
        return False
    if low in _FIRST_WORDS or low.startswith(tuple(_PREFIX_WORDS)):
        return True
    return bool(
        _symbol_readings(word)
        or _name_reading(word)
        or _glued_readings(word)
        or (len(word) >= 2 and _folded_readings(word))
    )


@functools.lru_cache(maxsize=65536)
def _read_window(window: str) -> tuple[tuple[Unit, ...], int]:
    found = _Reader(window, len(window)).unit(0)
    if found is None:
        return (), 0
    return tuple(_units_of(found[0])), found[1]


class TooManyNumbers(ValueError):
    """More than ``MAX_QUANTITIES`` numbers in the text to check."""


def quantities(text: str) -> list[Quantity]:
    """Every number of the cleaned ``text`` with the unit that follows it, if any. Raises
    ``TooManyNumbers`` past ``MAX_QUANTITIES`` numbers (bounded work on degenerate text)."""
    out: list[Quantity] = []
    consumed = 0  # end of the last unit read: "mol-1" holds no number
    n = len(text)
    for number, start, j in numbers(text):
        if len(out) >= MAX_QUANTITIES:
            raise TooManyNumbers(f"more than {MAX_QUANTITIES} numbers")
        if start < consumed:
            continue
        k = j
        while k < n and k - j < 3 and text[k] in " \t}":
            k += 1
        units: tuple[Unit, ...] = ()
        stop = k
        if k < n:
            ch = text[k]
            word = _WORD_AT_RE.match(text, k)
            if ch in "%‰(" or (word is not None and _may_start_unit(word.group())):
                window_match = _WINDOW_RE.match(text, k, min(n, k + _LOOKAHEAD))
                window = window_match.group() if window_match else ""
                cut = _WINDOW_CUT_RE.search(window)
                if cut:
                    window = window[: cut.start()]
                units, used = _read_window(window)
                if units:
                    stop = k + used
                    consumed = stop
        out.append(Quantity(number, text[k:stop].strip() if units else "", list(units), start))
    return out


_LABELLED_UNIT_RE = re.compile(r"[(\[]([^()\[\]\n]{1,30})[)\]]|\bunits?[ \t]*[:=][ \t]*")


def labelled_units(text: str) -> list[tuple[str, list[Unit]]]:
    """Units named without a number: "(m/s^2)", "[kJ/mol]", "unit: kJ/mol"."""
    out = []
    for m in _LABELLED_UNIT_RE.finditer(text):
        if m.group(1) is not None:
            units = parse_unit(m.group(1))
            if units:
                out.append((m.group(1).strip(), units))
        else:
            units, stop = read_unit(text, m.end())
            if units:
                out.append((text[m.end() : stop].strip(), units))
    return out


# --------------------------------------------------------------------------- requirement

_UNIT_CUE_RE = re.compile(
    r"\b(?:in|into)[ \t]+(?:(?:the[ \t]+)?units?[ \t]+of[ \t]+|terms[ \t]+of[ \t]+)?"
    r"|\bunits?\b[ \t]*(?:[:=]|of\b|is\b|should[ \t]+be\b|must[ \t]+be\b)?[ \t]*"
    r"|\bconvert\b[^.\n]{0,60}?\b(?:to|into)[ \t]+"
    r"|\bas[ \t]+(?:an?[ \t]+)?(?=percent)",
    re.I,
)
_ASK_RE = re.compile(
    r"\b(?:express\w*|give|giving|report\w*|state|answer\w*|result\w*|convert\w*|units?|"
    r"round\w*|record|write|provide|present|calculat\w*|comput\w*|determin\w*|find|estimat\w*|"
    r"predict\w*|measur\w*|value|what|how)\b",
    re.I,
)
_PARAM_LEAD_RE = re.compile(
    r"^(?:(?:the[ \t]+)?(?:required[ \t]+|target[ \t]+|final[ \t]+)?(?:answer[ \t]+)?units?"
    r"[ \t]*(?:[:=]|is|should[ \t]+be|must[ \t]+be|of)?"
    r"|(?:express(?:ed)?|give[n]?|report(?:ed)?)(?:[ \t]+(?:the|all|every|each)"
    r"(?:[ \t]+\w+)?)?[ \t]+in"
    r"|in)[ \t]+",
    re.I,
)
_SI_REQUIRED_RE = re.compile(r"\bSI\b(?:[ \t]+(?:base[ \t]+)?units?)?|\bSystème[ \t]+International")
_WHOLE_RE = re.compile(
    r"\b(?:all|every|each|throughout|entire|whole|consistent(?:ly)?|always)\b", re.I
)


# "a dimensionless ratio", "unitless", "no units": the answer is a pure number.
_DIMENSIONLESS_RE = re.compile(
    r"\b(?:dimensionless|unitless|unit-less|non-dimensional|pure[ \t]+number|"
    r"(?:has|have|with|carr(?:y|ies))[ \t]+no[ \t]+units?|without[ \t]+(?:any[ \t]+)?units?)\b",
    re.I,
)


@dataclass(frozen=True)
class Requirement:
    units: tuple[Unit, ...]  # required units (empty in SI and dimensionless modes)
    si: bool
    source: str  # "parameters" / "question"
    context: str  # the text that stated it (for the scope)
    dimensionless: bool = False  # a pure number, no physical unit

    def show(self) -> str:
        if self.dimensionless:
            return "no unit (dimensionless)"
        return "SI units" if self.si else " and ".join(render(u) for u in self.units)


def _dedupe(units: Iterable[Unit]) -> tuple[Unit, ...]:
    out: list[Unit] = []
    for u in units:
        if u not in out:
            out.append(u)
    return tuple(out)


def _units_in_parameters(params: str) -> list[Unit]:
    text = _PARAM_LEAD_RE.sub("", params.strip()).strip(" .;\"'`")
    whole = parse_unit(text)
    if whole:
        return [whole[0]]
    m = re.fullmatch(r"(.+?)[ \t]*\(([^()]+)\)", text)  # "grams (g)", "kJ/mol (kilojoules ...)"
    if m and len(m.group(1).split()) <= 4:  # a unit name, not a sentence ending in "(°C)"
        a, b = parse_unit(m.group(1)), parse_unit(m.group(2))
        if a or b:
            return [(b or a)[0]]
    parts = [p for p in re.split(r"[ \t]*(?:[,;]|\band\b)[ \t]*", text) if p.strip()]
    if len(parts) > 1:
        found = [parse_unit(p) for p in parts]
        # a piece that is no unit and reads as prose ("the coefficient is unity") is a
        # remark beside the units, not a unit
        if any(found) and all(f or len(p.split()) >= 3 for f, p in zip(found, parts, strict=True)):
            return [f[0] for f in found if f]
    return []


_MOLECULE_RE = re.compile(r"[A-Z][a-z]?[0-9]")
_LABEL_PAIR_RE = re.compile(r"(?<=\b[A-Z])(?:[ \t]*,[ \t]*|[ \t]+(?:and|or)[ \t]+)[A-Z]\b")


def _units_after_cues(text: str, ask: bool = True) -> tuple[list[Unit], list[str]]:
    """Units stated in instruction sentences of ``text`` (see the module docstring); with
    ``ask=False`` (parameters: every sentence states the requirement) in any sentence."""
    found: list[Unit] = []
    where: list[str] = []
    for sentence in sentences(text):
        if ask and not _ASK_RE.search(sentence):
            continue
        cleaned = clean_unit_text(sentence)
        hit = False
        for m in _UNIT_CUE_RE.finditer(cleaned):
            start = m.end()
            if start and cleaned[start - 1].isalnum() and cleaned[start : start + 1].isalnum():
                continue  # inside a word ("unity" is no "unit" + "y")
            units, stop = read_unit(cleaned, start, fold=False)
            if not units or (stop < len(cleaned) and cleaned[stop].isalnum()):
                continue
            written = cleaned[m.end() : stop].strip()
            if _MOLECULE_RE.fullmatch(written) or _LABEL_PAIR_RE.match(cleaned, stop):
                continue  # "in N2", "in A and B": a molecule or labels, not a unit
            unit = units[0]
            paren = re.match(r"[ \t]*\(([^()]{1,30})\)", cleaned[stop:])
            if paren:  # "in grams (g)": the symbol in brackets is the same unit or wins
                inner = parse_unit(paren.group(1))
                if inner:
                    unit = inner[0]
            found.append(unit)
            hit = True
        if hit:
            where.append(sentence)
    return found, where


def required_units(params: str, question: str) -> Requirement | None:
    """The required unit(s): the parameters when they state units, else the question."""
    q_units, q_where = _units_after_cues(question) if question else ([], [])
    if params:
        units = _units_in_parameters(params)
        if not units:
            units, _ = _units_after_cues(params, ask=False)
        if not units:  # "Primer length: 24 nucleotides (nt)": the units the values carry
            try:
                units = [q.units[0] for q in quantities(clean_unit_text(params)) if q.units]
            except TooManyNumbers:
                units = []
        if units:
            context = " ".join([params, *(s for s in q_where)])
            return Requirement(_dedupe(units), False, "parameters", context)
        if _SI_REQUIRED_RE.search(params):
            return Requirement((), True, "parameters", params)
        if _DIMENSIONLESS_RE.search(params):
            return Requirement((), False, "parameters", params, dimensionless=True)
    if q_units:
        return Requirement(_dedupe(q_units), False, "question", " ".join(q_where))
    si = [s for s in sentences(question or "") if _SI_REQUIRED_RE.search(s)]
    if si:
        return Requirement((), True, "question", " ".join(si))
    pure = [s for s in sentences(question or "") if _DIMENSIONLESS_RE.search(s)]
    if pure:
        return Requirement((), False, "question", " ".join(pure), dimensionless=True)
    return None


# --------------------------------------------------------------------------- checker


_DIGIT_RE = re.compile(r"[0-9]")


def answer_region(response: str) -> tuple[str, str] | None:
    """The final-answer text for unit checks and words for it (module docstring)."""
    span = final_answer(response)
    if span is not None:
        nl = response.find("\n", span.end)
        end = len(response) if nl < 0 else nl
        return response[span.start : end], f"the final answer ({span.source})"
    lines = non_empty_lines(response)
    for line in reversed(lines):
        if _DIGIT_RE.search(line.text):
            return line.text, "the last line with a number"
    if lines:
        return lines[-1].text, "the last line"
    return None


def _show_quantity(q: Quantity) -> str:
    return f"{q.number} {q.unit_text}".strip() if q.unit_text else q.number


def _check_units(inp: CheckInput) -> Verdict:
    params = clean_parameters(inp.parameters)
    req = required_units(params, inp.question or "")
    if req is None:
        shown = f"parameters {clip(params)!r}" if params else "parameters empty"
        return Verdict.unscored(f"required unit not found ({shown}; none stated in the question)")
    whole = bool(_WHOLE_RE.search(req.context))
    if whole:
        text, where = inp.response, "the response"
    else:
        region = answer_region(inp.response)
        if region is None:
            return Verdict.failed(f"empty response ({req.show()} required)")
        text, where = region
    try:
        found = quantities(clean_unit_text(text))
    except TooManyNumbers as exc:
        return Verdict.unscored(f"{exc} in {where}: not checked")
    with_unit = [q for q in found if q.units]
    if req.si:
        return _check_si(with_unit, where)
    if req.dimensionless:
        return _check_dimensionless(found, with_unit, where, req.source)
    if not whole and not with_unit:
        labels = labelled_units(clean_unit_text(text))
        for shown, units in labels:
            if any(u in req.units for u in units):
                return Verdict.passed(f"{where} names the unit {shown!r} = {req.show()}")
        if not found:
            return Verdict.failed(f"no number with a unit in {where}: {clip(text)!r}")
        return Verdict.failed(
            f"no unit after the numbers in {where} ({', '.join(q.number for q in found[:3])}); "
            f"{req.show()} required"
        )
    missing = [u for u in req.units if not any(u in q.units for q in with_unit)]
    if whole:
        dims = {dimension(u) for u in req.units}
        wrong = [
            q
            for q in with_unit
            if not any(u in req.units for u in q.units) and dimension(q.units[0]) in dims
        ]
        if wrong:
            return Verdict.failed(
                f"{len(wrong)} quantit{'y' if len(wrong) == 1 else 'ies'} in {where} of the "
                f"same kind not in {req.show()}: {', '.join(_show_quantity(q) for q in wrong[:3])}"
            )
    if missing:
        seen = ", ".join(_show_quantity(q) for q in with_unit[:3]) or "none"
        return Verdict.failed(
            f"{where} has no quantity in {' and '.join(render(u) for u in missing)} "
            f"(required, from the {req.source}); found: {seen}"
        )
    hits = [q for q in with_unit if any(u in req.units for u in q.units)]
    return Verdict.passed(
        f"{len(hits)} quantit{'y' if len(hits) == 1 else 'ies'} in {where} in {req.show()} "
        f"(from the {req.source}), e.g. {_show_quantity(hits[0])}"
    )


def _check_si(with_unit: list[Quantity], where: str) -> Verdict:
    if not with_unit:
        return Verdict.failed(f"no number with a unit in {where} (SI units required)")
    exempt = {"ratio", "count", "angle", "angle2"}  # dimensionless: %, cells, degrees
    bad = [
        q
        for q in with_unit
        if not is_si(q.units[0]) and not {b for b, _ in dimension(q.units[0])} <= exempt
    ]
    if bad:
        return Verdict.failed(
            f"non-SI unit in {where}: {', '.join(_show_quantity(q) for q in bad[:3])}"
        )
    return Verdict.passed(f"all {len(with_unit)} quantities in {where} are in SI units")


def _check_dimensionless(
    found: list[Quantity], with_unit: list[Quantity], where: str, source: str
) -> Verdict:
    """A pure number: no quantity in scope carries a unit of a physical dimension (a
    percentage or another ratio unit is still a pure number)."""
    if not found:
        return Verdict.failed(f"no number in {where} (a dimensionless value required)")
    physical = [q for q in with_unit if {b for b, _ in dimension(q.units[0])} - {"ratio"}]
    if physical:
        return Verdict.failed(
            f"dimensionless value required (from the {source}) but {where} has "
            f"{', '.join(_show_quantity(q) for q in physical[:3])}"
        )
    return Verdict.passed(
        f"dimensionless value (from the {source}) in {where}: {_show_quantity(found[-1])}"
    )


@register("chemistry_unit_consistency")
def chemistry_unit_consistency(inp: CheckInput) -> Verdict:
    return _check_units(inp)


@register("geography_unit_consistency")
def geography_unit_consistency(inp: CheckInput) -> Verdict:
    return _check_units(inp)


@register("biology_unit_consistency")
def biology_unit_consistency(inp: CheckInput) -> Verdict:
    return _check_units(inp)


@register("material_unit_consistency")
def material_unit_consistency(inp: CheckInput) -> Verdict:
    return _check_units(inp)


@register("physics_unit_consistency")
def physics_unit_consistency(inp: CheckInput) -> Verdict:
    return _check_units(inp)
