"""Checkers of the rule-scored general constraints of the SciMIF catalogue.

``general_number_response`` is judge-scored (``judged.py``; without an LLM judge the
registry reports it unscored). Every other ``general_*`` constraint except the structured
formats (``formats.py``, ``markup.py``), the wrappers (``wrappers.py``) and the answer position
(``answer_position.py``) has one checker below. Each reads the requirement from
``parameters`` first, then from the question; when it cannot be read from either, the
verdict is unscored with the reason, never a guess. Shared parsing lives in ``text.py``
(scope), ``answers.py`` (final answer, code fences) and ``number_grammar.py`` (numbers),
whose docstrings define those terms.

Scope: a requirement applies to the whole response unless the parameters, or the question
sentences that mention it, restrict it to the final answer (``text.requirement_scope``).
``general_choose_from`` defaults to the final answer instead (a selection is an answer), and
so do the precision and notation requirements (decimal places, scientific notation: issue
19, they concern the quantity asked for, not every number of the working) unless the
parameters or the question say every / all numbers, values, results, the entire / whole
response, throughout or intermediate steps.

Decision rules, one per constraint:

* decimal_annotation: required places from "N decimal places" / "one decimal place" /
  "nearest tenth" / "nearest integer" (0) / a bare count; two different counts stated ->
  unscored. Pass iff every number in scope (``number_grammar.find_numbers``) has exactly N digits
  after the decimal point (mantissa digits for scientific notation); no number -> fail.
* scientific_annotation: pass iff every number in scope is written as mantissa times a
  power of ten (``1.23e-4``, ``1.23 × 10^-4``, ``1.23 \\times 10^{-4}``, ``1.23*10^5``,
  ``10^{-4}``) with 1 <= |mantissa| < 10 (or 0); no number -> fail.
* all_uppercase / all_lowercase: the text is read through ``escaping.read_latex`` (LaTeX
  escaped in JSON strings, ``\\n`` escapes); LaTeX command names (``\\times``,
  ``\\BOXED``) and environment names (``\\begin{aligned}``) are markup and dropped, the
  letters of their arguments (``\\text{Speed}``, a variable ``$V$``) count like any other;
  then every cased letter in scope must have the required case; digits and punctuation are
  ignored; no cased letter -> fail.
* choose_from: the options come from the parameters, else the question: a labelled run
  "(a) x (b) y" / "A. x" (labels consecutive from a / A / 1), else the items after
  "choose from / one of / options:" split on commas, "or", "/". None -> unscored. Pass
  iff exactly one distinct option is named in scope (default: the final answer or last
  line): by its text (whole words, case-insensitive, a shorter option inside a longer one
  does not count) or by its label (a bare capital letter other than A and I; otherwise
  "(a)", "a.", "a)", "option a", a label followed by ",", "or", "and" or the end, or the
  answer being just the label, so the article in "A brief look" is not option A).
* judge: pass iff the text in scope (default: whole response) stripped is "yes" or "no",
  any case, with at most one trailing period.

The structured formats are in ``formats.py`` and ``markup.py``, ``general_wrap_up`` in
``wrappers.py``, ``general_response_structure`` in ``answer_position.py``.
"""

from __future__ import annotations

import re

from sci_tasks.metrics.constraints.answer_position import opening_answer
from sci_tasks.metrics.constraints.answers import (
    code_blocks,
    final_answer,
    last_content_line,
    scoped_text,
)
from sci_tasks.metrics.constraints.base import (
    CheckInput,
    input_scope,
    register,
    register_judged,
)
from sci_tasks.metrics.constraints.escaping import read_latex
from sci_tasks.metrics.constraints.judged import NUMBER_RESPONSE
from sci_tasks.metrics.constraints.number_grammar import (
    Number,
    find_numbers,
    number_value,
    parse_decimal_places,
)
from sci_tasks.metrics.constraints.options import (
    CHOICE_KEY,
    chosen_options,
    flat_notation,
    read_options,
    same_molecule,
)
from sci_tasks.metrics.constraints.text import (
    clauses_matching,
    clean_parameters,
    clip,
    plural,
    sentences_matching,
    show_items,
)
from sci_tasks.metrics.constraints.unit_grammar import parse_unit
from sci_tasks.metrics.verdict import Verdict

# --------------------------------------------------------------------------- precision

_DECIMAL_KEY = re.compile(
    r"decimal|\bd\.p\.|tenth|hundredth|thousandth|nearest[ \t]+integer|whole[ \t]+number|"
    r"precision",
    re.I,
)
_SCIENTIFIC_KEY = re.compile(
    r"scientific|exponential|e-notation|standard[ \t]+form|powers?[ \t]+of[ \t]+(?:ten|10)", re.I
)


# A bracketed aside in the final answer that gives another quantity ("7.67 m/s (g = 9.8
# m/s^2)", "(using g = 9.8)") is data the answer rests on, not the answer.
_GIVEN_ASIDE_RE = re.compile(
    r"\((?:[^()\n]{0,40}?\b(?:using|with|taking|assuming|given|where)\b"
    r"|[ \t]*[A-Za-z\\][\w\\{}^]{0,12}[ \t]*=)[^()\n]{0,80}\)"
)


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
_FACTOR_BEFORE_RE = re.compile(
    r"\bfactor[ \t]+of[ \t]+(?:about[ \t]+|roughly[ \t]+|~[ \t]*)?$", re.I
)
_POWER_OF_TEN_RE = re.compile(r"10+")
_TIMES_BEFORE_RE = re.compile(r"(?:[×*/÷·]|\\times|\\cdot|\\div)[ \t{]*$")
_TIMES_AFTER_RE = re.compile(r"[ \t}]*(?:[×*/÷·]|\\times|\\cdot|\\div)")
_ASKS_FACTOR_RE = re.compile(r"\b(?:factor|fold|ratio|how[ \t]+many[ \t]+times)\b", re.I)
_COUNT_WORDS_RE = re.compile(
    r"[ \t]+(?:distinct[ \t]+|different[ \t]+|main[ \t]+|key[ \t]+|separate[ \t]+)?"
    r"(?:steps?|stages?|times|significant[ \t]+figures|sig\.?[ \t]+figs|decimal[ \t]+places?|"
    r"(?:carbon|hydrogen|oxygen|nitrogen|heavy)?[ \t]*atoms?|bonds?|carbons|hydrogens|electrons|"
    r"peaks|terms|types|options|categories|reasons|mechanisms|factors|points|items|samples|"
    r"replicates|trials|groups|rings|regions|classes|parts)\b",
    re.I,
)


_PLURAL_NOUN_RE = re.compile(r"[ \t]+([a-z]{3,}s)\b(?![ \t]*(?:per|/)\b)")


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


def _coefficient(text: str, x: Number) -> bool:
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
    before = _LATEX_COMMAND_RE.sub(" ", text[max(0, x.start - 60) : x.start])
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


def _answer_numbers(text: str, scope: str, question: str = "") -> list[Number]:
    """The numbers of ``text`` a precision rule applies to: never exponents, power bases,
    formula constants, years or counts (``_never_in_scope``); in the whole response, not the
    question's data restated ("k = 0.158" when the question gives 0.158); in the final
    answer, those of a given-quantity aside are left out when a number stays outside it."""
    found = find_numbers(text)
    if "<?" in text:  # an XML declaration's version="1.0" is markup, not a reported number
        prolog = [m.span() for m in _XML_PROLOG_RE.finditer(text)]
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
    text, where = scoped_text(inp.response, scope)
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


# "1 km³ = 1 × 10⁹ m³": the 1 of a unit conversion is an exact constant, no reported value
_CONVERSION_ONE_RE = re.compile(
    r"[ \t]*(?:\\[ ,;]|~)?[ \t]*[^\s=0-9][^=\n]{0,24}?=[ \t]*[^\n]{0,12}?10"
)


@register("general_scientific_annotation")
def scientific_annotation(inp: CheckInput) -> Verdict:
    scope = input_scope(inp, _SCIENTIFIC_KEY, default="final")
    text, where = scoped_text(inp.response, scope)
    numbers = _answer_numbers(text, scope, inp.question or "")
    if not numbers:
        return Verdict.failed(f"no number found in {where}")
    statement = final_answer(text) if scope == "whole" else None  # a marked answer only
    answer = [x for x in numbers if statement and statement.start <= x.start < statement.end]
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
    return Verdict.passed(
        f"{plural(len(numbers), 'number')} in {where}, all in scientific notation"
    )


# --------------------------------------------------------------------------- letter case

_UPPER_KEY = re.compile(r"upper[ \t-]*case|capital|\bcaps\b|block[ \t]+letters", re.I)
_LOWER_KEY = re.compile(r"lower[ \t-]*case|small[ \t]+letters|no[ \t]+capital", re.I)
_LATEX_COMMAND_RE = re.compile(r"\\[A-Za-z]+")
_LATEX_ENVIRONMENT_RE = re.compile(r"\\(?:begin|end|BEGIN|END)[ \t]*\{[A-Za-z*]{1,20}\}")
_XML_PROLOG_RE = re.compile(r"<\?[^<>\n]{0,200}\?>|<![A-Za-z][^<>\n]{0,200}>")
_FENCE_INFO_RE = re.compile(r"^[ \t]*(?:```|~~~)[^\n]*", re.M)


_KEYS_VALUES_RE = re.compile(r"\b(?:keys?|values?|field[ \t]+names?)\b", re.I)


def _keys_and_values_scope(inp: CheckInput, key: re.Pattern[str]) -> str:
    """The structured answer (the last fenced block, else the last {...}) when the case
    requirement names its keys and values ("Keep all keys and values in lowercase"): the
    sentence that presents it is not under the requirement; else ""."""
    said = (
        clean_parameters(inp.parameters)
        + " "
        + " ".join(
            c for s in sentences_matching(inp.question or "", key) for c in clauses_matching(s, key)
        )
    )
    if not _KEYS_VALUES_RE.search(said):
        return ""
    blocks = code_blocks(inp.response)
    if blocks and blocks[-1].closed:
        return blocks[-1].body
    start, end = inp.response.find("{"), inp.response.rfind("}")
    return inp.response[start : end + 1] if 0 <= start < end else ""


def _letter_case(inp: CheckInput, upper: bool) -> Verdict:
    key = _UPPER_KEY if upper else _LOWER_KEY
    if not clean_parameters(inp.parameters) and not key.search(inp.question or ""):
        # the record lists the constraint but the question never asked for it
        return Verdict.unscored(
            f"the question asks for no {'upper' if upper else 'lower'}case and the "
            "parameters are empty: the requirement is absent"
        )
    scope = input_scope(inp, key)
    text, where = scoped_text(inp.response, scope)
    if scope == "whole" and (block := _keys_and_values_scope(inp, key)):
        text, where = block, "the structured answer's keys and values"
    opening = opening_answer(inp.response, clean_parameters(inp.parameters), inp.question or "")
    if scope == "final" and opening is not None:  # "state your choice first, in capitals"
        text, where = opening, "the first line (where the question puts the answer)"
    # LaTeX command and environment names are markup, not prose; the letters of their
    # arguments (\text{Speed}, \BOXED{SPEED}, a variable $V$) are the response's letters
    if "\\" in text:
        text = _LATEX_COMMAND_RE.sub(" ", _LATEX_ENVIRONMENT_RE.sub(" ", read_latex(text)))
    if "```" in text or "~~~" in text:  # so is a code fence's language tag
        text = _FENCE_INFO_RE.sub(" ", text)
    if "<?" in text or "<!" in text:  # an XML declaration or DOCTYPE is markup too
        text = _XML_PROLOG_RE.sub(" ", text)
    wanted = "uppercase" if upper else "lowercase"
    wrong_case = str.islower if upper else str.isupper
    # counted with map() in C: a Python loop over every character is the slow part
    wrong = sum(map(wrong_case, text))
    total = wrong + sum(map(str.isupper if upper else str.islower, text))
    if total == 0:
        return Verdict.failed(f"no letters in {where}")
    if wrong:
        first = next(i for i, ch in enumerate(text) if wrong_case(ch))
        word = _word_at(text, first)
        return Verdict.failed(f"{wrong} of {total} letters in {where} not {wanted}, e.g. {word!r}")
    return Verdict.passed(f"all {total} letters in {where} are {wanted}")


def _word_at(text: str, i: int, reach: int = 20) -> str:
    a, b = i, i + 1
    while a > 0 and i - a < reach and text[a - 1].isalnum():
        a -= 1
    while b < len(text) and b - i < reach and text[b].isalnum():
        b += 1
    return text[a:b]


@register("general_all_uppercase")
def all_uppercase(inp: CheckInput) -> Verdict:
    return _letter_case(inp, upper=True)


@register("general_all_lowercase")
def all_lowercase(inp: CheckInput) -> Verdict:
    return _letter_case(inp, upper=False)


# --------------------------------------------------------------------------- selection


@register("general_choose_from")
def choose_from(inp: CheckInput) -> Verdict:
    options, source = read_options(clean_parameters(inp.parameters), inp.question or "")
    if not options:
        return Verdict.unscored("options to choose from not found in parameters or question")
    text, where = scoped_text(inp.response, input_scope(inp, CHOICE_KEY, default="final"))
    named, how = chosen_options(options, text)
    opening = opening_answer(inp.response, clean_parameters(inp.parameters), inp.question or "")
    if opening is not None:  # the question put the choice first: the first line decides
        first, first_how = chosen_options(options, opening)
        if first or not named:
            text, where = opening, "the first line (where the question puts the answer)"
            named, how = first, first_how
    if not named and flat_notation(text) != text:  # "\text{Na}_2\text{CO}_3" names Na2CO3
        named, how = chosen_options(options, flat_notation(text))
    if not named:
        named, how = same_molecule(options, text), " (the same molecule, written differently)"
    if len(named) == 1:
        return Verdict.passed(
            f"one of {len(options)} options (from the {source}) named in {where}: {named[0]}{how}"
        )
    if not named:
        listed = show_items([str(o) for o in options], 4)
        return Verdict.failed(
            f"none of the {len(options)} options from the {source} ({listed}) in {where}: "
            f"{clip(text)!r}"
        )
    return Verdict.failed(
        f"{len(named)} options named in {where}: {show_items([str(o) for o in named])}"
    )


_JUDGE_KEY = re.compile(r"\byes\b|\btrue[ \t]+or[ \t]+false\b|\bjudge", re.I)
_YES_NO_RE = re.compile(r"(yes|no)\.?", re.I)
_EMPHASIS_RE = re.compile(r"[*_`{}$]|\\(?:boxed|textbf|text)(?=\{)")


# "the last line of your response must contain only Yes or No", "end your response with a
# final line containing only the word Yes or No": the answer is that line, the explanation
# above it is asked for
_LAST_LINE_RE = re.compile(
    r"\b(?:last|final|closing)[ \t]+line\b|\bend[ \t]+(?:your[ \t]+(?:response|answer|reply)"
    r"[ \t]+)?with[ \t]+(?:a|one)[ \t]+(?:final[ \t]+|separate[ \t]+)?line\b",
    re.I,
)


@register("general_judge")
def judge(inp: CheckInput) -> Verdict:
    text, where = scoped_text(inp.response, input_scope(inp, _JUDGE_KEY))
    said = [clean_parameters(inp.parameters), *sentences_matching(inp.question or "", _JUDGE_KEY)]
    if any(_LAST_LINE_RE.search(s) for s in said) and (line := last_content_line(inp.response)):
        text, where = line.text, "the last line (where the question puts the answer)"
    answer = text.strip()
    if _yes_or_no(answer):
        return Verdict.passed(f"{where} is exactly {answer!r}")
    # "Place your answer at the very beginning": the first line is the answer, and what
    # follows it is the explanation the question leaves room for (docs/labelling.md rule 14).
    opening = opening_answer(inp.response, clean_parameters(inp.parameters), inp.question or "")
    if opening is not None and _yes_or_no(opening):
        return Verdict.passed(
            f"the first line (where the question puts the answer) is exactly {opening.strip()!r}"
        )
    return Verdict.failed(f"{where} is not just Yes or No: {clip(answer)!r}")


def _yes_or_no(answer: str) -> bool:
    # Emphasis or a box around the word is markup, not another word: "**Yes**" is Yes.
    return bool(_YES_NO_RE.fullmatch(_EMPHASIS_RE.sub("", answer).strip()))


register_judged(NUMBER_RESPONSE, "general_number_response")
