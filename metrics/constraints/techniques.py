"""Checker of ``material_characterization_technique_format_constraint`` (SciMIF catalogue).
The technique table is the data file ``techniques.json`` beside this module. Decision rule:

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
)
from sci_tasks.metrics.constraints.base import (
    CheckInput,
    register,
)
from sci_tasks.metrics.constraints.text import (
    clean_parameters,
    clip,
    non_empty_lines,
)
from sci_tasks.metrics.constraints.unmarked_answers import literal_lines
from sci_tasks.metrics.verdict import Verdict


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
    elif shaped := [  # "give your answer ... as a Python tuple": the literal naming one
        line for line in literal_lines(inp.response, inp.question or "") if _tech_hits(line)
    ]:
        text, where = shaped[-1], "the answer line of the shape the question names"
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
