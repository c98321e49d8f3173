"""The confidence an SPM-Bench reply states (``parse.py`` rule 6): the last ``Confidence:
<number>`` (``0.8``, ``.8``, ``80%``, ``8/10``; also
``Confidence Score:``, ``Confidence ≈ 0.8``, ``Confidence: ~0.8``, ``Confidence: fairly
high — roughly 0.75``, ``my confidence is about 0.7``), ``<number>% confidence`` /
``80% confident`` / ``80% sure`` (not a *confidence interval* / *level*),
``<confidence>0.8</confidence>`` tag, JSON ``"confidence"`` value, or a sentence saying
how confident followed by its number (``I'm fairly confident in this — about 70%``,
``Confidence: fairly confident (~0.7)``: a percentage or a fraction ending the clause,
so ``not sure about 0.5 nm`` is none). It must lie in
[0, 1] (a percentage in [0, 100]); anything else (``85``, ``1.2``, ``-0.1``, ``high``)
is not clamped but reported as ``None`` with a note.
"""

from __future__ import annotations

import re
from typing import Any

from sci_tasks.metrics.reply import json_objects

_VALUE = r"(?P<value>[+-]?(?:\d+(?:\.\d*)?|\.\d+))"  # a stated confidence: 0.8, .8, 80
_CONFIDENCE_TAG = re.compile(
    rf"<\s*confidence\s*>\s*{_VALUE}\s*(?P<pct>%)?\s*(?=<\s*/\s*confidence\s*>|$)", re.IGNORECASE
)
_APPROX = r"(?:(?:about|around|approximately|approx\.?|roughly|circa|nearly|~|≈|≃)[ \t]*)?"
_QUALIFIER = (
    r"(?:very|fairly|quite|rather|moderately|reasonably|relatively|high|low|medium|moderate|"
    r"good|fair|strong|overall)"
)
_CONFIDENCE = re.compile(
    r"\bconfidence(?:[ \t]+(?:level|score|estimate|rating))?[ \t]*(?:\*+[ \t]*)?"
    rf"(?:[:=：][ \t]*(?:\*+[ \t]*)?(?:(?:{_QUALIFIER}[ \t]+){{0,2}}{_QUALIFIER}[ \t]*"
    r"(?:[(,;:—–-][ \t]*)?)?|(?:is|of|at|would[ \t]+be|≈|~|≃)[ \t]*|(?<=[ \t]))"
    rf"{_APPROX}(?:\*+[ \t]*)?{_VALUE}[ \t]*"
    r"(?:(?P<pct>%)|/[ \t]*(?P<den>\d+(?:\.\d+)?)(?!\d|\.\d))?",  # "8/10." ends a sentence
    re.IGNORECASE,
)
# "with about 75% confidence", "I am 80% confident" (not "a 95% confidence interval")
_CONFIDENCE_PERCENT = re.compile(
    r"(?<![\w.])(?P<value>\d+(?:\.\d+)?)[ \t]*(?P<pct>%)[ \t]+(?:confidence|confident|sure|"
    r"certain)\b(?![ \t]+(?:interval|level|bound|band|region|limit|ellipse))",
    re.IGNORECASE,
)
# a sentence saying how confident, then its number: "I'm fairly confident in this — about
# 70%", "Confidence: fairly confident (~0.7)"; only a percentage or a fraction (0.7) counts
_CONFIDENT_THEN_VALUE = re.compile(
    r"\b(?:confident|confidence|sure|certain)\b[^.\d\n]{0,40}?[(\s—–-]"
    rf"{_APPROX}(?P<value>(?<![\d.])(?:\d{{1,3}}(?:\.\d+)?(?=[ \t]*%)|0?\.\d+|1\.0+)(?![\d.]))"
    r"[ \t]*(?P<pct>%)?(?=[ \t]*(?:[),;.!—–]|$))",  # a value, not "0.5 nm"
    re.IGNORECASE | re.MULTILINE,
)
_JSON_CONFIDENCE_KEYS = ("confidence", "confidence_score", "confidence_level")


def parse_confidence(text: str) -> tuple[float | None, str]:
    """The last stated confidence in [0, 1], or None with the reason."""
    found: list[tuple[int, Any]] = [(m.start(), m) for m in _CONFIDENCE.finditer(text)]
    found += [(m.start(), m) for m in _CONFIDENCE_TAG.finditer(text)]
    found += [(m.start(), m) for m in _CONFIDENCE_PERCENT.finditer(text)]
    found += [(m.start(), m) for m in _CONFIDENT_THEN_VALUE.finditer(text)]
    for start, obj in json_objects(text):
        for key, value in obj.items():
            if isinstance(key, str) and key.lower() in _JSON_CONFIDENCE_KEYS:
                found.append((start, value))
                break
    if not found:
        return None, "missing"
    _, last = max(found, key=lambda f: f[0])
    if isinstance(last, re.Match):
        return _confidence_value(last["value"], bool(last["pct"]), last.groupdict().get("den"))
    if isinstance(last, bool) or not isinstance(last, (int, float, str)):
        return None, f"not a number: {last!r}"
    if isinstance(last, str):
        m = re.fullmatch(
            r"\s*(?:~|≈|about\s+)?([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*(?:(%)|/\s*(\d+(?:\.\d+)?))?\s*",
            last,
        )
        if not m:
            return None, f"not a number: {last!r}"
        return _confidence_value(m[1], bool(m[2]), m[3])
    return _confidence_value(str(last), False)


def _confidence_value(
    number: str, percent: bool, denominator: str | None = None
) -> tuple[float | None, str]:
    value = float(number)
    if percent:
        value /= 100.0
    if denominator is not None:
        if float(denominator) <= 0:
            return None, f"not a fraction: {number}/{denominator}"
        value /= float(denominator)
    if not 0.0 <= value <= 1.0:
        shown = f"{number}%" if percent else number
        shown += f"/{denominator}" if denominator is not None else ""
        return None, f"out of range [0, 1]: {shown}"
    return value, "stated"
