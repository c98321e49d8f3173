"""Units as values: the unit tables (``units.json``), the canonical form ``Unit``, and what
can be said of one (its dimension, SI or not, its family, whether two are the same unit).
Reading a unit out of text is ``unit_grammar.py``; numbers with their units are
``quantities.py``; the unit constraints are checked in ``unit_check.py``.

**Canonical form** (``Unit``): a sorted tuple of ``(symbol, prefix, exponent)``, exponents
summed per prefixed symbol. Two spellings are the same unit iff their canonical forms are
equal: ``m^2`` = ``m²`` = ``m**2`` = ``square metres`` = ``sq m`` = ``\\mathrm{m}^{2}``;
``kJ/mol`` = ``kJ mol^-1`` = ``kJ·mol⁻¹`` = ``kilojoules per mole``; ``°C`` = ``degC`` =
``degrees Celsius``. Different units stay different even for the same quantity (``km`` vs
``m``, ``kJ`` vs ``J``, ``L`` vs ``dm^3``, ``M`` vs ``mol/L``, ``K`` vs ``°C``); each symbol's
dimension (``dimension``) is known, which says which quantities in a response measure the
same thing as the required unit.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

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
SYMBOL_ALIASES: dict[str, tuple[str, str, int]] = {
    k: (s, p, int(e)) for k, (s, p, e) in _TABLES["symbol_aliases"].items()
}
_NAME_ALIASES: dict[str, tuple[str, str, int]] = {
    k: (s, p, int(e)) for k, (s, p, e) in _TABLES["name_aliases"].items()
}
PREFIXES: dict[str, int] = _TABLES["prefixes"]
PREFIX_WORDS: dict[str, str] = _TABLES["prefix_words"]
NARROW_PREFIXES: dict[str, frozenset[str]] = {
    k: frozenset(v) for k, v in _TABLES["narrow_prefixes"].items()
}
# SYMBOLS (symbol -> _Symbol), NAMES (unit name -> factor) and FOLDED (lower-cased symbol
# -> symbols) are built from these below.

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


SYMBOLS: dict[str, _Symbol] = {}
NAMES: dict[str, tuple[str, str, int]] = dict(_NAME_ALIASES)
for _sym, _dims, _pfx, _names, _si in _UNIT_TABLE:
    _allowed = None if _pfx == "*" else frozenset(p for p in _pfx.split() if p != "!")
    SYMBOLS[_sym] = _Symbol(_sym, _dim(_dims), _allowed, "!" not in _pfx, _si)
    for _name in _names.split():
        NAMES[_name] = (_sym, "", 1)
FOLDED: dict[str, list[str]] = {}
for _sym in [*SYMBOLS, *SYMBOL_ALIASES]:
    FOLDED.setdefault(_sym.lower(), []).append(_sym)


class Unit(NamedTuple):
    """A unit in canonical form: sorted ``(symbol, prefix, exponent)`` factors."""

    factors: tuple[tuple[str, str, Fraction], ...]

    def __str__(self) -> str:
        return render(self)


def make_unit(factors: dict[tuple[str, str], Fraction]) -> Unit:
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
        for base, k in SYMBOLS[sym].dimension:
            term = exp if k == 1 else k * exp  # (Fraction arithmetic is slow: only when needed)
            out[base] = out[base] + term if base in out else term
    return tuple(sorted((b, int(e) if e.denominator == 1 else e) for b, e in out.items() if e))


def is_si(unit: Unit) -> bool:
    """Every factor an SI base or derived unit (any prefix; °C allowed)."""
    return all(SYMBOLS[sym].si for sym, _, _ in unit.factors)


# Unit families a requirement may name instead of a unit ("imperial units suited to the
# United States"): the table's "families" rows; "metric" is every unit with no imperial
# factor.
FAMILIES: dict[str, frozenset[str]] = {k: frozenset(v) for k, v in _TABLES["families"].items()}


_SHARED_DIMS = frozenset({"T", "angle", "angle2", "ratio", "count", "level"})


def _own_factors(unit: Unit) -> list[str]:
    """The symbols of ``unit`` that a unit family decides (not time, angle, ratio, count)."""
    return [
        s for s, _, _ in unit.factors if not {b for b, _ in SYMBOLS[s].dimension} <= _SHARED_DIMS
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


_COUNT_SYMBOLS = frozenset(s for s, info in SYMBOLS.items() if info.dimension == (("count", 1),))


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
    (``atoms/cm^3`` is not ``defects/cm^3``) unless one is a kind of the other
    (``vacancies/cm^3`` is in ``defects/cm^3``, ``_KINDS``)."""
    if found == required:
        return True
    if not any(f[0] in _COUNT_SYMBOLS for f in (*found.factors, *required.factors)):
        return False  # (no hashing of the Fraction exponents: this runs per quantity)
    base_found, counted_found = _without_counts(found)
    base_required, counted_required = _without_counts(required)
    if base_found != base_required:
        return False
    if counted_found.factors and counted_required.factors:
        return _kind_of(counted_found, counted_required)
    return True


# Count nouns that are kinds of a wider one: vacancies and dislocations are defects,
# electrons and holes are carriers (a density "of vacancies" is one "of defects").
_KINDS = {
    "defects": frozenset({"vacancies", "dislocations"}),
    "carriers": frozenset({"electrons", "holes"}),
    "particles": frozenset({"atoms", "molecules", "ions", "electrons", "photons"}),
}


def _kind_of(found: Unit, required: Unit) -> bool:
    """Whether the counted noun of ``found`` is that of ``required`` or a kind of it."""
    if len(found.factors) != 1 or len(required.factors) != 1:
        return False
    (f_symbol, _, f_exp), (r_symbol, _, r_exp) = found.factors[0], required.factors[0]
    return f_exp == r_exp and f_symbol in _KINDS.get(r_symbol, frozenset())


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
