"""Units: a small grammar that reads a unit however it is written, (the unit
constraints are checked in ``unit_check.py``).

**Cleaning** (``clean_unit_text``, before any parsing): LaTeX wrappers are unwrapped
(``\\mathrm{m}``, ``\\text{ kJ}``, ``\\rm``, ``\\operatorname``, ``\\mbox``, ``\\SI{3}{km}``);
``\\frac{a}{b}`` becomes ``(a)/(b)``; ``^{\\circ}`` / ``\\circ`` / ``\\degree`` / ``º`` / ``˚``
become ``°``; ``\\AA`` / ``\\mathring{A}`` / U+212B become ``Å``; ``\\mu`` / ``µ`` become ``μ``;
``\\Omega`` / U+2126 become ``Ω``; ``\\cdot`` / ``⋅`` / ``∙`` / ``•`` become ``·``; ``℃`` / ``℉``
become ``°C`` / ``°F``; ``\\%`` becomes ``%``; LaTeX spaces (``\\,`` ``\\;`` ``~``) become
spaces; ``−`` becomes ``-``; ``$`` is dropped and the math delimiters ``\\( \\) \\[ \\]``
become spaces. LaTeX escaped inside a JSON string
(``\\\\mathrm{m}``, ``\\\\frac``) is read back first (``text.read_latex``).

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
prefix, °C allowed; dimensionless and angle units exempt). A unit family ("imperial units
suited to the United States", "US customary", "metric units") -> some quantity in scope is
in the family and every quantity of a kind the family decides is (``in_family``; a
bracketed conversion beside it aside). Nothing found -> unscored.
Scope: the whole response when the parameters or the unit sentence say all / every / each /
throughout / entire / whole / consistent; otherwise the final answer: the last ``\\boxed{}`` or
the answer after the last answer marker (with the rest of its line, so ``\\boxed{2.09} Å``
counts), else the last non-empty line that holds a number.
A quantity is a number (``text.find_numbers``) followed by a unit (``per X`` / ``/X``
after a number is the reciprocal of X); a unit written without a number is no quantity.
A quantity carries a required unit when the units are the same (``same_unit``: a count per
amount may leave out what it counts, "defects per cubic centimetre" = ``cm^-3``). Final-answer
scope: pass iff, for each required unit, some quantity carries it (if numbers in scope have
no unit, a bracketed unit "(m/s^2)" / "[kJ/mol]" or "unit: X" beside them counts; with no
number in scope: fail). Whole scope:
pass iff each required unit is carried by some quantity and every quantity whose dimension
equals a required unit's dimension carries a required unit. More than ``MAX_QUANTITIES``
numbers in scope (degenerate text): unscored.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

from sci_tasks.metrics.constraints.text import NUMBER_RE, read_latex

# --------------------------------------------------------------------------- tables

# The unit tables are the data file units.json beside this module: "units" rows are
# (symbol, dimension, prefixes, names, SI); prefixes "*" any, "" none, else the allowed
# prefix symbols ("!" = the bare symbol is not a unit, only prefixed: ka, Ma, Ga).
# Dimensions: L M T I Θ N Iv (luminous) and pseudo-dimensions for dimensionless kinds.
# "symbol_aliases" / "name_aliases": other spellings -> (symbol, prefix, exponent);
# "narrow_prefixes": prefixes that only some units take.
UNITS_FILE = Path(__file__).with_name("units.json")
_TABLES = json.loads(UNITS_FILE.read_text(encoding="utf-8"))
_UNIT_TABLE: tuple[tuple[str, str, str, str, bool], ...] = tuple(
    (s, d, p, n, bool(si)) for s, d, p, n, si in _TABLES["units"]
)
_SYMBOL_ALIASES: dict[str, tuple[str, str, int]] = {
    k: (s, p, int(e)) for k, (s, p, e) in _TABLES["symbol_aliases"].items()
}
_NAME_ALIASES: dict[str, tuple[str, str, int]] = {
    k: (s, p, int(e)) for k, (s, p, e) in _TABLES["name_aliases"].items()
}
_PREFIXES: dict[str, int] = _TABLES["prefixes"]
_PREFIX_WORDS: dict[str, str] = _TABLES["prefix_words"]
_NARROW_PREFIXES: dict[str, frozenset[str]] = {
    k: frozenset(v) for k, v in _TABLES["narrow_prefixes"].items()
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


# Unit families a requirement may name instead of a unit ("imperial units suited to the
# United States"): the table's "families" rows; "metric" is every unit with no imperial
# factor.
FAMILIES: dict[str, frozenset[str]] = {k: frozenset(v) for k, v in _TABLES["families"].items()}


_SHARED_DIMS = frozenset({"T", "angle", "angle2", "ratio", "count", "level"})


def _own_factors(unit: Unit) -> list[str]:
    """The symbols of ``unit`` that a unit family decides (not time, angle, ratio, count)."""
    return [
        s for s, _, _ in unit.factors if not {b for b, _ in _SYMBOLS[s].dimension} <= _SHARED_DIMS
    ]


def family_dimension(unit: Unit) -> bool:
    """Whether the unit measures something a unit family decides (length, mass,
    temperature, volume, speed, pressure, energy, ...), not a time, angle, ratio or count."""
    return bool(_own_factors(unit))


def in_family(unit: Unit, family: str) -> bool:
    """``imperial``: every factor a family decides is imperial (mi, ft, lb, °F, mph, ...);
    ``metric``: none is. Time, angle, ratio and count factors belong to both (``mi/h`` is
    imperial, ``km/h`` metric)."""
    own = _own_factors(unit)
    imperial = FAMILIES["imperial"]
    if family == "metric":
        return bool(own) and not any(sym in imperial for sym in own)
    return bool(own) and all(sym in imperial for sym in own)


_COUNT_SYMBOLS = frozenset(s for s, info in _SYMBOLS.items() if info.dimension == (("count", 1),))


def _without_counts(unit: Unit) -> tuple[Unit, Unit]:
    """(the unit without its count factors, the count factors); a unit that is only a
    count (nt, bp, cells) keeps them."""
    counts = [f for f in unit.factors if f[0] in _COUNT_SYMBOLS]
    rest = [f for f in unit.factors if f not in counts]
    if not counts or not rest:
        return unit, Unit(())
    return Unit(tuple(rest)), Unit(tuple(counts))


def without_counts(unit: Unit) -> Unit:
    """The unit without what it counts: ``defects/cm^3`` -> ``cm^-3`` (``nt`` stays)."""
    return _without_counts(unit)[0]


def same_unit(found: Unit, required: Unit) -> bool:
    """Whether ``found`` is ``required`` as a unit. Canonical forms must be equal, except
    that a count per amount names what is counted or not: "defects per cubic centimetre" =
    ``defects/cm^3`` = ``cm^-3``; two different count nouns are different units
    (``atoms/cm^3`` is not ``defects/cm^3``)."""
    if found == required:
        return True
    if not any(f[0] in _COUNT_SYMBOLS for f in (*found.factors, *required.factors)):
        return False  # (no hashing of the Fraction exponents: this runs per quantity)
    base_found, counted_found = _without_counts(found)
    base_required, counted_required = _without_counts(required)
    if base_found != base_required:
        return False
    return not (counted_found.factors and counted_required.factors)


def carries(units: Iterable[Unit], required: Iterable[Unit]) -> bool:
    """Whether any reading in ``units`` is any unit of ``required`` (``same_unit``)."""
    wanted, found = tuple(required), tuple(units)
    for u in found:
        if u in wanted:  # equal canonical forms: the common case
            return True
    symbols = {f[0] for u in (*found, *wanted) for f in u.factors}
    if symbols.isdisjoint(_COUNT_SYMBOLS):  # no count per amount on either side
        return False
    return any(same_unit(u, r) for u in found for r in wanted)


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
    (re.compile(r"\\[()\[\]]"), " "),  # math delimiters \( \) \[ \], like $
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
    """``text`` with the LaTeX and Unicode spellings of units rewritten (module docstring),
    LaTeX escaped inside JSON strings first read back (``text.read_latex``)."""
    if "\\" in text:
        text = read_latex(text, keep_length=False)
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
_GLUE_BEFORE = frozenset("._^{")
_SIGN_CHARS = frozenset("-+−")


def numbers(text: str) -> Iterator[tuple[str, int, int]]:
    """(number as written, start, end) for the numbers of ``text``: the mantissa and
    exponent of ``text.NUMBER_RE`` (the one number grammar), with a sign only when nothing
    is glued before it."""
    for m in NUMBER_RE.finditer(text):
        start, end = m.start("mant"), m.end()
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


# "per cm^3", "/mL" after a number; not one bare letter ("100 / t" is a formula, not 1/tonne)
_PER_START_RE = re.compile(r"(?:per[ \t]+|/[ \t]*)(?=(?:[^\W\d_]|°)(?:[^\W_]|\^)|\()")


@functools.lru_cache(maxsize=65536)
def _read_window(window: str) -> tuple[tuple[Unit, ...], int]:
    reader = _Reader(window, len(window))
    found = reader.unit(0)
    if found is not None:
        return tuple(_units_of(found[0])), found[1]
    per = _PER_START_RE.match(window)  # "3e15 per cm^3", "5 /mL": a reciprocal unit
    found = reader.unit(per.end()) if per else None
    if found is None:
        return (), 0
    units = _units_of(found[0])
    return tuple(Unit(tuple(sorted((s, p, -e) for s, p, e in u.factors))) for u in units), found[1]


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
            if ch in "%‰(/" or (word is not None and _may_start_unit(word.group())):
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
