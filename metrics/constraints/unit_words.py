"""How one word of a unit reads (``unit_grammar.py`` is the grammar): a symbol with a
prefix ("kJ", "μm"), two glued symbols ("kWh"), a folded spelling, a name ("kilojoules",
"degrees Celsius"), each as alternative readings of (symbol, prefix, exponent) factors.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from fractions import Fraction

from sci_tasks.metrics.constraints.units import (
    FOLDED,
    NAMES,
    NARROW_PREFIXES,
    PREFIX_WORDS,
    PREFIXES,
    SYMBOL_ALIASES,
    SYMBOLS,
)

YEAR = "yr"  # ka, Ma, Ga (annum) are kyr, Myr, Gyr


U_MICRO = frozenset({"m", "g", "L", "M", "mol", "A", "V", "W", "F", "J", "N", "Pa"})


# Pieces two glued symbols may be made of ("kWh", "Nm", "mAh", "Pas").
GLUE_PIECES = frozenset({"W", "h", "A", "V", "N", "m", "s", "Pa", "J", "eV"})


LETTER_EXTRA = frozenset("μΩÅ°")


# A term: alternative readings, each a list of (symbol, prefix, exponent) factors.
Factors = tuple[tuple[str, str, Fraction], ...]


def is_letter(ch: str) -> bool:
    return ch.isalpha() or ch in LETTER_EXTRA


def prefix_ok(prefix: str, sym: str) -> bool:
    info = SYMBOLS[sym]
    if not prefix:
        return info.bare
    if info.prefixes is not None:
        return prefix in info.prefixes
    narrow = NARROW_PREFIXES.get(prefix)
    return narrow is None or sym in narrow


@functools.lru_cache(maxsize=65536)
def symbol_readings(word: str) -> tuple[Factors, ...]:
    """Case-sensitive readings of a letter run as a (prefixed) symbol."""
    out: list[Factors] = []
    if word in SYMBOLS and prefix_ok("", word):
        out.append(((word, "", Fraction(1)),))
    if word in SYMBOL_ALIASES:
        sym, pfx, exp = SYMBOL_ALIASES[word]
        out.append(((sym, pfx, Fraction(exp)),))
    if out:
        return tuple(out)
    for prefix in PREFIXES:
        if word.startswith(prefix) and len(word) > len(prefix):
            rest = word[len(prefix) :]
            if rest in SYMBOLS and prefix_ok(prefix, rest):
                out.append(((YEAR if rest == "a" else rest, prefix, Fraction(1)),))
    if word.startswith("u") and word[1:] in U_MICRO:
        out.append(((word[1:], "μ", Fraction(1)),))
    return tuple(out)


@functools.lru_cache(maxsize=65536)
def glued_readings(word: str) -> tuple[Factors, ...]:
    """Two glued symbols, each optionally prefixed: kWh, Nm, mAh (mixed-case runs only)."""
    if word.isupper() or word.islower():
        return ()
    out: list[Factors] = []
    for cut in range(1, len(word)):
        left = [r for r in symbol_readings(word[:cut]) if r[0][0] in GLUE_PIECES]
        right = [r for r in symbol_readings(word[cut:]) if r[0][0] in GLUE_PIECES]
        out.extend(a + b for a in left for b in right)
    return tuple(out)


@functools.lru_cache(maxsize=65536)
def folded_readings(word: str) -> tuple[Factors, ...]:
    """Case-insensitive readings of a letter run (for text whose case was forced)."""
    low = word.lower()
    out: list[Factors] = []
    for sym in FOLDED.get(low, ()):
        out.extend(symbol_readings(sym))
    for prefix in PREFIXES:
        p = prefix.lower()
        if low.startswith(p) and len(low) > len(p):
            for sym in FOLDED.get(low[len(p) :], ()):
                if sym in SYMBOLS and prefix_ok(prefix, sym):
                    out.append(((sym, prefix, Fraction(1)),))
    return tuple(out)


def singular(word: str) -> Iterable[str]:
    yield word
    if word.endswith("s"):
        yield word[:-1]
    if word.endswith("es"):
        yield word[:-2]
    if word.endswith("ies"):
        yield word[:-3] + "y"


@functools.lru_cache(maxsize=65536)
def name_reading(word: str) -> tuple[str, str, int] | None:
    """A unit name, maybe plural, maybe with a prefix word: kilojoules, micrometre."""
    low = word.lower()
    for form in singular(low):
        if form in NAMES:
            return NAMES[form]
    for pword, prefix in PREFIX_WORDS.items():
        if low.startswith(pword) and len(low) > len(pword):
            for form in singular(low[len(pword) :]):
                found = NAMES.get(form)
                if found and not found[1] and prefix_ok(prefix, found[0]):
                    return (found[0], prefix, found[2])
    return None


NOT_UNITS = frozenset({"in", "a", "as", "at", "am", "an", "is", "it", "on", "or", "of", "to"})


_FIRST_WORDS = frozenset(
    ["square", "sq", "cubic", "cu", "per", "degree", "degrees", "deg"]
    + [name.split()[0] for name in NAMES if " " in name]
)


@functools.lru_cache(maxsize=65536)
def may_start_unit(word: str) -> bool:
    """Whether a unit can begin with this letter run (a cheap filter before parsing)."""
    low = word.lower()
    if low in ("wt", "at", "vol"):  # wt% / at% / vol%: "at" is also a word, read on
        return True
    if word in NOT_UNITS:
        return False
    if low in _FIRST_WORDS or low.startswith(tuple(PREFIX_WORDS)):
        return True
    return bool(
        symbol_readings(word)
        or name_reading(word)
        or glued_readings(word)
        or (len(word) >= 2 and folded_readings(word))
    )
