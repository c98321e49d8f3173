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
The requirement is read in ``unit_requirement.py``, the answer's region and the places
that state a bare value's unit in ``unit_answer.py``.
Scope: the whole response when the parameters or the unit sentence say all / every / each /
throughout / entire / whole / consistent; otherwise the final answer (``answer_region``): the
last ``\\boxed{}`` or the answer after the last answer marker (with the rest of its line, so
``\\boxed{2.09} Å`` counts), else a closing fenced block (one remark after it allowed), else
a bold result line (Markdown or HTML), else the last non-empty line that holds a number; a
table with a unit column is read row by row. A final answer in another unit of a required
kind fails unless it is a conversion beside the required unit.
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

import re

from sci_tasks.metrics.constraints.answers import final_answer
from sci_tasks.metrics.constraints.base import (
    CheckInput,
)
from sci_tasks.metrics.constraints.quantities import (
    Quantity,
    TooManyNumbers,
    labelled_units,
    quantities,
)
from sci_tasks.metrics.constraints.text import (
    clean_parameters,
    clip,
)
from sci_tasks.metrics.constraints.unit_answer import (
    answer_region,
    answer_section,
    bare_in_structured_answer,
    named_units,
    places_stating_the_unit,
    same_value_in_unit,
    show_quantity,
)
from sci_tasks.metrics.constraints.unit_grammar import clean_unit_text
from sci_tasks.metrics.constraints.unit_requirement import (
    Requirement,
    required_units,
    whole_scope,
)
from sci_tasks.metrics.constraints.units import (
    carries,
    dimension,
    family_dimension,
    in_family,
    is_si,
    render,
    without_counts,
)
from sci_tasks.metrics.verdict import Verdict


def check_units(inp: CheckInput) -> Verdict:
    params = clean_parameters(inp.parameters)
    req = required_units(params, inp.question or "")  # read once, for both passes below
    if req is None:
        shown = f"parameters {clip(params)!r}" if params else "parameters empty"
        return Verdict.unscored(f"required unit not found ({shown}; none stated in the question)")
    verdict = _units_verdict(inp, req)
    if verdict.score == 1.0 and (bare := _asked_with_unit_but_bare(inp)):
        return Verdict.failed(f"the question asks for the {bare} with its unit; {verdict.reason}")
    return verdict


def _units_verdict(inp: CheckInput, req: Requirement) -> Verdict:
    whole = whole_scope(req.context)
    verdict = _check_units(inp, req, whole)
    if verdict.score != 0.0 or whole:
        return verdict
    # an answer of several quantities: the one asked in this unit may be another line of
    # the answer section than the last ("- Concentration: 1.6e9 CFU/mL / - Total: 4.0e11 CFU")
    section = _in_answer_section(inp.response, req)
    if section is not None:
        return Verdict.passed(f"{section}; {verdict.reason}")
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
    # "{'d': 2.354, 'a': 4.077}  # both in Å": the answer names the unit of its bare values
    for shown, units in named_units(clean_unit_text(region[0])) if own else []:
        if carries(units, req.units):
            return Verdict.passed(
                f"the final answer names its values' unit {shown!r} = {req.show()}; "
                f"{verdict.reason}"
            )
    numbers = [q.number for q in own]
    for text, where, any_precision in places_stating_the_unit(
        inp.response, region[0], numbers, inp.question or ""
    ):
        if where.startswith("the sentence introducing"):
            for shown, units in named_units(clean_unit_text(text)):
                if carries(units, req.units):
                    return Verdict.passed(
                        f"{where} names its unit {shown!r} = {req.show()}; {verdict.reason}"
                    )
            continue
        hit = same_value_in_unit(text, numbers, req, any_precision)
        if hit is not None:
            return Verdict.passed(
                f"{where} gives {show_quantity(hit)} in {req.show()} "
                f"(from the {req.source}); {verdict.reason}"
            )
    return verdict


# "also give the slope of the line with its unit": that quantity, named in the answer
_WITH_ITS_UNIT_RE = re.compile(
    r"\b(?P<name>[a-z]{3,})(?:[ \t]+of[ \t]+(?:the[ \t]+)?[a-z]+)?"
    r"[ \t]+with[ \t]+its[ \t]+units?\b",
    re.I,
)
_BARE_AFTER_RE = re.compile(r"[ \t*$]*(?:$|[,;|)]|\.(?![0-9]))", re.M)


def _asked_with_unit_but_bare(inp: CheckInput) -> str:
    """The quantity the question asks to give "with its unit" when the answer (the marked
    final answer, else the reply's last section) last gives it as a bare number
    ("slope = 0.040", "**Slope = 0.040**"), or ""."""
    asked = _WITH_ITS_UNIT_RE.search(inp.question or "")
    if asked is None:
        return ""
    span = final_answer(inp.response)
    text = span.text if span is not None else _last_section(inp.response)
    name = asked["name"]
    said = None
    for said in re.finditer(  # noqa: B007 - the last one is the answer's
        rf"\b{re.escape(name)}\b[^=:\n]{{0,20}}[=:][ \t*$]*(?P<n>[-−]?[0-9][0-9.,]*)", text, re.I
    ):
        pass
    if said is not None and _BARE_AFTER_RE.match(text, said.end("n")):
        return name.lower()
    return ""


def _last_section(response: str) -> str:
    """The reply from its last Markdown heading on (its results), else its last 1,500
    characters."""
    heading = response.rfind("\n#")
    return response[heading:] if heading >= 0 else response[-1500:]


def _in_answer_section(response: str, req: Requirement) -> str | None:
    """What the answer section states in the required units, when it gives each of them and
    no quantity of a required kind in another unit; None otherwise."""
    if req.si or req.dimensionless or req.family:
        return None
    section = clean_unit_text(answer_section(response))
    if not section:
        return None
    try:
        found = quantities(section)
    except TooManyNumbers:
        return None
    hits = [next((q for q in found if carries(q.units, [u])), None) for u in req.units]
    if any(h is None for h in hits) or _other_unit_of_required_kind(section, found, req):
        return None
    shown = ", ".join(show_quantity(h) for h in hits if h is not None)
    return f"the answer section gives {shown} in {req.show()} (from the {req.source})"


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
        shown.append(show_quantity(hit))
    return Verdict.passed(
        f"the reply states each of the units {req.show()} with its values "
        f"({', '.join(shown)}); {verdict.reason}"
    )


def _check_units(inp: CheckInput, req: Requirement, whole: bool) -> Verdict:
    if whole:
        text, where = inp.response, "the response"
        bare = bare_in_structured_answer(inp.response)
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
                f"{where} gives {show_quantity(other)}, a quantity of the kind of "
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
                f"same kind not in {req.show()}: {', '.join(show_quantity(q) for q in wrong[:3])}"
            )
    if missing:
        seen = ", ".join(show_quantity(q) for q in with_unit[:3]) or "none"
        return Verdict.failed(
            f"{where} has no quantity in {' and '.join(render(u) for u in missing)} "
            f"(required, from the {req.source}); found: {seen}"
        )
    hits = [q for q in with_unit if carries(q.units, req.units)]
    return Verdict.passed(
        f"{len(hits)} quantit{'y' if len(hits) == 1 else 'ies'} in {where} in {req.show()} "
        f"(from the {req.source}), e.g. {show_quantity(hits[0])}"
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
            f"non-SI unit in {where}: {', '.join(show_quantity(q) for q in bad[:3])}"
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
            f"{', '.join(show_quantity(q) for q in physical[:3])}"
        )
    return Verdict.passed(
        f"dimensionless value (from the {source}) in {where}: {show_quantity(found[-1])}"
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
        seen = ", ".join(show_quantity(q) for q in with_unit[:3]) or "none"
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
            f"{req.show()}: {', '.join(show_quantity(q) for q in bad[:3])}"
        )
    return Verdict.passed(
        f"{len(good)} quantit{'y' if len(good) == 1 else 'ies'} in {where} in {req.show()} "
        f"(from the {req.source}), e.g. {show_quantity(good[0])}"
    )
