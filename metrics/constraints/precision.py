"""Checkers of the precision and notation constraints of the SciMIF catalogue
(``general_decimal_annotation``, ``general_scientific_annotation``); the other general
constraints are ``general.py``'s, whose docstring defines the common terms.

Scope: the final answer unless the parameters or the question say every / all numbers,
values, results, the entire / whole response, throughout or intermediate steps (issue 19:
they concern the quantity asked for, not every number of the working; ``text.requirement_scope``).
In scope or not, some numbers are never covered (docs/labelling.md rule 3: ``_never_in_scope``).

* decimal_annotation: required places from "N decimal places" / "one decimal place" /
  "nearest tenth" / "nearest integer" (0) / a bare count; two different counts stated ->
  unscored. Pass iff every number in scope (``number_grammar.find_numbers``) has exactly N digits
  after the decimal point (mantissa digits for scientific notation); no number -> fail.
* scientific_annotation: pass iff every number in scope is written as mantissa times a
  power of ten (``1.23e-4``, ``1.23 × 10^-4``, ``1.23 \\times 10^{-4}``, ``1.23*10^5``,
  ``10^{-4}``) with 1 <= |mantissa| < 10 (or 0); no number -> fail.
"""

from __future__ import annotations

import re

from sci_tasks.metrics.constraints.answers import (
    final_answer,
    scoped_text,
)
from sci_tasks.metrics.constraints.base import (
    CheckInput,
    input_scope,
    register,
)
from sci_tasks.metrics.constraints.number_grammar import (
    Number,
    find_numbers,
    number_value,
    parse_decimal_places,
)
from sci_tasks.metrics.constraints.text import (
    LATEX_COMMAND_RE,
    NUMBER_WORD,
    XML_PROLOG_RE,
    clean_parameters,
    parse_int,
    phrases,
    plural,
    sentences_matching,
    show_items,
    words_re,
)
from sci_tasks.metrics.constraints.unit_grammar import parse_unit
from sci_tasks.metrics.verdict import Verdict

# Numbers a precision or notation rule never covers (issue 28; docs/labelling.md rule 3):
# the base of a power (2^{-ΔΔCt}, 2^9), a coefficient glued to a symbol (2d sin θ, 4π r,
# 2\sin), a fraction of small integers inside a formula (1/2, \frac{1}{2}), a year
# ("Monteith (1965)", "in 2019"), and a count ("3 steps", "6 carbon atoms").
_POWER_BASE_RE = re.compile(r"[ \t]*(?:\^|[⁰¹²³⁴⁵⁶⁷⁸⁹⁻])")
_RECIPROCAL_RE = re.compile(r"[ \t]*(?:\}[ \t]*\{|/)")  # 1 over something
_BOUND_BEFORE_RE = re.compile(r"(?:[≤≥<>]|\\le(?:q)?|\\ge(?:q)?|\\leqslant|\\geqslant)[ \t]*\Z")
_SPLIT_POWER_RE = re.compile(r"\}[ \t]*\^")  # "\text{(in the 10}^{-6}\text{ dilution)}"
_GLUED_SYMBOL_RE = re.compile(r"(?:\\(?!times|cdot|quad|text|mathrm)[A-Za-z]|[A-Za-zα-ωΑ-Ω])")
_SMALL_FRACTION_RE = re.compile(
    r"\\[dt]?frac\{[1-9]\}\{[1-9][0-9]?\}|(?<![0-9.])[1-9][ \t]*/[ \t]*[1-9][0-9]?(?![0-9.])"
)
_UNIT_AFTER_RE = re.compile(r"[ \t]*(?:\\[ ,;]|~)?[ \t]*(?:[A-Za-zµμ°%Ω]|\\(?:text|mathrm|mu))")
_SYMBOL_OVER_RE = re.compile(r"(?:[A-Za-zα-ωΑ-Ω₀-₉²³]|[)\]}])[ \t]*/[ \t]*\Z")
_YEAR_CONTEXT_RE = re.compile(r"(?:\(|\bin[ \t]|\bsince[ \t]|\bal\.?,?[ \t]|[A-Z][a-z]+,?[ \t])$")
_POWER_OF_TEN_RE = re.compile(r"10+")
_TIMES_BEFORE_RE = re.compile(r"(?:[×*/÷·]|\\times|\\cdot|\\div)[ \t{]*$")
_TIMES_AFTER_RE = re.compile(r"[ \t}]*(?:[×*/÷·]|\\times|\\cdot|\\div)")


_COUNTED_THINGS = phrases(
    "steps?",
    "stages?",
    "times",
    "significant figures",
    r"sig\.? figs",
    "decimal places?",
    r"(?:carbon|hydrogen|oxygen|nitrogen|heavy)?[\x20\t]*atoms?",  # phrases() reads " " as [ \t]+
    *"bonds? carbons hydrogens electrons peaks terms types options categories reasons".split(),
    *"mechanisms factors points items samples replicates trials groups rings regions".split(),
    "classes",
    "parts",
)
_COUNT_QUALIFIERS = phrases("distinct ", "different ", "main ", "key ", "separate ")
_COUNT_WORDS_RE = re.compile(rf"[ \t]+(?:{_COUNT_QUALIFIERS})?(?:{_COUNTED_THINGS})\b", re.I)
_PLURAL_NOUN_RE = re.compile(r"[ \t]+([a-z]{3,}s)\b(?![ \t]*(?:per|/)\b)")


# a unit identity, "1 N/mm² = 1 MPa", "1 km = 1000 m": both integers exact by definition
_UNIT_IDENTITY_RE = re.compile(
    r"(?<![\w.])1[ \t]*(?:\\[ ,;]|~)?[ \t]*(?:\\(?:text|mathrm)\{)?[A-Za-zµμ°Ω][^\s=]{0,12}"
    r"[ \t]*=[ \t]*[0-9]+[ \t]*(?:\\[ ,;]|~)?[ \t]*(?:\\(?:text|mathrm)\{)?[A-Za-zµμ°Ω]"
)


def _formula_denominator(text: str, x: Number) -> bool:
    """``x`` is the denominator of a ``\\frac`` whose numerator is a formula with symbols,
    ``\\frac{\\pi (10.0\\ \\text{mm})^2}{4}``: the formula's constant, not a value."""
    if len(x.mantissa) > 2 or text[x.end : x.end + 1] != "}":
        return False
    before = text[max(0, x.start - 200) : x.start].rstrip()
    if not before.endswith("}{"):
        return False
    depth, i = 0, len(before) - 2
    while i >= 0:  # back to the brace that opens the numerator
        depth += {"}": 1, "{": -1}.get(before[i], 0)
        if depth == 0:
            break
        i -= 1
    numerator = LATEX_COMMAND_RE.sub(" ", before[i:-1]).replace("\\text", "")
    return before[:i].endswith("frac") and bool(re.search(r"[A-Za-zα-ωπ]", numerator))


# a coefficient: "2(380.00)", "2 (3.10 \times 10^{1})" (one digit), "2 \times n", "2\,HCl",
# "2 H2O" (a chemical formula: two capitals or a capital and a digit, and no unit), a ratio
# "1:2", "p^2 + 2pq + q^2 = 1" (a side of an identity)
_COEFFICIENT_RE = re.compile(
    r"\(|(?<=[^0-9.][0-9])[ \t]+\((?=[ \t]*[0-9.\\])"
    r"|[ \t]*(?:\\times|\\cdot|[×·*])[ \t]*[A-Za-zα-ωΑ-Ω(]"
    r"|(?:\\[,;: ]|~|[ \t])*(?P<formula>[A-Z][A-Za-z0-9]*)"
)
_RATIO_RE = re.compile(r"(?<![0-9.])[0-9]{1,2}[ \t]*:[ \t]*[0-9]{1,2}(?![0-9.])")
_IDENTITY_SIDE_RE = re.compile(r"[A-Za-z][^=\n]{0,60}=[ \t]*$")


# a one-digit multiplier of a number, "(4 × 35000.0 N)": a formula's constant substituted
_DIGIT_TIMES_NUMBER_RE = re.compile(r"[ \t]*(?:\\times|\\cdot|[×·*])[ \t]*[0-9]")


def _coefficient(text: str, x: Number) -> bool:
    if len(x.text) == 1 and _DIGIT_TIMES_NUMBER_RE.match(text, x.end):
        return True
    for r in _RATIO_RE.finditer(text, max(0, x.start - 6), x.end + 6):
        if r.start() <= x.start < r.end():  # a stoichiometric or mixing ratio, 1:2
            return True
    m = _COEFFICIENT_RE.match(text, x.end)
    if m and m.group("formula") is None:
        return True
    if m and (
        sum(c.isupper() for c in m["formula"]) >= 2 or re.search(r"[A-Z][a-z]?\d", m["formula"])
    ):
        return not parse_unit(m["formula"])
    if len(x.text) > 1:  # an identity's constant is one digit ("= 1"); "= 750" is a value
        return False
    # LaTeX command names (\times, \frac) are no letters of a side
    before = LATEX_COMMAND_RE.sub(" ", text[max(0, x.start - 60) : x.start])
    side = _IDENTITY_SIDE_RE.search(before)
    if side is None or re.search(r"[0-9]\.[0-9]", side.group()):
        return False
    return not text[x.end : x.end + 1].isalpha()  # "= 1x" is a product, not a constant


def _never_in_scope(text: str, x: Number) -> bool:
    if x.scientific or x.decimals:
        return False
    if _POWER_BASE_RE.match(text, x.end) and x.mantissa != "10":
        return True
    if x.mantissa == "1" and (
        _RECIPROCAL_RE.match(text, x.end)
        or _BOUND_BEFORE_RE.search(text[max(0, x.start - 12) : x.start])
    ):
        return True  # "\frac{1}{\sigma}", "1 / (2.24 × 10² S/m)", "sin θ ≤ 1": exact constants
    if x.mantissa == "10" and _SPLIT_POWER_RE.match(text, x.end):
        return True  # a power of ten whose exponent a closing \text brace parts from it
    if _GLUED_SYMBOL_RE.match(text, x.end) or _coefficient(text, x):
        return True
    if _formula_denominator(text, x):
        return True
    for m in _UNIT_IDENTITY_RE.finditer(text, max(0, x.start - 30), x.end + 30):
        if m.start() <= x.start < m.end():
            return True
    if (
        len(x.mantissa) <= 2
        and _SYMBOL_OVER_RE.search(text[max(0, x.start - 8) : x.start])
        and not _UNIT_AFTER_RE.match(text, x.end)  # "10 m / 5 s": a measured 5
    ):
        return True  # "π d₀² / 4", "(10.0 mm)² / 4": a formula's constant denominator
    window = text[max(0, x.start - 10) : x.end + 6]
    for m in _SMALL_FRACTION_RE.finditer(window):
        if m.start() <= x.start - max(0, x.start - 10) < m.end():
            return True
    if len(x.mantissa) == 4 and 1500 <= int(x.mantissa) <= 2099:
        before = text[max(0, x.start - 20) : x.start]
        if _YEAR_CONTEXT_RE.search(before) or text[x.end : x.end + 1] == ")":
            return True
    if _POWER_OF_TEN_RE.fullmatch(x.mantissa) and (
        _TIMES_BEFORE_RE.search(text[max(0, x.start - 12) : x.start])
        or _TIMES_AFTER_RE.match(text, x.end)
    ):
        return True  # "× 100" to a percentage, "/ 1000" to kilometres: an exact factor
    if _COUNT_WORDS_RE.match(text, x.end):
        return True
    # "a deviation of 10 plants", "400 cells": a whole number of things (a plural noun
    # that is no unit) is a count
    noun = _PLURAL_NOUN_RE.match(text, x.end)
    return bool(noun and "." not in x.text and not parse_unit(noun[1]))


def _written(x: Number) -> str:
    """A number as written, spacing, LaTeX's thousands separator and a plus sign aside
    ("+23.44°" in the question is the reply's "23.44°")."""
    return x.text.replace(" ", "").replace("{,}", ",").lstrip("+")


# A bracketed aside in the final answer that gives another quantity ("7.67 m/s (g = 9.8
# m/s^2)", "(using g = 9.8)") is data the answer rests on, not the answer.
_GIVEN_ASIDE_RE = re.compile(
    r"\((?:[^()\n]{0,40}?\b(?:using|with|taking|assuming|given|where)\b"
    r"|[ \t]*[A-Za-z\\][\w\\{}^]{0,12}[ \t]*=)[^()\n]{0,80}\)"
)
# "refining the grains by a factor of 25": a multiplier in a remark, not a reported value
# (unless a factor is what the question asks for)
_FACTOR_BEFORE_RE = re.compile(
    r"\bfactor[ \t]+of[ \t]+(?:about[ \t]+|roughly[ \t]+|~[ \t]*)?$", re.I
)
_ASKS_FACTOR_RE = words_re("factor", "fold", "ratio", "how many times")


def _answer_numbers(text: str, scope: str, question: str = "") -> list[Number]:
    """The numbers of ``text`` a precision rule applies to: never exponents, power bases,
    formula constants, years or counts (``_never_in_scope``); in the whole response, not the
    question's data restated ("k = 0.158" when the question gives 0.158); in the final
    answer, those of a given-quantity aside are left out when a number stays outside it."""
    found = find_numbers(text)
    if "<?" in text:  # an XML declaration's version="1.0" is markup, not a reported number
        prolog = [m.span() for m in XML_PROLOG_RE.finditer(text)]
        found = [x for x in found if not any(a <= x.start < b for a, b in prolog)]
    numbers = [x for x in found if not _never_in_scope(text, x)] or found
    if scope != "final":
        given = {_written(g) for g in find_numbers(question)} if question else set()
        # "refining the grains by a factor of 25 ...": a multiplier in a remark, unless a
        # factor is what the question asks for
        factor_asked = bool(_ASKS_FACTOR_RE.search(question))
        kept = [
            x
            for x in numbers
            if _written(x) not in given
            # "0.4123 nm = 0.4123 × 10⁻⁷ cm": a given converted keeps the given's digits
            and not (x.scientific and x.mantissa in given)
            and (
                factor_asked
                or x.decimals
                or not _FACTOR_BEFORE_RE.search(text[max(0, x.start - 30) : x.start])
            )
        ]
        return kept or numbers
    if "(" not in text:
        return numbers
    asides = [m.span() for m in _GIVEN_ASIDE_RE.finditer(text)]
    kept = [x for x in numbers if not any(a <= x.start < b for a, b in asides)]
    return kept or numbers


_DECIMAL_KEY = re.compile(
    phrases(
        "decimal",
        r"\bd\.p\.",
        "tenth",
        "hundredth",
        "thousandth",
        "nearest integer",
        "whole number",
        "precision",
    ),
    re.I,
)


@register("general_decimal_annotation")
def decimal_annotation(inp: CheckInput) -> Verdict:
    params = clean_parameters(inp.parameters)
    places, source = parse_decimal_places(params) if params else set(), "parameters"
    if not places:
        places, source = parse_decimal_places(inp.question or ""), "question"
    if not places:
        return Verdict.unscored("number of decimal places not stated in parameters or question")
    if len(places) > 1:
        return Verdict.unscored(f"conflicting decimal places in the {source}: {sorted(places)}")
    n = places.pop()
    scope = input_scope(inp, _DECIMAL_KEY, default="final")
    text, where = scoped_text(inp.response, scope, numbers=True)
    numbers = _answer_numbers(text, scope, inp.question or "")
    if not numbers:
        return Verdict.failed(f"no number found in {where} ({n} decimals required)")
    bad = [x.text for x in numbers if x.decimals != n]
    if bad:
        return Verdict.failed(
            f"{len(bad)} of {plural(len(numbers), 'number')} in {where} lack exactly "
            f"{plural(n, 'decimal')}: {show_items(bad)}"
        )
    return Verdict.passed(
        f"{plural(len(numbers), 'number')} in {where}, all with {plural(n, 'decimal')}"
    )


def _also_scientific(x: Number, answer: list[Number]) -> bool:
    """``x`` (plain, in the working) has the value of a number the answer statement writes
    in scientific notation, equal to the precision ``x`` is written with (docs/labelling.md
    rule 3: the reported value "≈ 0.949 km³" in a step, "9.49e-1" in the answer's CSV)."""
    read = number_value(x.text)
    if not read or not read[0]:
        return False
    value = read[0]
    for other in answer:
        if other.scientific and (known := number_value(other.text)) is not None:
            if abs(known[0] - value) <= 0.5 * 10.0**-x.decimals + 1e-12 * abs(value):
                return True
    return False


_FENCE_RE = re.compile(r"```[^\n]*\n.*?```", re.S)
# "1 km³ = 1 × 10⁹ m³": the 1 of a unit conversion is an exact constant, no reported value
_CONVERSION_ONE_RE = re.compile(
    r"[ \t]*(?:\\[ ,;]|~)?[ \t]*[^\s=0-9][^=\n]{0,24}?=[ \t]*[^\n]{0,12}?10"
)


_SCIENTIFIC_KEY = re.compile(
    phrases("scientific", "exponential", "e-notation", "standard form", "powers? of (?:ten|10)"),
    re.I,
)


@register("general_scientific_annotation")
def scientific_annotation(inp: CheckInput) -> Verdict:
    scope = input_scope(inp, _SCIENTIFIC_KEY, default="final")
    text, where = scoped_text(inp.response, scope, numbers=True)
    numbers = _answer_numbers(text, scope, inp.question or "")
    if not numbers:
        return Verdict.failed(f"no number found in {where}")
    statement = final_answer(text) if scope == "whole" else None  # a marked answer only
    answer = [x for x in numbers if statement and statement.start <= x.start < statement.end]
    # a fenced block (the dict or JSON the question asks for) reports values: no working
    fenced = [m.span() for m in _FENCE_RE.finditer(text)] if "```" in text else []
    answer += [x for x in numbers if any(a <= x.start < b for a, b in fenced)]
    plain = [
        x.text
        for x in numbers
        if not x.scientific
        and not (x.mantissa == "1" and _CONVERSION_ONE_RE.match(text, x.end))
        and not (x not in answer and _also_scientific(x, answer))
    ]
    if plain:
        return Verdict.failed(
            f"{len(plain)} of {plural(len(numbers), 'number')} in {where} not in scientific "
            f"notation: {show_items(plain)}"
        )
    off = [x.text for x in numbers if x.scientific and not x.normalized]
    if off:
        return Verdict.failed(f"mantissa outside [1, 10) in {where}: {show_items(off)}")
    figures = _significant_figures(inp)
    if figures:
        wrong = [x.text for x in numbers if x.scientific and _figures(x.mantissa) != figures]
        if wrong:
            return Verdict.failed(
                f"{len(wrong)} of {plural(len(numbers), 'number')} in {where} not with "
                f"{figures} significant figures: {show_items(wrong)}"
            )
    with_figures = f", {figures} significant figures" if figures else ""
    return Verdict.passed(
        f"{plural(len(numbers), 'number')} in {where}, all in scientific notation{with_figures}"
    )


# "scientific notation with three significant figures": the mantissa's digits count too
_FIGURES_RE = re.compile(
    rf"\b({NUMBER_WORD})[ \t-]+significant[ \t]+(?:figures?|digits?)\b"
    r"|\b([1-9])[ \t]*s\.?f\.?(?!\w)",
    re.I,
)


def _significant_figures(inp: CheckInput) -> int | None:
    """The significant figures the scientific-notation requirement states (parameters,
    else the question's sentence asking for the notation), or None."""
    said = " ".join(sentences_matching(inp.question or "", _SCIENTIFIC_KEY))
    for text in (clean_parameters(inp.parameters), said):
        m = _FIGURES_RE.search(text)
        if m:
            return parse_int(m.group(1) or m.group(2))
    return None


def _figures(mantissa: str) -> int:
    """Significant figures of a mantissa as written ("6.30" -> 3, "2" -> 1, "0.0450" -> 3)."""
    return len(mantissa.replace(".", "").lstrip("0")) or 1
