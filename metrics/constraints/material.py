"""Checkers of the material constraints of the SciMIF catalogue (released files spell them
``materials_*``: aliases in ``catalogue.csv``). The technique table is the data file
``techniques.json`` beside this module. Units and methods share one implementation with
the other disciplines; analysis steps are judged. Decision rules:

* ``material_characterization_technique_format_constraint``: ``TECHNIQUES`` lists each
  technique's abbreviations and full names (phrases; any separators between their words;
  microscope = microscopy, spectrometer = spectrometry, ...). Abbreviations are whole tokens
  or hyphen-parts ("SEM-EDS"), case-insensitive except short or English-word ones (BET,
  APT, CT, MS, CV, ...: exact case; in text with no capital letter at all, whose case a
  letter-case constraint forced, the ones of three letters or more that are no English
  word are read ignoring case, "sem" names SEM, and the others when they are the whole
  text, "bet"). Scope: the final answer (box / marker), else the first
  non-empty line that names a technique, else the whole response. Pass iff a
  technique is named there and, when a format is stated: "abbreviation only" -> an
  abbreviation and no full name; "full name only" / "do not abbreviate" -> a full name and
  no abbreviation; "full name (abbreviation)" -> the full name then the abbreviation in
  brackets; both named ("full name, abbreviation" / tuple) -> both, in the stated order;
  "full name" / "abbreviation" alone -> that form present.
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

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

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
    non_empty_lines,
    paragraphs,
    sentences,
    strip_decoration,
)
from sci_tasks.metrics.constraints.unit_check import check_units
from sci_tasks.metrics.constraints.unit_grammar import clean_unit_text, parse_unit
from sci_tasks.metrics.constraints.unit_requirement import required_units
from sci_tasks.metrics.constraints.units import carries, in_family
from sci_tasks.metrics.verdict import Verdict

# =========================================================================== techniques


@dataclass(frozen=True)
class Technique:
    name: str
    abbreviations: tuple[str, ...]
    full: str  # full names: lower-case phrases (hyphens as spaces) separated by "|"


TECHNIQUES_FILE = Path(__file__).with_name("techniques.json")


def _load_techniques(path: Path = TECHNIQUES_FILE) -> tuple[Technique, ...]:
    rows = json.loads(path.read_text(encoding="utf-8"))
    return tuple(Technique(r["name"], tuple(r["abbreviations"]), "|".join(r["full"])) for r in rows)


TECHNIQUES: tuple[Technique, ...] = _load_techniques()
# Abbreviations that are English words or short: matched with their exact case.
_EXACT_CASE = frozenset(
    "BET APT SEC CT MS CV TG CL PL ND OM IR MIP UPS AES SEM TEM STEM ESCA DSC GPC LEED".split()
)
# Of those, the English words: in lower-case text they name a technique only alone.
_WORD_ABBR = frozenset("BET APT SEC UPS STEM".split())
# Word forms in a response that name the same thing as the table's words.
_WORD_FORMS = {
    "microscope": "microscopy", "spectroscope": "spectroscopy", "spectrometer": "spectrometry",
    "diffractometry": "diffraction", "diffractometer": "diffraction", "calorimeter": "calorimetry",
    "magnetometer": "magnetometry", "tunnelling": "tunneling", "programed": "programmed",
    "analyses": "analysis", "measurements": "measurement", "tests": "test",
}  # fmt: skip


def _abbr_key(abbr: str) -> str:
    return re.sub(r"[-–/ ]", "", abbr).upper()


_ABBR_TECH: dict[str, tuple[Technique, str | None]] = {
    _abbr_key(a): (t, a if (a in _EXACT_CASE or len(a) <= 2) else None)
    for t in TECHNIQUES
    for a in t.abbreviations
}
# All abbreviations, upper case, separators optional: searched in the upper-cased text.
_ABBR_RE = re.compile(
    "|".join(
        "[-–/ ]?".join(re.escape(part) for part in re.split(r"[-–/ ]", a.upper()))
        for a in sorted({a for t in TECHNIQUES for a in t.abbreviations}, key=len, reverse=True)
    )
)
_FORM_VARIANTS: dict[str, list[str]] = {}
for _form, _word in _WORD_FORMS.items():
    _FORM_VARIANTS.setdefault(_word, [_word]).append(_form)
_PHRASE_TECH: dict[str, Technique] = {}
for _t in TECHNIQUES:
    for _phrase in _t.full.split("|"):
        _PHRASE_TECH[" ".join(_WORD_FORMS.get(w, w) for w in _phrase.split())] = _t


def _phrase_regex(phrase: str) -> str:
    words = []
    for w in phrase.split():
        forms = _FORM_VARIANTS.get(w, [w])
        words.append(
            "(?:" + "|".join(map(re.escape, forms)) + ")" if len(forms) > 1 else re.escape(w)
        )
    return r"[\W_]+".join(words)


# All full names, longest first, words separated by any non-word characters; searched in
# the lower-cased text (starts with literals: fast scanning; boundaries checked after).
_PHRASE_RE = re.compile(
    "|".join(_phrase_regex(p) for p in sorted(_PHRASE_TECH, key=len, reverse=True))
)
_SEPARATORS_RE = re.compile(r"[\W_]+")


@dataclass
class _TechHit:
    technique: Technique
    abbr_at: int = -1  # position of the first abbreviation, -1 when absent
    full_at: int = -1  # position of the first full name, -1 when absent
    abbr_bracketed: bool = False


def _whole_word(text: str, a: int, b: int, joiners: str = "") -> bool:
    before = text[a - 1] if a else " "
    after = text[b] if b < len(text) else " "
    return not (before.isalnum() or before in joiners) and not (after.isalnum() or after in joiners)


def _same_length(text: str, case: Callable[[str], str]) -> str:
    out = case(text)
    if len(out) != len(text):  # a few characters change length with case; keep positions
        out = "".join(c if len(case(c)) != 1 else case(c) for c in text)
    return out


def _tech_hits(text: str) -> list[_TechHit]:
    """Techniques named in ``text``, in order of first mention. Abbreviations are whole
    tokens (or hyphen-parts: "SEM-EDS"), case-insensitive except the short / English-word
    ones (``_EXACT_CASE``); full names are the table's phrases with any separators between
    their words, longest first and without overlap (so "infrared spectroscopy" inside
    "Fourier-transform infrared spectroscopy" is not counted)."""
    hits: dict[str, _TechHit] = {}
    upper = _same_length(text, str.upper)
    # Text without a capital letter had its case forced (an all-lowercase answer): there
    # the exact-case abbreviations are read ignoring case too ("sem" names SEM), except
    # the short and English-word ones, unless they are the whole text ("bet", "ms").
    lower_only = not any(map(str.isupper, text))
    alone = _SEPARATORS_RE.sub("", text).upper() if lower_only and len(text) < 40 else ""
    for k, m in enumerate(_ABBR_RE.finditer(upper)):
        if k >= 20_000:
            break
        a, b = m.span()
        if not _whole_word(upper, a, b):
            continue
        key = _abbr_key(m.group())
        found = _ABBR_TECH.get(key)
        if found is None:
            continue
        tech, exact = found
        if exact is not None and re.sub(r"[-–/ ]", "", text[a:b]) != re.sub(r"[-–/ ]", "", exact):
            forced = lower_only and (key == alone or (len(key) > 2 and key not in _WORD_ABBR))
            if not forced:
                continue
        h = hits.setdefault(tech.name, _TechHit(tech))
        if h.abbr_at < 0:
            h.abbr_at = j = a
            while j > 0 and a - j < 4 and text[j - 1] in " \t":
                j -= 1
            h.abbr_bracketed = j > 0 and text[j - 1] in "(["
    lower = _same_length(text, str.lower)
    for k, m in enumerate(_PHRASE_RE.finditer(lower)):
        if k >= 20_000:
            break
        if not _whole_word(lower, *m.span()):
            continue
        phrase = " ".join(_WORD_FORMS.get(w, w) for w in _SEPARATORS_RE.split(m.group()))
        named = _PHRASE_TECH.get(phrase)
        if named is None:
            continue
        h = hits.setdefault(named.name, _TechHit(named))
        if h.full_at < 0:
            h.full_at = m.start()
    return sorted(hits.values(), key=lambda h: min(p for p in (h.abbr_at, h.full_at) if p >= 0))


_ABBR_KEY = r"(?:abbreviation|abbreviated|acronym|abbr\.?|short[ \t]+form|initialism)s?"
_FULL_KEY = (
    r"(?:full[ \t]+(?:name|form|term)|complete[ \t]+name|spelled[ \t]+out|unabbreviated|"
    r"written[ \t]+out)"
)


def _technique_format(text: str) -> str:
    """any / abbr / abbr_only / full / full_only / full_then_abbr / abbr_then_full /
    full(abbr) / abbr(full)."""
    t = text.lower()
    abbr = re.search(_ABBR_KEY, t)
    full = re.search(_FULL_KEY, t)
    no_abbr = re.search(
        r"(?:do[ \t]+not|don't|never|without|no)[ \t]+(?:use[ \t]+(?:an?[ \t]+)?|an?[ \t]+)?"
        r"(?:abbreviat\w*|acronyms?)",
        t,
    )
    if full and no_abbr:
        return "full_only"
    if abbr and full:
        if re.search(_FULL_KEY + r"[ \t]*\([ \t]*" + _ABBR_KEY, t) or re.search(
            _ABBR_KEY + r"[ \t]+in[ \t]+(?:parenthes[ie]s|brackets)", t
        ):
            return "full(abbr)"
        if re.search(_ABBR_KEY + r"[ \t]*\([ \t]*" + _FULL_KEY, t) or re.search(
            _FULL_KEY + r"[ \t]+in[ \t]+(?:parenthes[ie]s|brackets)", t
        ):
            return "abbr(full)"
        return "full_then_abbr" if full.start() < abbr.start() else "abbr_then_full"
    only = r"(?:only|just|solely|alone)"
    if abbr:
        if re.search(
            only + r"[ \t]+(?:the[ \t]+|its[ \t]+|an?[ \t]+)?" + _ABBR_KEY, t
        ) or re.search(_ABBR_KEY + r"[ \t]+" + only, t):
            return "abbr_only"
        return "abbr"
    if full:
        if re.search(only, t):
            return "full_only"
        return "full"
    if no_abbr:
        return "full_only"
    return "any"


@register("material_characterization_technique_format_constraint")
def characterization_technique_format(inp: CheckInput) -> Verdict:
    params = clean_parameters(inp.parameters)
    fmt = _technique_format(params)
    source = "parameters"
    if fmt == "any":
        fmt, source = _technique_format(inp.question or ""), "question"
    span = final_answer(inp.response)
    blocks = [b for b in code_blocks(inp.response) if b.closed and _tech_hits(b.body)]
    if span is not None and span.text.strip():
        text, where = span.text, f"the final answer ({span.source})"
    elif blocks:  # the structured answer (a list, a dict) the question asked for
        text, where = blocks[-1].body, "the final answer (the last ``` block)"
    else:
        text, where = inp.response, "the response"
        for line in non_empty_lines(inp.response):
            if _tech_hits(line.text):
                text, where = line.text, "the first line naming a technique"
                break
        else:  # no line names one; a name broken over two lines is still found
            text = " ".join(inp.response.split()) if len(inp.response) < 100_000 else ""
    hits = _tech_hits(text)
    if not hits:
        return Verdict.failed(f"no known characterization technique in {where}: {clip(text)!r}")
    names = ", ".join(h.technique.name for h in hits[:3])
    fmt_words = {
        "any": "no format stated",
        "abbr": "abbreviation",
        "abbr_only": "abbreviation only",
        "full": "full name",
        "full_only": "full name only",
        "full_then_abbr": "full name then abbreviation",
        "abbr_then_full": "abbreviation then full name",
        "full(abbr)": "full name (abbreviation)",
        "abbr(full)": "abbreviation (full name)",
    }[fmt]
    if fmt != "any":
        ok = [h for h in hits if _format_ok(h, fmt)]
        if not ok:
            h = hits[0]
            has = ("abbreviation" if h.abbr_at >= 0 else "") + (
                " and full name"
                if h.abbr_at >= 0 and h.full_at >= 0
                else ("full name" if h.full_at >= 0 else "")
            )
            return Verdict.failed(
                f"{h.technique.name} in {where} written with {has.strip()}, "
                f"format required (from the {source}): {fmt_words}"
            )
        names = ", ".join(h.technique.name for h in ok[:3])
    return Verdict.passed(f"technique in {where}: {names} ({fmt_words})")


def _format_ok(hit: _TechHit, fmt: str) -> bool:
    a, f = hit.abbr_at, hit.full_at
    if fmt == "abbr":
        return a >= 0
    if fmt == "abbr_only":
        return a >= 0 and f < 0
    if fmt == "full":
        return f >= 0
    if fmt == "full_only":
        return f >= 0 and a < 0
    if fmt == "full_then_abbr":
        return a >= 0 and f >= 0 and f <= a
    if fmt == "abbr_then_full":
        return a >= 0 and f >= 0 and a <= f
    if fmt == "full(abbr)":
        return a >= 0 and f >= 0 and f <= a and hit.abbr_bracketed
    if fmt == "abbr(full)":
        return a >= 0 and f >= 0 and a <= f
    return True


# =========================================================================== property

_DISCRETE_RE = re.compile(
    r"\b(?:discrete|labels?|categor(?:y|ies|ical)|classif(?:y|ication|ied)|class(?:es)?|"
    r"qualitative|which[ \t]+type)\b",
    re.I,
)
_CONTINUOUS_RE = re.compile(
    r"\b(?:continuous|numerical|numeric|quantitative|real[ \t-]valued|(?:a|one|single)[ \t]+"
    r"(?:numerical[ \t]+|continuous[ \t]+)?value)\b",
    re.I,
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


_WHETHER_RE = re.compile(r"\bwhether\b[^.?!\n]{0,80}[ \t]or[ \t]", re.I)
_EITHER_RE = re.compile(
    r"(?:is|are|does|do|will|would|can|should|was|were)\b[^?\n]*?[ \t]"
    r"([A-Za-z][\w-]*)[ \t]+or[ \t]+([A-Za-z][\w-]*)[ \t]*\?",
    re.I,
)


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
