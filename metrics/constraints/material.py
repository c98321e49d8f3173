"""Checkers of the material constraints of the SciMIF catalogue (released files spell them
``materials_*``: aliases in ``catalogue.csv``). The characterization technique
checker is ``techniques.py``. Units and methods share one implementation with
the other disciplines; analysis steps are judged. Decision rules:

* ``material_property_prediction_constraint``: discrete when the parameters (else the
  question) say discrete / label / class / classify / category / qualitative or list the
  labels; continuous when they say continuous / numerical / quantitative / value; the
  question decides only when exactly one kind is stated. Discrete: pass iff exactly one
  label of the set (parameters "label: a / b / c", or the question's "(a, b or c)", "as a,
  b or c", "whether ... is a, b or c") is named in the final answer (box / marker, else the
  last line with content); without a set, iff the answer is 1-6 words with no number.
  "X is a discrete property." / "X is a continuous property." is the whole requirement
  in many released parameters; a name "A_or_B" gives the labels A, B; with no label set a
  discrete answer is one short label. With nothing stated, a yes/no question between two
  labels ("Is the gap direct or indirect?", "whether ... or ...") is discrete with those
  labels and a value asked for in a unit ("in eV") is continuous.
  Continuous: pass iff the final answer (box / marker, else the last code block or
  paragraph) holds a number, carrying the required unit when one is stated (a unit named
  next to the number in a tag / quotes / "unit:" also counts).
"""

from __future__ import annotations

import re

from sci_tasks.metrics.constraints.answers import (
    code_blocks,
    final_answer,
    final_or,
    last_content_line,
)
from sci_tasks.metrics.constraints.base import (
    CheckInput,
    register,
    register_judged,
)
from sci_tasks.metrics.constraints.judged import STEPS
from sci_tasks.metrics.constraints.methods import check_method
from sci_tasks.metrics.constraints.options import Option, chosen_options, read_options, split_items
from sci_tasks.metrics.constraints.quantities import TooManyNumbers, labelled_units, quantities
from sci_tasks.metrics.constraints.text import (
    clean_parameters,
    clip,
    paragraphs,
    sentences,
    strip_decoration,
    words_re,
)
from sci_tasks.metrics.constraints.unit_check import check_units
from sci_tasks.metrics.constraints.unit_grammar import clean_unit_text, parse_unit
from sci_tasks.metrics.constraints.unit_requirement import required_units
from sci_tasks.metrics.constraints.units import carries, in_family
from sci_tasks.metrics.verdict import Verdict

# =========================================================================== property

_DISCRETE_RE = words_re(
    "discrete",
    "labels?",
    "categor(?:y|ies|ical)",
    "classif(?:y|ication|ied)",
    "class(?:es)?",
    "qualitative",
    "which type",
)
_CONTINUOUS_RE = words_re(
    "continuous",
    "numerical",
    "numeric",
    "quantitative",
    r"real[\x20\t-]valued",  # a space, tab or hyphen (phrases() reads " " as [ \t]+)
    "(?:a|one|single) (?:numerical |continuous )?value",
)
_LABEL_LEAD_RE = re.compile(
    r"\b(?:whether|as|into|is|be)[ \t]+(?:an?[ \t]+|the[ \t]+)?(?:(?:discrete[ \t]+)?label[ \t]+)?",
    re.I,
)
_ARTICLE_RE = re.compile(r"^(?:an?|the)[ \t]+", re.I)
_LABEL_END = r"[.;:!?]|,[ \t]+(?:and|then)[ \t]|[ \t]and[ \t]+(?:wrap|give|put|state|write)"


# "Direct_or_indirect is a discrete property.": the property's name lists its labels.
_NAMED_PROPERTY_RE = re.compile(
    r"^[ \t]*(?:the[ \t]+)?[\"'`]?([A-Za-z][\w-]{0,60})[\"'`]?[ \t]+is[ \t]+an?[ \t]+"
    r"(?:discrete|categorical|continuous|numerical)\b",
    re.I,
)
_OR_NAME_RE = re.compile(r"[_ -]or[_ -]", re.I)


_WHETHER_RE = re.compile(r"\bwhether\b[^.?!\n]{0,80}[ \t]or[ \t]", re.I)
_EITHER_RE = re.compile(
    r"(?:is|are|does|do|will|would|can|should|was|were)\b[^?\n]*?[ \t]"
    r"([A-Za-z][\w-]*)[ \t]+or[ \t]+([A-Za-z][\w-]*)[ \t]*\?",
    re.I,
)


def _label_set(params: str, question: str) -> tuple[list[Option], str]:
    options, _ = read_options(params, "")
    if len(options) >= 2:
        return options, "parameters"
    for sentence in sentences(question):
        either = _EITHER_RE.match(sentence[:500])
        if either:
            return [Option("", either.group(1)), Option("", either.group(2))], "question"
    named = _NAMED_PROPERTY_RE.match(params)
    if named and _OR_NAME_RE.search(named.group(1)):
        labels = [w.replace("_", " ").strip() for w in _OR_NAME_RE.split(named.group(1))]
        if len(labels) >= 2 and all(labels):
            return [Option("", w) for w in labels], "property name in the parameters"
    found: list[list[str]] = []
    for sentence in sentences(question):
        if not (_DISCRETE_RE.search(sentence) or re.search(r"\bwhether\b", sentence, re.I)):
            continue
        options, _ = read_options("", sentence)
        if len(options) >= 2:
            found.append([str(o) for o in options])
            continue
        groups = [m.group(1) for m in re.finditer(r"\(([^()]{3,120})\)", sentence)]
        groups += [sentence[m.end() :] for m in _LABEL_LEAD_RE.finditer(sentence)]
        for group in groups:
            group = re.split(_LABEL_END, group)[0]
            items = [
                _ARTICLE_RE.sub("", part).strip(" \t.,\"'")
                for it in split_items(group)
                for part in re.split(r"[ \t]+(?:or|and)[ \t]+", it)
            ]
            items = [it for it in items if it]
            if 2 <= len(items) <= 12 and all(0 < len(it.split()) <= 4 for it in items):
                found.append(items)
    if not found:
        return [], ""
    best = min(found, key=lambda items: max(len(it.split()) for it in items))
    return [Option("", it) for it in best], "question"
    return [], ""


def _property_kind(params: str, question: str) -> tuple[str, str]:
    for text, source in ((params, "parameters"), (question, "question")):
        if not text:
            continue
        discrete = bool(_DISCRETE_RE.search(text))
        continuous = bool(_CONTINUOUS_RE.search(text))
        if discrete != continuous:
            return ("discrete" if discrete else "continuous"), source
        if source == "parameters" and not (discrete or continuous):
            options, _ = read_options(params, "")
            if len(options) >= 2:
                return "discrete", source
    # Nothing stated: a yes/no question between two labels ("Is the gap direct or
    # indirect?") asks for a label; a value asked for in a unit ("in eV") is continuous.
    if any(_EITHER_RE.match(s[:500]) or _WHETHER_RE.search(s[:500]) for s in sentences(question)):
        return "discrete", "question"
    req = required_units("", question)
    if req is not None and req.units:
        return "continuous", "question"
    return "", ""


@register("material_property_prediction_constraint")
def property_prediction_constraint(inp: CheckInput) -> Verdict:
    params = clean_parameters(inp.parameters)
    question = inp.question or ""
    kind, source = _property_kind(params, question)
    if not kind:
        return Verdict.unscored(
            "whether a discrete label or a continuous value is required is not stated"
        )
    if kind == "discrete":
        return _discrete_prediction(inp, params, question, source)
    return _continuous_prediction(inp, params, question, source)


_DIGIT_RE = re.compile(r"[0-9]")


def _discrete_prediction(inp: CheckInput, params: str, question: str, source: str) -> Verdict:
    span = final_or(inp.response, last_content_line)
    if span is None:
        return Verdict.failed("empty response (a discrete label required)")
    where = f"the final answer ({span.source})"
    labels, label_source = _label_set(params, question)
    if not labels:
        body = strip_decoration(span.text)
        words = body.split()
        if _DIGIT_RE.search(body):  # any digit: a label has none
            return Verdict.failed(
                f"a number in {where} where a discrete label is required: {clip(body)!r}"
            )
        if not 1 <= len(words) <= 6:
            return Verdict.failed(
                f"{where} is not a short label ({len(words)} words): {clip(body)!r}"
            )
        return Verdict.passed(f"discrete label (from the {source}) in {where}: {clip(body)!r}")
    named, how = chosen_options(labels, span.text)
    shown = ", ".join(str(o) for o in labels[:5])
    if len(named) == 1:
        return Verdict.passed(
            f"one discrete label of {shown} (from the {label_source}) in {where}: {named[0]}{how}"
        )
    if not named:
        return Verdict.failed(f"none of the labels ({shown}) in {where}: {clip(span.text)!r}")
    return Verdict.failed(f"{len(named)} labels in {where}: {', '.join(str(o) for o in named)}")


def _continuous_prediction(inp: CheckInput, params: str, question: str, source: str) -> Verdict:
    span = final_answer(inp.response)
    if span is not None and span.text.strip():
        text, where = span.text, f"the final answer ({span.source})"
    else:
        blocks = [b for b in code_blocks(inp.response) if b.body.strip()]
        paras = paragraphs(inp.response)
        if blocks:
            text, where = blocks[-1].body, "the last code block"
        elif paras:
            text, where = paras[-1].text, "the last paragraph"
        else:
            return Verdict.failed("empty response (a continuous value required)")
    cleaned = clean_unit_text(text)
    try:
        found = quantities(cleaned)
    except TooManyNumbers as exc:
        return Verdict.unscored(f"{exc} in {where}: not checked")
    if not found:
        return Verdict.failed(f"no numerical value in {where}: {clip(text)!r}")
    req = required_units(params, question)
    if req is not None and req.family:  # "imperial units": a value in a unit of the family
        in_family_ = [q for q in found if q.units and in_family(q.units[0], req.family)]
        if in_family_:
            q = in_family_[-1]
            return Verdict.passed(
                f"numerical value in {where}: {q.number} {q.unit_text} ({req.show()})"
            )
        return Verdict.failed(
            f"value {found[-1].number} in {where} is in no {req.show()} (from the {req.source})"
        )
    if req is None or req.si or not req.units:
        return Verdict.passed(f"numerical value in {where}: {found[-1].number} (from the {source})")
    with_unit = [q for q in found if carries(q.units, req.units)]
    if with_unit:
        q = with_unit[-1]
        return Verdict.passed(
            f"numerical value in {where}: {q.number} {q.unit_text} (from the {source})"
        )
    for shown, units in labelled_units(cleaned) + _tagged_units(cleaned):
        if carries(units, req.units):
            return Verdict.passed(
                f"numerical value {found[-1].number} with unit {shown!r} in {where}"
            )
    if not any(q.units for q in found):
        # a bare number answers "give a single numerical value, expressed in eV" ({"band_gap":
        # 4.45}); whether the unit is written is the unit constraint's question
        return Verdict.passed(
            f"numerical value in {where}: {found[-1].number} (no unit written; "
            f"{req.show()} asked, from the {req.source})"
        )
    return Verdict.failed(
        f"value {found[-1].number} in {where} is not in {req.show()} (from the {req.source})"
    )


_TAGGED_RE = re.compile(r"[>\"'`]([^<>\"'`\n]{1,20})[<\"'`]")


def _tagged_units(text: str) -> list[tuple[str, list]]:
    out = []
    for m in _TAGGED_RE.finditer(text):
        units = parse_unit(m.group(1))
        if units:
            out.append((m.group(1), units))
    return out


register("material_unit_consistency")(check_units)
register("material_method_constraint")(check_method)
register_judged(STEPS, "material_analysis_steps_constraint")
