"""Quantities: the numbers of a text, each with the unit written after it (read by
``unit_grammar.py``), and units named without a number.

A quantity is a number (``number_grammar.NUMBER_RE``) followed by a unit (``per X`` / ``/X``
after a number is the reciprocal of X); a unit written without a number is no quantity.
More than ``MAX_QUANTITIES`` numbers in a text (degenerate text) raise ``TooManyNumbers``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from sci_tasks.metrics.constraints.number_grammar import NUMBER_RE, number_parts
from sci_tasks.metrics.constraints.unit_grammar import (
    LOOKAHEAD,
    parse_unit,
    read_unit,
    read_window,
)
from sci_tasks.metrics.constraints.unit_words import may_start_unit
from sci_tasks.metrics.constraints.units import Unit


class Quantity(NamedTuple):
    """A number and the unit written after it (``units`` empty when there is none)."""

    number: str
    unit_text: str
    units: list[Unit]
    start: int


# A number: like ``number_grammar.find_numbers`` (sign, thousands separators, decimals, e-notation,
# "× 10^n"), but a single regex pass, so a response of a million numbers stays cheap. A sign
# before it is taken, and digits glued to a letter, "_", "^", "{" or "." before them are not
# numbers (H2O, x_1, m^2), checked after.
_GLUE_BEFORE = frozenset("._^{")
_SIGN_CHARS = frozenset("-+−")


def numbers(text: str) -> Iterator[tuple[str, int, int]]:
    """(number as written, start, end) for the numbers of ``text``: the mantissa and
    exponent of ``number_grammar.NUMBER_RE`` (the one number grammar), with a sign only when nothing
    is glued before it."""
    for m in NUMBER_RE.finditer(text):
        start, end = number_parts(m)[0], m.end()
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
            if ch in "%‰(/" or (word is not None and may_start_unit(word.group())):
                window_match = _WINDOW_RE.match(text, k, min(n, k + LOOKAHEAD))
                window = window_match.group() if window_match else ""
                cut = _WINDOW_CUT_RE.search(window)
                if cut:
                    window = window[: cut.start()]
                units, used = read_window(window)
                if units:
                    stop = k + used
                    consumed = stop
        out.append(Quantity(number, text[k:stop].strip() if units else "", list(units), start))
    return out


_LABELLED_UNIT_RE = re.compile(
    r"[(\[]([^()\[\]\n]{1,30})[)\]]|\bunits?[\"']?[ \t]*[:=][ \t]*[\"']?"
)


def labelled_units(text: str) -> list[tuple[str, list[Unit]]]:
    """Units named without a number: "(m/s^2)", "[kJ/mol]", "unit: kJ/mol", and the unit
    field of structured answers (``unit="MPa"``, ``"unit": "MPa"``)."""
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
