"""Conservative reader of an SPM-Bench reply: the chosen option labels and the stated confidence.

An answer that cannot be read is an empty selection marked unparsed; it is never guessed.
The rules, in the order they are applied (README "SPM-Bench answer parsing"):

1. Reasoning is removed before this parser sees the reply, by the filter every task applies
   (``metrics/reply.NormaliseReply``, the same rule for all benchmarks): ``<think>...</think>``
   blocks, text before an unopened ``</think>``, and everything after an unclosed ``<think>``
   (a reply cut off while thinking: an answer written only inside reasoning is no answer).
2. **Explicit answer statements**: every ``Answer:`` line (also ``Final answer:``,
   ``**Answer:**``, ``Answers:``; an empty line after the colon takes the next line), every
   answer tag (``<answer>A, C</answer>``, the short ``<a>A, C</a>``; an unclosed one runs to
   the next tag or the end) and every JSON object with an ``"answer"`` key (its value a list
   of labels or a text). The **last** statement in the reply wins, and if it cannot be read
   the reply is unparsed: an earlier statement is never used instead.
3. Without an explicit statement: a reply that is nothing but a label list (``A, C``,
   ``AC``, ``a and c``), else the **last** prose phrase of one of these shapes:
   ``the answer is A`` / ``the correct options are A and C``, ``A and C are correct``
   (not after *not*, *nor*, *neither*, *no*), ``I choose A and C``. In prose only capital
   letters standing alone count as labels, so the article "a" and the "A" in "ATOM" never do.
4. A label list is labels separated by commas, semicolons, slashes, ``&``, ``+``, ``and``
   or spaces; brackets, quotes and markdown marks around it are ignored; inside an answer
   statement labels may be lowercase and may be run together (``AC``, uppercase only).
   After ``Answer:`` a list may be followed by an explanation starting with ``.``, ``:``,
   ``(``, a dash, *because*, *since* or *as*.
5. A label that is not one of the question's options (``E`` when the options are A-D)
   makes the whole answer unparsed: dropping it would erase a wrong selection's penalty.
6. Confidence: the last ``Confidence: <number>`` (``0.8``, ``.8``, ``80%``),
   ``<confidence>0.8</confidence>`` tag or JSON ``"confidence"`` value. It must lie in
   [0, 1] (a percentage in [0, 100]); anything else (``85``, ``1.2``, ``-0.1``, ``high``)
   is not clamped but reported as ``None`` with a note.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sci_tasks.metrics.reply import json_objects

# an answer tag (<answer> or the short <a>) up to its closing tag, the next tag or the end
_ANSWER_TAG = re.compile(
    r"<\s*(?:answer|a)\s*>(?P<rest>.*?)(?=<\s*/?\s*[a-z]+\s*>|$)", re.IGNORECASE | re.DOTALL
)
_VALUE = r"(?P<value>[+-]?(?:\d+(?:\.\d*)?|\.\d+))"  # a stated confidence: 0.8, .8, 80
_CONFIDENCE_TAG = re.compile(
    rf"<\s*confidence\s*>\s*{_VALUE}\s*(?P<pct>%)?\s*(?=<\s*/\s*confidence\s*>|$)", re.IGNORECASE
)
_ANSWER_LINE = re.compile(r"\banswers?[ \t]*\**[ \t]*[:：][ \t]*(?P<rest>[^\n]*)", re.IGNORECASE)
_CONFIDENCE = re.compile(
    r"\bconfidence(?:[ \t]+(?:level|score))?[ \t]*\**[ \t]*[:=][ \t]*\**[ \t]*"
    rf"{_VALUE}[ \t]*(?P<pct>%)?",
    re.IGNORECASE,
)
_JSON_ANSWER_KEYS = ("answer", "answers", "final_answer", "a")
_DECORATION = re.compile(r"[*_`\"'“”‘’\[\]{}()]")
_MARKDOWN = re.compile(r"[*_`\"'“”‘’]")
_SEPARATOR = re.compile(r"\s*(?:,|;|/|&|\+|\band\b)\s*|\s+", re.IGNORECASE)
_FILLER = re.compile(r"^(?:both|all|options?|choices?|labels?)\s+", re.IGNORECASE)
# A label standing alone (not part of a word), optionally in parentheses, in prose.
_P_LABEL = r"\(?[A-Z]\)?(?![\w])"
_P_LIST = rf"(?<![\w(]){_P_LABEL}(?:\s*(?:,\s*and|,|;|/|&|and)\s*{_P_LABEL})*"
_BECAUSE = r"\b(?:because|since|as)\b"  # an explanation may follow a label list
_END = rf"(?=\s*(?:$|[.,;:!?)\n]|{_BECAUSE}))"
_PROSE = [
    # "the answer is A", "the correct options are A and C", "my choices would be B, D."
    re.compile(
        r"(?i:\b(?:answers?|options?|choices?|selections?)\s+(?:is|are|would\s+be|will\s+be)"
        rf"\s*:?\s*)(?P<list>{_P_LIST}){_END}"
    ),
    # "I think A and C are correct", "B is the right answer" (negations checked separately)
    re.compile(
        rf"(?P<list>{_P_LIST})\s+(?i:(?:is|are)\s+(?:both\s+|all\s+)?(?:the\s+)?(?:correct|right|true)\b)"
    ),
    # "I choose A and C", "selecting options B, D."
    re.compile(
        r"(?i:\b(?:choose|select|pick|choosing|selecting|picking)\s+(?:options?\s+|choices?\s+)?)"
        rf"(?P<list>{_P_LIST}){_END}"
    ),
]
_NEGATION = re.compile(r"\b(?:not|nor|neither|no)\s*$", re.IGNORECASE)
_LEADING = re.compile(
    rf"^(?P<list>[A-Za-z](?:\s*(?:,|;|/|&|\+|\band\b|\s)\s*[A-Za-z])*)(?=\s*(?:$|[.:(\-–—]|{_BECAUSE}))",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ParsedAnswer:
    """What was read from one reply; ``labels`` is empty exactly when ``parsed`` is False."""

    labels: tuple[str, ...]
    parsed: bool
    how: str  # "answer line", "answer tag", "json", "bare list", "prose"; "" when unparsed
    note: str  # why unparsed, or what was read
    confidence: float | None
    confidence_note: str  # "stated", "missing", or why the value was rejected


class _OutOfSet(ValueError):
    """A label list naming a letter that is not one of the options."""


def parse_response(response: str | None, options: Sequence[str]) -> ParsedAnswer:
    """Read the selected labels and the confidence from ``response``.

    ``response`` is the normalised reply (rule 1); ``options`` are the question's labels
    (``["A", "B", "C", "D"]``).
    """
    valid = tuple(o.upper() for o in options)
    text = response or ""
    confidence, confidence_note = parse_confidence(text)

    def result(labels: tuple[str, ...] | None, how: str, note: str) -> ParsedAnswer:
        if not labels:
            return ParsedAnswer((), False, "", note, confidence, confidence_note)
        return ParsedAnswer(labels, True, how, note, confidence, confidence_note)

    statements = sorted(_statements(text), key=lambda s: s[0])
    if statements:
        _, how, payload = statements[-1]
        try:
            labels = _read_statement(how, payload, valid)
        except _OutOfSet as exc:
            return result(None, how, str(exc))
        if labels is None:
            shown = payload if isinstance(payload, str) else json.dumps(payload)
            return result(None, how, f"last {how} unreadable: {shown[:80]!r}")
        return result(labels, how, f"{how}: {', '.join(labels)}")

    try:
        labels = label_list(_strip_decoration(text), valid, lenient=True)
        if labels:
            return result(labels, "bare list", f"whole reply is a label list: {', '.join(labels)}")
        labels = _prose(text, valid)
    except _OutOfSet as exc:
        return result(None, "", str(exc))
    if labels:
        return result(labels, "prose", f"prose: {', '.join(labels)}")
    return result(None, "", "no answer found")


def label_list(text: str, valid: Sequence[str], *, lenient: bool) -> tuple[str, ...] | None:
    """``text`` read as nothing but a list of labels, or None.

    ``lenient``: single letters in any case and uppercase runs (``AC``) count; otherwise
    only single capital letters. Raises ``_OutOfSet`` for a lone letter outside ``valid``.
    """
    text = _FILLER.sub("", text.strip().rstrip(".!").strip())
    if not text:
        return None
    tokens = [t for t in _SEPARATOR.split(text) if t]
    found: list[str] = []
    for token in tokens:
        if len(token) == 1 and token.isalpha() and (lenient or token.isupper()):
            found.append(token.upper())
        elif lenient and token.isalpha() and token.isascii() and token.isupper():
            if not all(ch in valid for ch in token):
                return None  # a word such as "ATOM", not a run of labels
            found.extend(token)
        else:
            return None
    outside = sorted({f for f in found if f not in valid})
    if outside:
        raise _OutOfSet(f"label(s) {', '.join(outside)} not among the options {', '.join(valid)}")
    return tuple(sorted(set(found)))


def parse_confidence(text: str) -> tuple[float | None, str]:
    """The last stated confidence in [0, 1], or None with the reason."""
    found: list[tuple[int, Any]] = [(m.start(), m) for m in _CONFIDENCE.finditer(text)]
    found += [(m.start(), m) for m in _CONFIDENCE_TAG.finditer(text)]
    for start, obj in json_objects(text):
        for key, value in obj.items():
            if isinstance(key, str) and key.lower() == "confidence":
                found.append((start, value))
    if not found:
        return None, "missing"
    _, last = max(found, key=lambda f: f[0])
    if isinstance(last, re.Match):
        return _confidence_value(last["value"], bool(last["pct"]))
    if isinstance(last, bool) or not isinstance(last, (int, float, str)):
        return None, f"not a number: {last!r}"
    if isinstance(last, str):
        m = re.fullmatch(r"\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*(%)?\s*", last)
        if not m:
            return None, f"not a number: {last!r}"
        return _confidence_value(m[1], bool(m[2]))
    return _confidence_value(str(last), False)


def _confidence_value(number: str, percent: bool) -> tuple[float | None, str]:
    value = float(number)
    if percent:
        value /= 100.0
    if not 0.0 <= value <= 1.0:
        shown = f"{number}%" if percent else number
        return None, f"out of range [0, 1]: {shown}"
    return value, "stated"


# --- explicit statements ------------------------------------------------------------------


def _statements(text: str) -> Iterator[tuple[int, str, Any]]:
    """(position, kind, payload) for each ``Answer:`` line and JSON answer object."""
    for m in _ANSWER_LINE.finditer(text):
        rest = m["rest"].strip()
        if not _strip_decoration(rest).strip():
            following = [ln for ln in text[m.end() :].splitlines() if ln.strip()]
            rest = following[0].strip() if following else ""
        yield m.start(), "answer line", rest
    for m in _ANSWER_TAG.finditer(text):
        yield m.start(), "answer tag", m["rest"].strip()
    for start, obj in json_objects(text):
        for key, value in obj.items():
            if isinstance(key, str) and key.lower() in _JSON_ANSWER_KEYS:
                yield start, "json", value
                break


def _read_statement(how: str, payload: Any, valid: Sequence[str]) -> tuple[str, ...] | None:
    if how == "json":
        if isinstance(payload, str):
            return label_list(_strip_decoration(payload), valid, lenient=True)
        if isinstance(payload, list) and payload and all(isinstance(p, str) for p in payload):
            return label_list(", ".join(p.strip() for p in payload), valid, lenient=True)
        return None
    content = _strip_decoration(payload)
    labels = label_list(content, valid, lenient=True)
    if labels:
        return labels
    leading = _LEADING.match(_MARKDOWN.sub(" ", payload).strip())  # brackets may end the list
    if leading:
        labels = label_list(leading["list"], valid, lenient=True)
        if labels:
            return labels
    return _prose(payload, valid)


# --- prose ---------------------------------------------------------------------------------


def _prose(text: str, valid: Sequence[str]) -> tuple[str, ...] | None:
    """The last prose phrase naming labels (see the module docstring), or None."""
    hits: list[tuple[int, str]] = []
    for i, pattern in enumerate(_PROSE):
        for m in pattern.finditer(text):
            if i == 1 and _NEGATION.search(text[: m.start("list")]):
                continue  # "neither A nor C is correct"
            hits.append((m.start("list"), m["list"]))
    for _, listed in sorted(hits, reverse=True):
        labels = label_list(_strip_decoration(listed), valid, lenient=False)
        if labels:
            return labels
    return None


def _strip_decoration(text: str) -> str:
    return _DECORATION.sub(" ", text)
