"""The ``<discipline>_unit_consistency`` rule (five names, one implementation; each
discipline module registers it), on the units of ``units.py`` as ``unit_grammar.py`` reads
them and the quantities of ``quantities.py``.

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
A quantity is a number (``number_grammar.find_numbers``) followed by a unit (``per X`` / ``/X``
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

import ast
import json
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from sci_tasks.metrics.constraints.answers import code_blocks, final_answer
from sci_tasks.metrics.constraints.base import (
    CheckInput,
)
from sci_tasks.metrics.constraints.number_grammar import number_value
from sci_tasks.metrics.constraints.quantities import (
    Quantity,
    TooManyNumbers,
    labelled_units,
    quantities,
)
from sci_tasks.metrics.constraints.text import (
    clauses_matching,
    clean_parameters,
    clip,
    non_empty_lines,
    phrases,
    sentences,
)
from sci_tasks.metrics.constraints.unit_grammar import clean_unit_text, parse_unit, read_unit
from sci_tasks.metrics.constraints.units import (
    Unit,
    carries,
    dimension,
    family_dimension,
    in_family,
    is_si,
    render,
    without_counts,
)
from sci_tasks.metrics.verdict import Verdict

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
_DIMENSIONLESS_WORDS = phrases(
    "dimensionless",
    "unitless",
    "unit-less",
    "non-dimensional",
    "pure number",
    "(?:has|have|with|carr(?:y|ies)) no units?",
    "without (?:any )?units?",
)
_DIMENSIONLESS_RE = re.compile(rf"\b(?:{_DIMENSIONLESS_WORDS})\b", re.I)


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


# --------------------------------------------------------------------------- checker


_DIGIT_RE = re.compile(r"[0-9]")


def answer_region(response: str, units: tuple[Unit, ...] = ()) -> tuple[str, str] | None:
    """The final-answer text for unit checks and words for it (module docstring); a table
    with a unit column is read row by row as "value unit" (``_unit_column_rows``)."""
    region = _answer_region(response, units)
    if region is not None and (rows := _unit_column_rows(region[0])):
        return rows, f"{region[1]}, each value with its row's unit"
    return region


_UNIT_HEADER = frozenset({"unit", "units", "unit(s)"})


def _unit_column_rows(text: str) -> str:
    """A CSV or Markdown table whose header has a unit column ("quantity,value,unit") as
    "value unit" lines, one per row; "" when ``text`` is no such table."""
    lines = [ln.strip().strip("|") for ln in text.strip().splitlines() if ln.strip()]
    lines = [ln for ln in lines if not re.fullmatch(r"[\s|:-]*", ln) and not ln.startswith("```")]
    if len(lines) < 2:
        return ""
    sep = "|" if "|" in lines[0] else ","
    header = [c.strip().strip("*`").lower() for c in lines[0].split(sep)]
    unit_at = next((i for i, c in enumerate(header) if c in _UNIT_HEADER), None)
    if unit_at is None:
        return ""
    out = []
    for line in lines[1:]:
        cells = [c.strip() for c in line.split(sep)]
        if len(cells) != len(header):
            return ""
        values = [c for i, c in enumerate(cells) if i != unit_at and _DIGIT_RE.search(c)]
        out += [f"{v} {cells[unit_at]}" for v in values]
    return "\n".join(out)


def _answer_region(response: str, units: tuple[Unit, ...]) -> tuple[str, str] | None:
    span = final_answer(response)
    if span is not None:
        nl = response.find("\n", span.end)
        end = len(response) if nl < 0 else nl
        return response[span.start : end], f"the final answer ({span.source})"
    blocks = code_blocks(response)
    if blocks and blocks[-1].closed:
        # a closing structured block, perhaps followed by a remark: one paragraph of prose,
        # no working ("=") in it (docs/labelling.md: a closing remark does not move the answer)
        body = blocks[-1].body
        after = response[response.rfind(body) + len(body) :].strip().strip("`~").strip()
        remark = (
            not _BLANK_LINE_RE.search(after)
            and "=" not in after
            and len(after) <= 400
            and not _states_unit(after, units)  # "In short: a_c ≈ 4.97 mm": the answer again
        )
        if body.strip() and (not _DIGIT_RE.search(after) or remark):
            return body, "the final answer (the last ``` block)"
    bold = _last_bold_result(response)
    if bold is not None:
        return bold, "the final answer (its bold result line)"
    lines = non_empty_lines(response)
    for line in reversed(lines):
        if _DIGIT_RE.search(line.text):
            return line.text, "the last line with a number"
    if lines:
        return lines[-1].text, "the last line"
    return None


_BOLD_LINE_RE = re.compile(r"^[ \t]*\*\*[^*\n]*[0-9][^*\n]*\*\*[ \t.]*$", re.M)


def _last_bold_result(response: str) -> str | None:
    """A line that is all bold and holds a number ("**Time of flight: T ≈ 2.89 s**"), when
    at most one short paragraph of remark follows it; else None."""
    found = None
    for found in _BOLD_LINE_RE.finditer(response):  # noqa: B007 - the last one
        pass
    if found is None:
        return _last_html_strong(response)
    after = response[found.end() :].strip()
    if after and (_BLANK_LINE_RE.search(after) or len(after) > 400):
        return None
    return found.group().strip()


_HTML_STRONG_RE = re.compile(
    r"<(strong|b)>((?:(?!</?\1>).){0,300}?[0-9](?:(?!</?\1>).){0,300}?)</\1>", re.S
)
_HTML_TAG_RE = re.compile(r"<[^<>]{1,200}>")


def _last_html_strong(response: str) -> str | None:
    """In an HTML reply, the last <strong> / <b> element holding a number, when what follows
    it is at most a short remark (500 characters of text)."""
    found = None
    for found in _HTML_STRONG_RE.finditer(response):  # noqa: B007 - the last one
        pass
    if found is None:
        return None
    after = _HTML_TAG_RE.sub(" ", response[found.end() :])
    if len(" ".join(after.split())) > 500:
        return None
    return _HTML_TAG_RE.sub("", found.group(2))


def _states_unit(text: str, units: tuple[Unit, ...]) -> bool:
    try:
        return any(carries(q.units, units) for q in quantities(clean_unit_text(text)))
    except TooManyNumbers:
        return False


def _bare_in_structured_answer(response: str) -> str:
    """A value without a unit in the fenced block that ends the response, when the block's
    other values carry units ("'I3': '1.33'" beside "'I1': '2 A'"), else ""."""
    if not response.rstrip().endswith(("```", "~~~")):
        return ""
    blocks = code_blocks(response)
    if not blocks:
        return ""
    try:
        found = quantities(clean_unit_text(blocks[-1].body))
    except TooManyNumbers:
        return ""
    if sum(1 for q in found if q.units) < 2:
        return ""
    # a zero needs no unit ("a = 0" in a list of accelerations)
    return next((q.number for q in found if not q.units and not _is_zero(q.number)), "")


def _is_zero(number: str) -> bool:
    return number.strip().lstrip("+-−").replace(".", "").replace(",", "").strip("0") == ""


def _show_quantity(q: Quantity) -> str:
    return f"{q.number} {q.unit_text}".strip() if q.unit_text else q.number


_HEADING_RE = re.compile(r"^[ \t]*(?:#{1,6}[ \t]|\*\*[^*\n]+\*\*[ \t]*$|---+[ \t]*$)", re.M)
_BLANK_LINE_RE = re.compile(r"\n[ \t]*\n")


def answer_statement(response: str) -> tuple[str, str] | None:
    """The whole answer statement (issue 28: the unit may sit anywhere in it): the section
    of the last answer marker (from its line to the next heading or rule) or, without a
    marker, the paragraph of the last box; None without either."""
    span = final_answer(response)
    if span is None:
        return None
    start = response.rfind("\n", 0, span.start) + 1
    if span.source == "\\boxed{}":  # the paragraph around the box
        blank = list(_BLANK_LINE_RE.finditer(response, 0, span.start))
        start = blank[-1].end() if blank else 0
        after = _BLANK_LINE_RE.search(response, span.end)
        end = after.start() if after else len(response)
        # a box alone in its paragraph: the sentence that introduces it belongs to it
        lead = re.sub(r"\\(?:boxed|fbox|BOXED)[ \t]*\{$", "", response[start : span.start])
        if not lead.strip(" \t\n$\\[(") and blank:
            before = list(_BLANK_LINE_RE.finditer(response, 0, blank[-1].start()))
            intro = before[-1].end() if before else 0
            # a sentence introduces it; a displayed equation before it is the working
            if _DISPLAY_MATH_RE.sub("", response[intro : blank[-1].start()]).strip():
                start = intro
        return response[start:end], "the answer statement"
    heading = _HEADING_RE.search(response, span.end + 1)
    end = heading.start() if heading else len(response)
    return response[start:end], "the answer statement"


def _literal(text: str) -> object:
    """``text`` read as a Python / JSON literal (tuple, list, dict), else None."""
    body = text.strip()
    if not body or body[0] not in "([{" or body[-1] not in ")]}":
        return None
    try:
        return ast.literal_eval(body)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        try:
            return json.loads(body)
        except (ValueError, RecursionError):
            return None


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _literal_of_numbers(text: str) -> bool:
    """A Python / JSON literal (tuple, list, dict) with bare number values."""
    value = _literal(text)
    items = list(value.values()) if isinstance(value, dict) else value
    if not isinstance(items, (tuple, list)):
        return False
    return any(_is_number(v) for v in items)


_KEY_WORD_RE = re.compile(r"[A-Za-z0-9%]+")


_TEMPLATE_RE = re.compile(r"\(([A-Za-z_][\w ]{0,40}(?:,[ \t]*[A-Za-z_][\w ]{0,40}){1,9})\)")


def _values_in_key_units(answer: str, question: str = "") -> str:
    """A dict answer's numbers with the unit their key ends with ("gc_content_percent": 40.0
    -> "40.0 percent", "radius_nm" -> nm), one per line; keys of one word name no unit ("t",
    "m" are quantities there, not tonnes or metres)."""
    value = _literal(answer)
    if isinstance(value, (tuple, list)) and question:
        # "Return a tuple (technique, d_spacing_nm, crystallite_size_nm)": the question's
        # template names the fields
        for m in reversed(list(_TEMPLATE_RE.finditer(question))):
            fields = [f.strip() for f in m.group(1).split(",")]
            if len(fields) == len(value):
                value = dict(zip(fields, value, strict=True))
                break
    if not isinstance(value, dict):
        return ""
    out = []
    for key, number in value.items():
        words = _KEY_WORD_RE.findall(str(key))
        if not _is_number(number) or len(words) < 2:
            continue
        for i in range(1, len(words)):
            tail = " ".join(words[i:])
            if len(tail) >= 2 and parse_unit(tail):
                out.append(f"{number} {tail}")
                break
    return "\n".join(out)


def _same_value(a: str, b: str) -> bool:
    """The same number with the same digits, in any notation ("5.91 × 10⁻¹²" and "5.91e-12",
    "1,200" and "1200"; "5" and "5.0" are not: the precision as written differs)."""
    if a.replace(" ", "").replace(",", "") == b.replace(" ", "").replace(",", ""):
        return True
    x, y = number_value(a), number_value(b)
    if x is None or y is None:
        return False
    return x[1] == y[1] and math.isclose(x[0], y[0], rel_tol=1e-9)


def check_units(inp: CheckInput) -> Verdict:
    params = clean_parameters(inp.parameters)
    req = required_units(params, inp.question or "")  # read once, for both passes below
    if req is None:
        shown = f"parameters {clip(params)!r}" if params else "parameters empty"
        return Verdict.unscored(f"required unit not found ({shown}; none stated in the question)")
    whole = whole_scope(req.context)
    verdict = _check_units(inp, req, whole)
    if verdict.score != 0.0 or whole:
        return verdict
    # the final answer's own line lacks the unit: the reply may state it for the same value
    region = answer_region(inp.response, req.units)
    if region is None or req.si or req.dimensionless:
        return verdict
    try:
        own = quantities(clean_unit_text(region[0]))
    except TooManyNumbers:
        return verdict
    if any(q.units for q in own):
        # a unit per kind of quantity ("eV for energies, V for the potential"): the answer
        # gives one of them, the reply's other reported values the rest
        if (
            len(req.units) > 1
            and any(carries(q.units, req.units) for q in own)
            and _other_unit_of_required_kind(clean_unit_text(region[0]), own, req) is None
        ):
            return _each_unit_in_reply(inp.response, req, verdict)
        return verdict  # the answer gives a unit, and it is not the required one
    if len(req.units) > 1:
        # units per kind of quantity ("mmol for amounts, mol/L for concentrations") around
        # an answer of another kind (bare pH values): the reply states each with its values
        each = _each_unit_in_reply(inp.response, req, verdict)
        if each.score == 1.0:
            return each
    numbers = [q.number for q in own]
    for text, where in _places_stating_the_unit(
        inp.response, region[0], numbers, inp.question or ""
    ):
        if where.startswith("the sentence introducing"):
            for shown, units in _named_units(clean_unit_text(text)):
                if carries(units, req.units):
                    return Verdict.passed(
                        f"{where} names its unit {shown!r} = {req.show()}; {verdict.reason}"
                    )
            continue
        hit = _same_value_in_unit(text, numbers, req)
        if hit is not None:
            return Verdict.passed(
                f"{where} gives {_show_quantity(hit)} in {req.show()} "
                f"(from the {req.source}); {verdict.reason}"
            )
    return verdict


def _each_unit_in_reply(response: str, req: Requirement, verdict: Verdict) -> Verdict:
    try:
        found = quantities(clean_unit_text(response))
    except TooManyNumbers:
        return verdict
    shown = []
    for unit in req.units:
        hit = next((q for q in found if carries(q.units, [unit])), None)
        if hit is None:
            return verdict
        shown.append(_show_quantity(hit))
    return Verdict.passed(
        f"the reply states each of the units {req.show()} with its values "
        f"({', '.join(shown)}); {verdict.reason}"
    )


def _places_stating_the_unit(
    response: str, answer: str, numbers: list[str], question: str = ""
) -> Iterator[tuple[str, str]]:
    """Where a reply states the unit of a final answer that lacks it, in the order tried."""
    statement = answer_statement(response)  # "The route is 6.2 miles long: \boxed{6.2}"
    if statement is not None:
        yield statement
    if not numbers:
        return
    if _literal_of_numbers(answer):
        # a tuple / list / dict of numbers cannot hold a unit: a key naming it
        # ("gc_content_percent"), the sentence introducing it ("(activity in kBq, ...)") or
        # the working's values stand for it
        if keyed := _values_in_key_units(answer, question):
            yield keyed, "the answer's keys, naming the units of their values"
        yield _introducing_sentence(response, answer), "the sentence introducing the answer"
        yield response, "the response, for the values of the structured answer"
    else:
        # a box or "[[33.3]]" could have held the unit: the value must be stated with it in
        # the reply's text ("the population doubles in about 33.3 years", "t ≈ 70 / 2.1 ≈
        # 33.3 yr"), not only in a displayed equation of the working
        prose = _DISPLAY_MATH_RE.sub(" ", response)
        yield prose, "the reply's text, for the values of the final answer"


def _same_value_in_unit(text: str, numbers: list[str], req: Requirement) -> Quantity | None:
    cleaned = clean_unit_text(text)
    try:
        found = quantities(cleaned)
    except TooManyNumbers:
        return None
    for q in found:
        right = (
            bool(q.units) and family_dimension(q.units[0]) and in_family(q.units[0], req.family)
            if req.family
            else carries(q.units, req.units)
        )
        if right and (not numbers or any(_same_value(q.number, n) for n in numbers)):
            return q
    return None


_DISPLAY_MATH_RE = re.compile(
    r"\\\[.*?\\\]|\$\$.*?\$\$|\\begin\{(equation|align|gather)\*?\}.*?\\end\{\1\*?\}", re.S
)
_IN_UNIT_RE = re.compile(r"\b(?:in|as)[ \t]+(?=\S)")


def _named_units(text: str) -> list[tuple[str, list[Unit]]]:
    """Units a sentence names for values it introduces: labels ("(kBq)", "unit: kBq") and
    "<quantity> in kBq"."""
    named = labelled_units(text)
    for m in _IN_UNIT_RE.finditer(text):
        units, stop = read_unit(text, m.end())
        if units and (stop == len(text) or not text[stop].isalnum()):
            named.append((text[m.end() : stop].strip(), units))
    return named


def _introducing_sentence(response: str, answer: str) -> str:
    """The paragraph just before the final answer (its opening fence left out): "Here is the
    result (activity in kBq, fraction remaining):"."""
    at = response.rfind(answer)
    if at <= 0:
        return ""
    before = _OPENING_FENCE_RE.sub("", response[max(0, at - 400) : at])
    parts = _BLANK_LINE_RE.split(before.rstrip())
    return parts[-1] if parts else ""


_OPENING_FENCE_RE = re.compile(r"(?:```|~~~)[\w+-]*[ \t]*\n?[ \t]*$")


def _check_units(inp: CheckInput, req: Requirement, whole: bool) -> Verdict:
    if whole:
        text, where = inp.response, "the response"
        bare = _bare_in_structured_answer(inp.response)
        if bare:
            return Verdict.failed(
                f"the answer block gives {bare!r} without a unit while its other values "
                f"carry one ({req.show()} required for every value)"
            )
    else:
        region = answer_region(inp.response, req.units)
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
    if req.family:
        return _check_family(text, with_unit, where, req)
    if not whole and not with_unit:
        # a unit written without a quantity is no quantity in it: a label "(kJ/mol)" or
        # "unit: kJ/mol" names the unit of a number in scope, never stands alone
        if not found:
            return Verdict.failed(f"no number with a unit in {where}: {clip(text)!r}")
        labels = labelled_units(clean_unit_text(text))
        for shown, units in labels:
            if carries(units, req.units):
                return Verdict.passed(f"{where} names the unit {shown!r} = {req.show()}")
        return Verdict.failed(
            f"no unit after the numbers in {where} ({', '.join(q.number for q in found[:3])}); "
            f"{req.show()} required"
        )
    missing = [u for u in req.units if not any(carries(q.units, [u]) for q in with_unit)]
    if not whole and not missing:
        # the answer gives a quantity of a required kind in another unit ("d = 4.8 × 10⁻⁶ m"
        # where µm was asked): not in the required unit, unless it is a conversion beside
        # one that is ("50.0 µm = 5.0 × 10⁻⁵ m", "12 miles (19 km)")
        cleaned = clean_unit_text(text)
        other = _other_unit_of_required_kind(cleaned, found, req)
        if other:
            return Verdict.failed(
                f"{where} gives {_show_quantity(other)}, a quantity of the kind of "
                f"{req.show()} in another unit (required, from the {req.source})"
            )
    if whole:
        # a count per amount also measures what its amount alone does (cm^-3 for defects/cm^3)
        dims = {dimension(v) for u in req.units for v in (u, without_counts(u))}
        wrong = [
            q
            for q in with_unit
            if not carries(q.units, req.units) and dimension(q.units[0]) in dims
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
    hits = [q for q in with_unit if carries(q.units, req.units)]
    return Verdict.passed(
        f"{len(hits)} quantit{'y' if len(hits) == 1 else 'ies'} in {where} in {req.show()} "
        f"(from the {req.source}), e.g. {_show_quantity(hits[0])}"
    )


_CONVERSION_GAP_RE = re.compile(r"[ \t]*(?:=|≈|~|\(|\[|,?[ \t]*i\.e\.,?|or)[ \t]*\Z")


def _other_unit_of_required_kind(
    cleaned: str, found: list[Quantity], req: Requirement
) -> Quantity | None:
    """The first quantity whose dimension is a required unit's but whose unit is not
    required, and which is no conversion beside a quantity in a required unit."""
    dims = {dimension(u) for u in req.units}
    for i, q in enumerate(found):
        if not q.units or carries(q.units, req.units) or dimension(q.units[0]) not in dims:
            continue
        if _bracketed(cleaned, q.start):
            continue
        before = found[i - 1] if i else None
        after = found[i + 1] if i + 1 < len(found) else None
        end = q.start + len(q.number)
        gap_after = cleaned[end : after.start].replace(q.unit_text, "", 1) if after else ""
        gap_before = (
            cleaned[before.start + len(before.number) : q.start].replace(before.unit_text, "", 1)
            if before
            else ""
        )
        if (after and carries(after.units, req.units) and _CONVERSION_GAP_RE.match(gap_after)) or (
            before and carries(before.units, req.units) and _CONVERSION_GAP_RE.match(gap_before)
        ):
            continue
        return q
    return None


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
    # a ratio or a count (5 atoms) is still a pure number
    physical = [q for q in with_unit if {b for b, _ in dimension(q.units[0])} - {"ratio", "count"}]
    if physical:
        return Verdict.failed(
            f"dimensionless value required (from the {source}) but {where} has "
            f"{', '.join(_show_quantity(q) for q in physical[:3])}"
        )
    return Verdict.passed(
        f"dimensionless value (from the {source}) in {where}: {_show_quantity(found[-1])}"
    )


def _bracketed(text: str, pos: int) -> bool:
    """Whether ``pos`` lies inside round or square brackets opened at most 30 characters
    before it: a conversion given beside the answer ("12 miles (19 km)")."""
    opened = max(text.rfind("(", max(0, pos - 30), pos), text.rfind("[", max(0, pos - 30), pos))
    return opened >= 0 and not any(c in text[opened:pos] for c in ")]")


def _check_family(text: str, with_unit: list[Quantity], where: str, req: Requirement) -> Verdict:
    """A unit family ("imperial units"): some quantity in scope is in a unit of the family,
    and every quantity of a kind the family decides (length, mass, temperature, ...) is,
    except a conversion in brackets beside one ("12 miles (19 km)")."""
    decided = [q for q in with_unit if family_dimension(q.units[0])]
    good = [q for q in decided if in_family(q.units[0], req.family)]
    if not good:
        seen = ", ".join(_show_quantity(q) for q in with_unit[:3]) or "none"
        return Verdict.failed(
            f"no quantity in {where} in {req.show()} (required, from the {req.source}); "
            f"found: {seen}"
        )
    cleaned = clean_unit_text(text)
    bad = [
        q
        for q in decided
        if not in_family(q.units[0], req.family) and not _bracketed(cleaned, q.start)
    ]
    if bad:
        return Verdict.failed(
            f"{len(bad)} quantit{'y' if len(bad) == 1 else 'ies'} in {where} not in "
            f"{req.show()}: {', '.join(_show_quantity(q) for q in bad[:3])}"
        )
    return Verdict.passed(
        f"{len(good)} quantit{'y' if len(good) == 1 else 'ies'} in {where} in {req.show()} "
        f"(from the {req.source}), e.g. {_show_quantity(good[0])}"
    )
