"""The requirement of a ``<discipline>_unit_consistency`` constraint (``unit_check.py``
decides it): the required unit(s), a unit family, SI or dimensionless, and the scope, read
from the parameters, else the question (the rule is in ``unit_check.py``'s docstring)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from sci_tasks.metrics.constraints.quantities import (
    TooManyNumbers,
    quantities,
)
from sci_tasks.metrics.constraints.text import (
    clauses_matching,
    sentences,
    words_re,
)
from sci_tasks.metrics.constraints.unit_grammar import clean_unit_text, parse_unit, read_unit
from sci_tasks.metrics.constraints.units import (
    Unit,
    carries,
    dimension,
    render,
)

# --------------------------------------------------------------------------- requirement

_DIGIT_RE = re.compile(r"[0-9]")

_UNIT_CUE_RE = re.compile(
    r"\b(?:in|into)[ \t]+(?:(?:the[ \t]+)?units?[ \t]+of[ \t]+|terms[ \t]+of[ \t]+)?"
    # "unit: m/s", "its unit, g/cm^3"; not a noun compound ("per unit cell", "unit vector")
    r"|(?<!per[ \t])\bunits?\b(?![ \t]+(?:cells?|vectors?|circles?|area|length|mass|volume|"
    r"time|steps?|conversions?|operations?|sphere|normal)\b)"
    r"[ \t]*(?:[:=,]|of\b|is\b|should[ \t]+be\b|must[ \t]+be\b)?[ \t]*"
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
# clauses about something else than units: their "entire" / "all" is not the unit's scope
# ("state its length in bp, and write your entire response in uppercase")
_OTHER_CLAUSE_RE = re.compile(
    r"upper[ \t-]*case|lower[ \t-]*case|capital|letters|json|markdown|xml|html|csv|wrap|"
    r"enclose|bracket|box|decimal|scientific|notation|position|english",
    re.I,
)


def whole_scope(context: str) -> bool:
    """The unit requirement covers every quantity (module docstring), read from the clauses
    of its sentence that are not about another requirement."""
    return any(
        not _OTHER_CLAUSE_RE.search(clause)
        for sentence in _SENTENCE_SPLIT_RE.split(_COUNTED_RE.sub(" ", context))
        for clause in clauses_matching(sentence, _WHOLE_RE)
    )


_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?])\s+")
# "in all three forward frames": a count of things, not the scope of the unit
_COUNTED_RE = re.compile(
    r"\b(?:all|each|every)[ \t]+(?:of[ \t]+)?(?:the[ \t]+)?(?:[0-9]+|two|three|four|five|six|"
    r"seven|eight|nine|ten|both)\b",
    re.I,
)


# "a dimensionless ratio", "unitless", "no units": the answer is a pure number.
_DIMENSIONLESS_RE = words_re(
    "dimensionless",
    "unitless",
    "unit-less",
    "non-dimensional",
    "pure number",
    "(?:has|have|with|carr(?:y|ies)) no units?",
    "without (?:any )?units?",
)


# "imperial units suited to the United States", "US customary units", "metric units": a
# unit family instead of a unit.
_IMPERIAL_RE = re.compile(
    r"\bimperial\b|\bU\.?[ \t]?S\.?[ \t]+customary\b|\bUnited[ \t]+States[ \t]+customary\b"
    r"|\bEnglish[ \t]+units\b|\bunits?\b[^.\n]{0,30}\b(?:suited|used|customary|common)\b"
    r"[^.\n]{0,20}\b(?:United[ \t]+States|America|(?-i:U\.S\.|USA|US))\b",
    re.I,
)
_METRIC_RE = re.compile(r"\bmetric[ \t]+(?:units?|system|measures?|measurements?)\b", re.I)


def _family_in(text: str) -> str:
    if _IMPERIAL_RE.search(text):
        return "imperial"
    return "metric" if _METRIC_RE.search(text) else ""


@dataclass(frozen=True)
class Requirement:
    units: tuple[Unit, ...]  # required units (empty in SI, family and dimensionless modes)
    si: bool
    source: str  # "parameters" / "question"
    context: str  # the text that stated it (for the scope)
    dimensionless: bool = False  # a pure number, no physical unit
    family: str = ""  # "imperial" / "metric": any unit of that family

    def show(self) -> str:
        if self.dimensionless:
            return "no unit (dimensionless)"
        if self.family:
            return f"{self.family} units"
        return "SI units" if self.si else " and ".join(render(u) for u in self.units)


def _dedupe(units: Iterable[Unit]) -> tuple[Unit, ...]:
    out: list[Unit] = []
    for u in units:
        if u not in out:
            out.append(u)
    return tuple(out)


# A list of more units than this is not a unit requirement (each piece is parsed): such
# parameters are read by the cue rules below, as prose.
MAX_LISTED_UNITS = 64


def _units_in_parameters(params: str) -> list[Unit]:
    text = _PARAM_LEAD_RE.sub("", params.strip()).strip(" .;\"'`")
    whole = _unit_of_piece(text)
    if whole:
        return [whole]
    parts = [p for p in re.split(r"[ \t]*(?:[,;]|\band\b)[ \t]*", text) if p.strip()]
    if 1 < len(parts) <= MAX_LISTED_UNITS and not _DIGIT_RE.search(_EXPONENT_RE.sub("", text)):
        # (values with units, "Primer length: 24 nt; ...": the units they carry, below)
        # "millimoles (mmol) for amounts, moles per litre (mol/L) for concentrations"
        found = [[u] if (u := _unit_of_piece(_FOR_KIND_RE.sub("", p))) else [] for p in parts]
        # a piece that is no unit and reads as prose ("the coefficient is unity") is a
        # remark beside the units, not a unit
        if any(found) and all(f or len(p.split()) >= 3 for f, p in zip(found, parts, strict=True)):
            return [f[0] for f in found if f]
    return []


# an exponent inside a unit ("MPa·m^1/2", "m^{-3}") is no value
_EXPONENT_RE = re.compile(r"\^\{?[-−+]?[0-9]+(?:/[0-9]+)?\}?")
_FOR_KIND_RE = re.compile(r"[ \t]+for[ \t]+(?:the[ \t]+)?[a-z][a-z -]*$", re.I)


def _unit_of_piece(text: str) -> Unit | None:
    """The unit a piece of the parameters names: "kJ/mol", "grams (g)", "kJ/mol (kilojoules
    per mole)", "mol/L (M)" (a unit and its other name in brackets: the two agree, so the
    bracket is no factor of the unit)."""
    m = re.fullmatch(r"([^(),;]+?)[ \t]*\(([^()]+)\)", text)
    if m and len(m.group(1).split()) <= 4:  # a unit name, not a sentence ending in "(°C)"
        a, b = parse_unit(m.group(1)), parse_unit(m.group(2))
        if a and b and dimension(a[0]) == dimension(b[0]):
            return b[0]
    whole = parse_unit(text)
    if whole:
        return whole[0]
    if m and len(m.group(1).split()) <= 4:
        a, b = parse_unit(m.group(1)), parse_unit(m.group(2))
        if a or b:
            return (b or a)[0]
    return None


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


def _asks_for(sentence: str, units: list[Unit]) -> bool:
    asked, _ = _units_after_cues(sentence)
    return any(carries([u], units) for u in asked)


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
            # the question's sentences that ask for these units say their scope; one asking
            # for another unit ("(1) convert grain sizes to metres, (2) ... for each") does not
            context = " ".join([params, *(s for s in q_where if _asks_for(s, units))])
            return Requirement(_dedupe(units), False, "parameters", context)
        family = _family_in(params)
        if family:
            return Requirement((), False, "parameters", params, family=family)
        if _SI_REQUIRED_RE.search(params):
            return Requirement((), True, "parameters", params)
        if _DIMENSIONLESS_RE.search(params):
            return Requirement((), False, "parameters", params, dimensionless=True)
    if q_units:
        return Requirement(_dedupe(q_units), False, "question", " ".join(q_where))
    if not question:
        return None
    # each cue is looked for in the whole question first; its sentences only when it occurs
    if _SI_REQUIRED_RE.search(question):
        si = [s for s in sentences(question) if _SI_REQUIRED_RE.search(s)]
        return Requirement((), True, "question", " ".join(si))
    if _family_in(question):
        families = [s for s in sentences(question) if _family_in(s) and _ASK_RE.search(s)]
        if families:
            context = " ".join(families)
            return Requirement((), False, "question", context, family=_family_in(context))
    if _DIMENSIONLESS_RE.search(question):
        pure = [s for s in sentences(question) if _DIMENSIONLESS_RE.search(s)]
        return Requirement((), False, "question", " ".join(pure), dimensionless=True)
    return None
