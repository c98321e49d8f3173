"""Checkers of the geography constraints of the SciMIF catalogue. The unit and method
constraints share one implementation with the other disciplines (``unit_check.py``,
``methods.py``); the analysis steps are judged (``judged.py``); the address checker is
``address.py``. Decision rule:

* ``geography_scene_option_constraint``: an attribute template first (parameters, else
  question): at least two attributes, each with its own quoted alternatives, written
  ``"attr": "a" | "b",`` or ``- attr: ["a", "b"]`` or ``['a', 'b'] for attr`` (a quoted
  alternative may hold a slash: "dusk/dawn" is one label). The answer (final answer if it
  holds the attributes, else the response) gives each attribute by its last ``attr: value``
  (JSON or not); pass iff every attribute is there and takes one of ITS OWN labels (case,
  "_", "-" and spaces alike: "driving surface" = "driving_surface"; "front/back" is not a
  label of front | back | side) and, when the answer is a JSON object, it has no attribute
  the template lacks. Without a template: the labels as ``general_choose_from`` reads its
  options (its private helpers are imported, not copied). Scope: the final answer (box /
  marker) if any; else the first sentence when the question asks for the label at the
  beginning / first, else the last non-empty line. Pass iff exactly one distinct label is
  named there.
"""

from __future__ import annotations

import ast
import json
import re
from itertools import islice

from sci_tasks.metrics.constraints.answers import (
    final_answer,
    last_content_line,
)
from sci_tasks.metrics.constraints.base import (
    CheckInput,
    register,
    register_judged,
)
from sci_tasks.metrics.constraints.judged import STEPS
from sci_tasks.metrics.constraints.methods import check_method
from sci_tasks.metrics.constraints.options import named_options, read_options
from sci_tasks.metrics.constraints.text import (
    Span,
    clean_parameters,
    clip,
    non_empty_lines,
)
from sci_tasks.metrics.constraints.unit_check import check_units
from sci_tasks.metrics.verdict import Verdict

# =========================================================================== scene option

_BEGIN_RE = re.compile(
    r"\b(?:at|in)[ \t]+the[ \t]+(?:very[ \t]+)?(?:beginning|start)\b|\b(?:begin|start)[ \t]+"
    r"(?:your[ \t]+)?(?:response|answer|reply)[ \t]+with\b|\bfirst\b[^.\n]{0,40}\bthen\b",
    re.I,
)


def _first_sentence(response: str) -> Span | None:
    lines = non_empty_lines(response)
    if not lines:
        return None
    line = lines[0]
    m = re.search(r"[.!?;:](?=\s|$)|[ \t][-–—][ \t]", line.text)
    body = line.text[: m.start()] if m else line.text
    return Span(body, line.start, line.start + len(body), "first sentence")


# Attribute templates (several labels, one per attribute), in the three released forms:
#   "lighting_condition": "dusk/dawn" | "day" | "night",     (JSON-like, one line each)
#   - lighting_condition: ["dusk/dawn", "day", "night"]      (a list per attribute)
#   ['dusk/dawn', 'day', 'night'] for lighting_condition;     (lists "for" attributes)
# An alternative is a quoted string: "dusk/dawn" is ONE alternative.
_ATTR_LINE_RE = re.compile(
    r"^[ \t]*(?:[-*•][ \t]+)?[\"'`]?(?P<attr>[A-Za-z][\w-]{0,40})[\"'`]?[ \t]*[:=]"
    r"[ \t]*(?P<rest>[\"'\[].*)$",
    re.M,
)
_ATTR_FOR_RE = re.compile(
    r"\[(?P<rest>[^\[\]\n]{1,400})\][ \t]+for[ \t]+(?:the[ \t]+)?[\"'`]?"
    r"(?P<attr>[A-Za-z][\w-]{0,40})"
)
_QUOTED_RE = re.compile(r"\"([^\"\n]{1,80})\"|'([^'\n]{1,80})'")
_LABEL_SEP_RE = re.compile(r"[\s_-]+")
MAX_SCENE_ATTRIBUTES = 50


def label_key(text: str) -> str:
    """Labels compare case-insensitively, with "_", "-" and spaces alike
    ("driving_surface" = "driving surface")."""
    return _LABEL_SEP_RE.sub(" ", text.strip().strip("\"'`*").lower()).strip()


def _alternatives(rest: str) -> list[str]:
    rest = rest.split("#", 1)[0]
    if "|" not in rest and "[" not in rest and "," not in rest:
        return []
    return [a or b for a, b in _QUOTED_RE.findall(rest)]


def scene_attributes(text: str) -> dict[str, list[str]]:
    """Each attribute of a label template in ``text`` with its own alternatives (at least
    two each, at least two attributes); {} when ``text`` holds no such template (a single
    label list is read as ``general_choose_from`` reads options)."""
    found: dict[str, list[str]] = {}
    for m in _ATTR_LINE_RE.finditer(text):
        if _ATTR_FOR_RE.search(m.group("rest")):
            continue  # "[...] for attr; [...] for attr2" on one line: read below
        alts = _alternatives(m.group("rest"))
        if len(alts) >= 2:
            found.setdefault(m.group("attr").strip(), alts)
    for m in _ATTR_FOR_RE.finditer(text):
        alts = [a or b for a, b in _QUOTED_RE.findall(m.group("rest"))]
        if len(alts) >= 2:
            found.setdefault(m.group("attr").strip(), alts)
    if len(found) < 2:
        return {}
    return dict(islice(found.items(), MAX_SCENE_ATTRIBUTES))


def _last_json_object(text: str, tries: int = 20) -> dict | None:
    """The last ``{...}`` of ``text`` that parses as a JSON object or a Python dict literal
    (``{'weather': 'clear'}``, as a reply asked for a dictionary writes it; a few tries)."""
    end = text.rfind("}")
    if end < 0:
        return None
    start = end
    for _ in range(tries):
        start = text.rfind("{", 0, start)
        if start < 0:
            return None
        body = text[start : end + 1]
        try:
            value = json.loads(body)
        except ValueError:
            try:
                value = ast.literal_eval(body) if len(body) < 10_000 else None
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                continue
        if isinstance(value, dict):
            return value
    return None


def _attribute_values(text: str, attrs: list[str]) -> dict[str, str]:
    """The value the answer gives each attribute: the last ``attr: value`` (quoted or bare,
    JSON or not) in ``text``."""
    out: dict[str, str] = {}
    for attr in attrs:
        key = r"[ \t_-]*".join(re.escape(w) for w in _LABEL_SEP_RE.split(attr) if w)
        pattern = re.compile(
            rf"(?<![\w]){key}(?![\w])[\"'`*]{{0,3}}[ \t]*[:=][ \t]*\*{{0,2}}[ \t]*"
            r"(?:\"([^\"\n]*)\"|'([^'\n]*)'|(\[[^\]\n]*\])|([^,}\n]*))",
            re.I,
        )
        last = None
        for last in pattern.finditer(text):  # noqa: B007 - we want the last one
            pass
        if last is not None:
            out[attr] = next(g for g in last.groups() if g is not None).strip()
    return out


def _scene_attribute_verdict(inp: CheckInput, attrs: dict[str, list[str]], source: str) -> Verdict:
    response = inp.response
    span = final_answer(response, to_end=True)
    text = response
    if span is not None and _attribute_values(span.text, list(attrs)):
        text = span.text
    values = _attribute_values(text, list(attrs))
    # a JSON object holding the attributes is the answer, whatever the explanation after it
    # says of them ("- **lighting_condition:** the sky is black ... -> night")
    answer = _last_json_object(response)
    named = {label_key(str(k)): v for k, v in (answer or {}).items() if isinstance(v, str)}
    if any(label_key(a) in named for a in attrs):
        values = {a: named[label_key(a)] for a in attrs if label_key(a) in named}
        text = response
    if not values:
        return Verdict.failed(f"none of the {len(attrs)} attributes ({', '.join(attrs)}) answered")
    for attr, alts in attrs.items():
        if attr not in values:
            return Verdict.failed(f"attribute {attr!r} missing (one of {', '.join(alts)} required)")
        value = values[attr]
        if label_key(value) not in {label_key(a) for a in alts}:
            return Verdict.failed(
                f"{attr} = {clip(value)!r} is not one of its labels ({', '.join(alts)})"
            )
    obj = _last_json_object(text)
    keys = {label_key(a) for a in attrs}
    if obj is not None and keys & {label_key(str(k)) for k in obj}:
        extra = [str(k) for k in obj if label_key(str(k)) not in keys]
        if extra:
            return Verdict.failed(f"attribute(s) not in the template: {', '.join(extra[:3])}")
    shown = ", ".join(f"{a}={values[a]}" for a in list(attrs)[:4])
    return Verdict.passed(
        f"each of {len(attrs)} attributes (template from the {source}) takes one of its own "
        f"labels: {shown}"
    )


@register("geography_scene_option_constraint")
def scene_option_constraint(inp: CheckInput) -> Verdict:
    params = clean_parameters(inp.parameters)
    for text, where in ((params, "parameters"), (inp.question or "", "question")):
        attrs = scene_attributes(text) if text else {}
        if attrs:
            return _scene_attribute_verdict(inp, attrs, where)
    options, source = read_options(params, inp.question or "")
    if not options:
        return Verdict.unscored("scene labels not found in parameters or question")
    span = final_answer(inp.response)
    if span is None:
        if _BEGIN_RE.search(inp.question or "") or _BEGIN_RE.search(params):
            span = _first_sentence(inp.response)
        else:
            span = last_content_line(inp.response)
    if span is None:
        return Verdict.failed("empty response")
    where = (
        f"the {span.source}"
        if span.source in ("first sentence", "last line")
        else (f"the final answer ({span.source})")
    )
    named = named_options(options, span.text)
    if len(named) == 1:
        return Verdict.passed(
            f"one of {len(options)} scene labels (from the {source}) in {where}: {named[0]}"
        )
    if not named:
        shown = ", ".join(str(o) for o in options[:4]) + (" ..." if len(options) > 4 else "")
        return Verdict.failed(f"no scene label ({shown}) in {where}: {clip(span.text)!r}")
    return Verdict.failed(
        f"{len(named)} scene labels in {where}: {', '.join(str(o) for o in named[:3])}"
    )


register("geography_unit_consistency")(check_units)
register("geography_method_constraint")(check_method)
register_judged(STEPS, "geography_analysis_steps_constraint")
