"""Checkers of the general structured-format constraints of the SciMIF catalogue (json, list,
tuple, dictionary, csv). Terms are those of ``answers.py``. Rules:

* json / list / tuple / dictionary / csv (html / xml alike, in ``markup.py``): checked on
  the candidates of ``structured.structured_answers`` (the whole response alone when the
  question's sentences about the format say "only" / "entire response"; else the fenced
  block if any, with the value assigned in it; else the whole response stripped, plus the
  final answer when the question scopes the format to it; then blocks of the format written
  inline on their own lines); one valid candidate passes, else the reason is the last
  leading candidate's failure. Lenient about what surrounds the answer, strict about its
  validity.
* json_constraint: ``json.loads`` (NaN/Infinity rejected) gives an object (an array fails).
* list / tuple / dictionary: the text starts and ends with a bracket and
  ``ast.literal_eval`` gives a list / a parenthesised tuple / a dict holding every
  required key ("keys: a, b", quoted names in a sentence about keys, or the keys of a
  ``{...}`` template in the question; none named -> any dict); a key the format marks
  optional ("'cas_number' (if known)", ``text.OPTIONAL_MARK_RE``) may be left out; "a list
  of tuples" (dicts, lists, strings) needs every item of that kind.
* csv_constraint: ``csv`` (strict quoting, comma delimiter) reads at least two non-blank
  rows, all with the same number of fields, and that number is > 1; a header the
  parameters or question name ("header: a,b,c") is the first row (case and spaces aside).

The markup formats (markdown, html, xml) are ``markup.py``.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import re
import warnings
from collections.abc import Callable

from sci_tasks.metrics.constraints.answers import enclosed
from sci_tasks.metrics.constraints.base import (
    CheckInput,
    input_scope,
    register,
)
from sci_tasks.metrics.constraints.options import split_items
from sci_tasks.metrics.constraints.structured import ONLY_FORMAT_RE, structured_answers
from sci_tasks.metrics.constraints.text import (
    OPTIONAL_MARK_RE,
    clauses_matching,
    clean_parameters,
    clip,
    optional_part,
    plural,
    sentences_matching,
    show_items,
)
from sci_tasks.metrics.verdict import Verdict

# --------------------------------------------------------------------------- formats

_PY_LANGS = ("python", "py", "python3")


def first_valid(
    inp: CheckInput,
    keyword: re.Pattern[str],
    langs: tuple[str, ...],
    check: Callable[[str, str], Verdict],
    openers: str = "",
) -> Verdict:
    """Run ``check(text, where)`` on each ``structured_answers`` candidate: the first pass
    wins, else the verdict on the last candidate (the final answer, when there is one)."""
    # "only" in the clause naming the format ("..., and write the answer in capital letters
    # only" is about letter case)
    question_says = " ".join(
        clause
        for sentence in sentences_matching(inp.question or "", keyword)
        for clause in clauses_matching(sentence, keyword)
    )
    only = bool(ONLY_FORMAT_RE.search(question_says + " " + clean_parameters(inp.parameters)))
    candidates, lead = structured_answers(
        inp.response, langs, input_scope(inp, keyword), only=only, openers=openers
    )
    verdict = Verdict.failed("empty response")
    for k, (text, where) in enumerate(candidates):
        found = check(text, where)
        if found.score == 1.0:
            return found
        if k < lead:
            verdict = found
    return verdict


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not valid JSON")


_JSON_KINDS = {list: "array", str: "string", int: "number", float: "number", bool: "boolean"}


_JSON_KEY = re.compile(r"\bjson\b", re.I)


@register("general_json_constraint")
def json_constraint(inp: CheckInput) -> Verdict:
    return first_valid(inp, _JSON_KEY, ("json",), _json_object, "{")


def _json_object(text: str, where: str) -> Verdict:
    if not text:
        return Verdict.failed(f"{where} is empty")
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        return Verdict.failed(f"{where}: JSON parse error at char {exc.pos}: {exc.msg}")
    except (ValueError, RecursionError) as exc:
        return Verdict.failed(f"{where}: not JSON ({type(exc).__name__}: {clip(str(exc))})")
    if not isinstance(value, dict):
        kind = _JSON_KINDS.get(type(value), "null")
        return Verdict.failed(f"{where} is a JSON {kind}, not an object")
    return Verdict.passed(f"{where} is a JSON object with {plural(len(value), 'key')}")


_TRAILING_COMMENT_RE = re.compile(r"[ \t]+#[^'\"\n]*$")


def _python_literal(text: str, where: str) -> tuple[object, str]:
    """(value, "") or (None, why not)."""
    if not text:
        return None, f"{where} is empty"
    text = _TRAILING_COMMENT_RE.sub("", text)  # "{...}  # both in Å": a comment, no code
    if text[0] not in "[({" or text[-1] not in "])}":
        return None, f"{where} is not bracketed: {clip(text)!r}"
    try:
        with warnings.catch_warnings():  # invalid escapes such as '\d' only warn
            warnings.simplefilter("ignore")
            return ast.literal_eval(text), ""
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as exc:
        return None, f"{where} is not a Python literal ({type(exc).__name__}: {clip(str(exc))})"


def _literal_check(inp: CheckInput, keyword: re.Pattern[str], kind: type, name: str) -> Verdict:
    def check(text: str, where: str) -> Verdict:
        value, error = _python_literal(text, where)
        if error:
            return Verdict.failed(error)
        if not isinstance(value, kind) or (kind is tuple and not text.startswith("(")):
            return Verdict.failed(f"{where} is a Python {type(value).__name__}, not a {name}")
        size = plural(len(value), "item")  # type: ignore[arg-type]
        if count is not None and len(value) != count[0]:  # type: ignore[arg-type]
            return Verdict.failed(
                f"{where} is a Python {name} of {size}; {count[0]} required (from the {count[1]})"
            )
        if item_kind is not None:
            wrong = [v for v in value if not isinstance(v, item_kind[0])]  # type: ignore[attr-defined]
            if wrong or not value:
                return Verdict.failed(
                    f"{where} is a Python {name} of {size}, not all {item_kind[1]}s "
                    f"(required by the {item_kind[2]}): {clip(repr(wrong[:1]))}"
                )
            return Verdict.passed(f"{where} is a Python {name} of {size}, each a {item_kind[1]}")
        return Verdict.passed(f"{where} is a Python {name} of {size}")

    item_kind = _item_kind(clean_parameters(inp.parameters), inp.question or "", name)
    count = _required_size(clean_parameters(inp.parameters), inp.question or "", name)
    return first_valid(inp, keyword, _PY_LANGS, check, "[" if kind is list else "(")


# "a Python list of tuples": the items' own kind is part of the format.
_ITEM_KINDS = {"tuple": tuple, "list": list, "dict": dict, "dictionarie": dict, "string": str}
_LIST_OF_RE = re.compile(
    r"\b(list|tuple)[ \t]+of[ \t]+(tuple|list|dict|dictionarie|string)s\b", re.I
)


def _item_kind(params: str, question: str, name: str) -> tuple[type, str, str] | None:
    for text, source in ((params, "parameters"), (question, "question")):
        m = _LIST_OF_RE.search(text)
        if m and m.group(1).lower() == name:
            word = m.group(2).lower()
            return _ITEM_KINDS[word], "dict" if word == "dictionarie" else word, source
    return None


_NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split()
)}  # fmt: skip
# "a Python list of 3 strings", "a tuple of two values": the number of items is the format's
_SIZED_RE = re.compile(
    r"\b(list|tuple)[ \t]+of[ \t]+(?:exactly[ \t]+)?([0-9]{1,2}|"
    + "|".join(_NUMBER_WORDS)
    + r")[ \t]+(?:[a-z-]+[ \t]+){0,2}?(?:strings?|items?|elements?|values?|entries|names?|"
    r"numbers?|tuples?|lists?|dicts?|dictionaries|floats?|integers?)\b",
    re.I,
)


def _required_size(params: str, question: str, name: str) -> tuple[int, str] | None:
    for text, source in ((params, "parameters"), (question, "question")):
        for m in _SIZED_RE.finditer(text):
            if m.group(1).lower() == name:
                word = m.group(2).lower()
                return (int(word) if word.isdigit() else _NUMBER_WORDS[word]), source
    return None


_LIST_KEY = re.compile(r"\blists?\b", re.I)
_TUPLE_KEY = re.compile(r"\btuples?\b", re.I)


@register("general_list_constraint")
def list_constraint(inp: CheckInput) -> Verdict:
    return _literal_check(inp, _LIST_KEY, list, "list")


@register("general_tuple_constraint")
def tuple_constraint(inp: CheckInput) -> Verdict:
    return _literal_check(inp, _TUPLE_KEY, tuple, "tuple")


_KEYS_LIST_RE = re.compile(r"\bkeys?\b[ \t]*(?:[:=]|\b(?:named|called)\b)[ \t]*([^\n.;]+)", re.I)
_KEY_SENTENCE_RE = re.compile(r"\bkeys?\b", re.I)
_QUOTED_RE = re.compile(r"[\"'`“‘]([^\"'`“”‘’\n]{1,60})[\"'`”’]")
_TEMPLATE_KEY_RE = re.compile(r"[\"']([^\"'\n]{1,60})[\"'][ \t]*:")


def _required_keys(params: str, question: str) -> tuple[list[str], str]:
    for source, text in (("parameters", params), ("question", question)):
        if not text:
            continue
        listed = _KEYS_LIST_RE.search(text)
        if listed:
            keys = split_items(listed.group(1))
            if keys:
                return keys, source
        for sentence in sentences_matching(text, _KEY_SENTENCE_RE):
            # a mark right after the quoted key makes it optional: 'cas_number' (if known)
            quoted = [
                m.group(1).strip() + (" (optional)" if _mark_after(sentence, m.end()) else "")
                for m in _QUOTED_RE.finditer(sentence)
            ]
            if quoted:
                return quoted, source
        for template in enclosed(text, "{", "}"):
            keys = [m.group(1) for m in _TEMPLATE_KEY_RE.finditer(template.text)]
            if keys:
                return keys, source
    return [], ""


def _mark_after(text: str, pos: int) -> bool:
    mark = OPTIONAL_MARK_RE.match(text, pos)
    return mark is not None and mark.group().strip().startswith(("(", "["))


_DICT_KEY = re.compile(r"\bdict(?:ionary|ionaries)?\b", re.I)


@register("general_dictionary_constraint")
def dictionary_constraint(inp: CheckInput) -> Verdict:
    named, source = _required_keys(clean_parameters(inp.parameters), inp.question or "")
    # keys the format marks optional ("cas_number (if known)") may be left out
    marked = [optional_part(k) for k in named]
    keys = [k for k, is_optional in marked if not is_optional]
    optional = [k for k, is_optional in marked if is_optional]

    def check(text: str, where: str) -> Verdict:
        value, error = _python_literal(text, where)
        if error:
            return Verdict.failed(error)
        if not isinstance(value, dict):
            return Verdict.failed(f"{where} is a Python {type(value).__name__}, not a dict")
        missing = [k for k in keys if k not in value]
        if missing:
            return Verdict.failed(f"dict in {where} lacks required key(s) {show_items(missing)}")
        found = f", required keys {show_items(keys)} (from the {source}) present" if keys else ""
        left = [k for k in optional if k not in value]
        found += f"; optional key(s) {show_items(left)} left out" if left else ""
        return Verdict.passed(f"{where} is a Python dict of {plural(len(value), 'key')}{found}")

    return first_valid(inp, _DICT_KEY, _PY_LANGS, check, "{")


# Each pattern starts with a literal or is anchored at line starts, so it scans fast.
_CSV_KEY = re.compile(r"\bcsv\b|comma[ \t-]+separated", re.I)


@register("general_csv_constraint")
def csv_constraint(inp: CheckInput) -> Verdict:
    header, source = _required_header(clean_parameters(inp.parameters), inp.question or "")
    verdict = first_valid(inp, _CSV_KEY, ("csv",), _csv_verdict)
    if verdict.score != 1.0 or not header:
        return verdict
    return _header_verdict(inp, header, source)


# "header: a,b,c" / "with header a, b, c" / "columns: a, b": the columns a careful reader
# expects in the first row (compared ignoring case and spaces; letter case is not csv's).
_HEADER_RE = re.compile(
    r"\b(?:header(?:[ \t]+row)?|columns?)[ \t]*(?:[:=]|\bof\b)?[ \t]*"
    r"[`'\"]?([\w .()/%-]+(?:,[ \t]*[\w .()/%-]+)+)",
    re.I,
)


def _required_header(params: str, question: str) -> tuple[list[str], str]:
    for text, source in ((params, "parameters"), (question, "question")):
        m = _HEADER_RE.search(text)
        if m:
            names = [n.strip(" .`'\"").lower() for n in m.group(1).split(",")]
            if all(names):
                return names, source
    return [], ""


def _header_verdict(inp: CheckInput, header: list[str], source: str) -> Verdict:
    first = ""
    candidates, _ = structured_answers(inp.response, ("csv",), input_scope(inp, _CSV_KEY))
    for text, where in candidates:
        row = next(csv.reader(io.StringIO(text.lstrip(), newline="")), [])
        first = ",".join(row)
        if [c.strip().lower() for c in row] == header:
            return Verdict.passed(
                f"CSV in {where} with the header from the {source}: {', '.join(header)}"
            )
    return Verdict.failed(
        f"CSV header {clip(first)!r} is not the one from the {source}: {', '.join(header)}"
    )


def _csv_verdict(text: str, where: str) -> Verdict:
    try:
        rows = [
            row
            for row in csv.reader(io.StringIO(text, newline=""), strict=True)
            if any(cell.strip() for cell in row)
        ]
    except csv.Error as exc:
        return Verdict.failed(f"CSV error in {where}: {exc}")
    if len(rows) < 2:
        return Verdict.failed(f"{where} has {plural(len(rows), 'CSV row')}; at least 2 needed")
    width = len(rows[0])
    if width < 2:
        return Verdict.failed(f"{where} has 1 column only (no commas in the first row)")
    for i, row in enumerate(rows[1:], start=2):
        if len(row) != width:
            return Verdict.failed(
                f"ragged CSV in {where}: row {i} has {len(row)} fields, row 1 has {width}"
            )
    return Verdict.passed(f"CSV in {where}: {len(rows)} rows x {width} columns")
