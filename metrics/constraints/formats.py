"""Checkers of the general structured-format constraints of the SciMIF catalogue (json, list,
tuple, dictionary, markdown, html, xml, csv). Terms are those of ``answers.py``. Rules:

* json / list / tuple / dictionary / html / xml / csv: checked on the candidates of
  ``answers.structured_answers`` (the whole response alone when the question's sentences
  about the format say "only" / "entire response"; else the fenced block if any, with the
  value assigned in it; else the whole response stripped, plus the final answer when the
  question scopes the format to it; then blocks of the format written inline on their own
  lines); one valid candidate passes, else the reason is the last leading candidate's
  failure. Lenient about what surrounds the answer, strict about its validity.
* json_constraint: ``json.loads`` (NaN/Infinity rejected) gives an object (an array fails).
* list / tuple / dictionary: the text starts and ends with a bracket and
  ``ast.literal_eval`` gives a list / a parenthesised tuple / a dict holding every
  required key ("keys: a, b", quoted names in a sentence about keys, or the keys of a
  ``{...}`` template in the question; none named -> any dict); a key the format marks
  optional ("'cas_number' (if known)", ``text.OPTIONAL_MARK_RE``) may be left out; "a list
  of tuples" (dicts, lists, strings) needs every item of that kind.
* html_constraint: a linear tag scanner (``_html_problem``) sees at least one element,
  every element an HTML element (``HTML_ELEMENTS``, the HTML Living Standard's names; a
  custom element with a hyphen; any name inside ``<svg>`` / ``<math>``): an arbitrary tag
  such as ``<answer>`` is XML, not HTML, and fails here (``general_xml_constraint`` passes
  it); every tag well-formed, every non-void element closed in order (``<br>``, ``<img>`` and
  the other void elements need no end tag; ``<x/>`` closes itself), no text outside the
  elements (comments, ``<!DOCTYPE>`` and ``<?...?>`` allowed).
* xml_constraint: ``ElementTree`` parses it and the root is the required tag when one is
  named ("root tag <answer>", "<answer> as the root", "root element named answer").
* csv_constraint: ``csv`` (strict quoting, comma delimiter) reads at least two non-blank
  rows, all with the same number of fields, and that number is > 1; a header the
  parameters or question name ("header: a,b,c") is the first row (case and spaces aside).
* markdown_constraint: the response (from the last answer marker's line when scoped to
  the final answer) has a heading, a list item, bold or italic, a table separator row,
  code (fence or inline) or a link, or a blockquote; when the format names an element
  ("numbered list", "bulleted list", "table", "a heading for each step") that element is
  the requirement (with "for each step", no "Step N" line left plain).
"""

from __future__ import annotations

import ast
import csv
import io
import json
import re
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Callable

from sci_tasks.metrics.constraints.answers import (
    ONLY_FORMAT_RE,
    enclosed,
    last_answer_marker,
    structured_answers,
)
from sci_tasks.metrics.constraints.base import (
    CheckInput,
    input_scope,
    register,
)
from sci_tasks.metrics.constraints.options import split_items
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

_JSON_KEY = re.compile(r"\bjson\b", re.I)
_LIST_KEY = re.compile(r"\blists?\b", re.I)
_TUPLE_KEY = re.compile(r"\btuples?\b", re.I)
_DICT_KEY = re.compile(r"\bdict(?:ionary|ionaries)?\b", re.I)
_HTML_KEY = re.compile(r"\bhtml\b", re.I)
_XML_KEY = re.compile(r"\bxml\b", re.I)
_CSV_KEY = re.compile(r"\bcsv\b|comma[ \t-]+separated", re.I)
_MARKDOWN_KEY = re.compile(r"\bmarkdown\b", re.I)
_PY_LANGS = ("python", "py", "python3")


def _first_valid(
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


@register("general_json_constraint")
def json_constraint(inp: CheckInput) -> Verdict:
    return _first_valid(inp, _JSON_KEY, ("json",), _json_object, "{")


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


def _python_literal(text: str, where: str) -> tuple[object, str]:
    """(value, "") or (None, why not)."""
    if not text:
        return None, f"{where} is empty"
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
    return _first_valid(inp, keyword, _PY_LANGS, check, "[" if kind is list else "(")


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

    return _first_valid(inp, _DICT_KEY, _PY_LANGS, check, "{")


# Each pattern starts with a literal or is anchored at line starts, so it scans fast.
_MARKDOWN_FEATURES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("heading", re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+\S", re.M)),
    ("list", re.compile(r"^[ \t]*(?:[-*+]|[0-9]{1,3}[.)])[ \t]+\S", re.M)),
    ("bold", re.compile(r"\*\*[^*\n]+\*\*|__[^_\n]+__")),
    ("italic", re.compile(r"\*(?<![*\w]\*)[^*\s][^*\n]*\*(?![*\w])")),
    ("italic", re.compile(r"_(?<![_\w]_)[^_\s][^_\n]*_(?![_\w])")),
    ("code", re.compile(r"^[ \t]*(?:```|~~~)|`[^`\n]+`", re.M)),
    ("link", re.compile(r"\[[^\[\]\n]+\]\([^()\s]+\)")),
    ("blockquote", re.compile(r"^[ \t]{0,3}>[ \t]?\S", re.M)),
)


def _has_table(text: str) -> bool:
    if "---" not in text or "|" not in text:
        return False
    for line in text.splitlines():
        s = line.strip()
        if "|" in s and "---" in s and not s.strip("|:- \t"):
            return True
    return False


@register("general_markdown_constraint")
def markdown_constraint(inp: CheckInput) -> Verdict:
    text, where = inp.response, "the response"
    if input_scope(inp, _MARKDOWN_KEY) == "final":
        marker = last_answer_marker(text)
        if marker is not None:
            start = text.rfind("\n", 0, marker.start()) + 1
            text, where = text[start:], "the final answer"
    found: list[str] = []
    for name, pattern in _MARKDOWN_FEATURES:
        if name not in found and pattern.search(text):
            found.append(name)
    if _has_table(text):
        found.append("table")
    if not found:
        return Verdict.failed(
            f"no Markdown syntax (heading, list, emphasis, table, code, link) in {where}"
        )
    required, source = _required_markdown(clean_parameters(inp.parameters), inp.question or "")
    if required:
        problem = _element_problem(required, text)
        if problem:
            return Verdict.failed(f"{problem} in {where} (required by the {source})")
        return Verdict.passed(f"Markdown in {where}: {', '.join(found)}; {required} as required")
    return Verdict.passed(f"Markdown in {where}: {', '.join(found)}")


# The Markdown element a format names ("numbered list", "a heading for each step"): then
# that element is the requirement, not any Markdown at all.
_REQUIRED_MARKDOWN_RE = re.compile(
    r"\b(?P<el>headings?|headers?|numbered[ \t]+list|ordered[ \t]+list|bullet(?:ed)?[ \t]+"
    r"(?:points?|list)|unordered[ \t]+list|table)\b(?P<each>[^.\n]{0,20}\b(?:each|every)[ \t]+"
    r"(?:step|part|section|stage)\b)?",
    re.I,
)
_ELEMENT_RES = {
    "heading": re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+\S", re.M),
    "numbered list": re.compile(r"^[ \t]*[0-9]{1,3}[.)][ \t]+\S", re.M),
    "bulleted list": re.compile(r"^[ \t]*[-*+][ \t]+\S", re.M),
}
_STEP_LINE_RE = re.compile(r"^[ \t]*(?:[*_]{0,2})(?:step|part|stage)[ \t]+[0-9]+\b", re.I | re.M)


def _required_markdown(params: str, question: str) -> tuple[str, str]:
    for text, source in ((params, "parameters"), (question, "question")):
        m = _REQUIRED_MARKDOWN_RE.search(text)
        if m:
            el = m.group("el").lower()
            kind = (
                "heading" if el.startswith("head")
                else "table" if el == "table"
                else "bulleted list" if el.startswith(("bullet", "unordered"))
                else "numbered list"
            )  # fmt: skip
            return (f"{kind} for each step" if m.group("each") else kind), source
    return "", ""


def _element_problem(required: str, text: str) -> str:
    """What is missing for the required element, or "" when it is there."""
    kind = required.removesuffix(" for each step")
    if kind == "table":
        return "" if _has_table(text) else "no Markdown table"
    pattern = _ELEMENT_RES[kind]
    if not pattern.search(text):
        return f"no Markdown {kind}"
    if required.endswith("for each step"):
        plain = [m.group().strip() for m in _STEP_LINE_RE.finditer(text)]
        if plain:
            return f"step line {clip(plain[0])!r} is not a {kind}"
    return ""


# The elements of the HTML Living Standard (and the obsolete ones browsers still render):
# a tag of another name (``<answer>``, ``<result>``) is XML, not HTML. Custom elements
# (a hyphen in the name, ``<my-widget>``) are HTML; inside ``<svg>`` / ``<math>`` any name.
HTML_ELEMENTS = frozenset(
    (
        "html head title base link meta style script noscript template slot body article "
        "section nav aside h1 h2 h3 h4 h5 h6 hgroup header footer address p hr pre blockquote "
        "ol ul menu li dl dt dd figure figcaption main search div a em strong small s cite q "
        "dfn abbr ruby rt rp data time code var samp kbd sub sup i b u mark bdi bdo span br "
        "wbr ins del picture source img iframe embed object param video audio track map area "
        "table caption colgroup col tbody thead tfoot tr td th form label input button select "
        "datalist optgroup option textarea output progress meter fieldset legend details "
        "summary dialog canvas svg math center font big tt strike acronym marquee frame "
        "frameset noframes dir applet basefont blink nobr keygen rb rtc image"
    ).split()
)
_FOREIGN_ROOTS = frozenset({"svg", "math"})

_VOID_ELEMENTS = frozenset(
    "area base br col embed hr img input keygen link meta param source track wbr".split()
)
_TAG_RE = re.compile(
    r"<(/?)([A-Za-z][A-Za-z0-9:-]*)"
    r"(?:\s+[^\s\"'<>/=]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+))?)*"
    r"\s*(/?)>"
)
_RAW_TEXT_END = {
    "script": re.compile(r"</script\s*>", re.I),
    "style": re.compile(r"</style\s*>", re.I),
}


def _html_problem(text: str) -> tuple[str, list[str]]:
    """("", element names) for well-formed HTML, else (the first problem, names so far).

    A small tokenizer instead of ``html.parser``, which is quadratic on some malformed
    input (``"<" * n``) in Python 3.11 and raises on others. Linear: every step moves
    ``pos`` forward, and the first malformed tag ends the scan.
    """
    stack: list[str] = []
    elements: list[str] = []
    pos = foreign = 0
    while True:
        lt = text.find("<", pos)
        chunk = text[pos : lt if lt >= 0 else len(text)]
        if not stack and chunk.strip():
            return f"text outside the elements: {clip(chunk.strip())!r}", elements
        if lt < 0:
            break
        if text.startswith("<!--", lt):
            end = text.find("-->", lt + 4)
            if end < 0:
                return "unclosed comment <!--", elements
            pos = end + 3
            continue
        if text.startswith(("<!", "<?"), lt):
            end = text.find(">", lt)
            if end < 0:
                return f"unterminated {clip(text[lt : lt + 20])!r}", elements
            pos = end + 1
            continue
        tag = _TAG_RE.match(text, lt)
        if tag is None:
            if text[lt + 1 : lt + 2].isalpha() or text[lt + 1 : lt + 2] == "/":
                return f"malformed tag {clip(text[lt : lt + 20])!r}", elements
            pos = lt + 1  # a bare "<" in text
            if not stack:
                return f"text outside the elements: {clip(text[lt : lt + 20])!r}", elements
            continue
        closing, name, self_closing = tag.group(1), tag.group(2).lower(), tag.group(3)
        pos = tag.end()
        if closing:
            if name in _VOID_ELEMENTS:
                continue
            if not stack:
                return f"</{name}> closes nothing", elements
            if stack[-1] != name:
                return f"</{name}> closes <{stack[-1]}>", elements
            foreign -= name in _FOREIGN_ROOTS
            stack.pop()
            continue
        if name not in HTML_ELEMENTS and "-" not in name and not foreign:
            return f"<{name}> is not an HTML element (an XML tag)", elements
        elements.append(name)
        if self_closing or name in _VOID_ELEMENTS:
            continue
        if name in _RAW_TEXT_END:
            end_tag = _RAW_TEXT_END[name].search(text, pos)
            if end_tag is None:
                return f"<{name}> never closed", elements
            pos = end_tag.end()
            continue
        foreign += name in _FOREIGN_ROOTS  # open <svg> / <math> elements around the next tag
        stack.append(name)
    if stack:
        return f"<{stack[-1]}> never closed", elements
    if not elements:
        return "no HTML elements", elements
    return "", elements


@register("general_html_constraint")
def html_constraint(inp: CheckInput) -> Verdict:
    return _first_valid(inp, _HTML_KEY, ("html", "htm"), _html_verdict, "<")


def _html_verdict(text: str, where: str) -> Verdict:
    if "<" not in text:
        return Verdict.failed(f"no HTML tags in {where}")
    problem, elements = _html_problem(text)
    if problem:
        return Verdict.failed(f"malformed HTML in {where}: {problem}")
    return Verdict.passed(
        f"well-formed HTML in {where}: {plural(len(elements), 'element')}, first <{elements[0]}>"
    )


_NAME = r"([A-Za-z_][\w.:-]*)"
_ROOT_RES: tuple[re.Pattern[str], ...] = (
    re.compile(
        r"\broot(?:[ \t]+(?:tag|element|node))?"
        r"(?:[ \t]+(?:is|should[ \t]+be|must[ \t]+be|named|called|of))?[ \t]*(?:[:=][ \t]*)?"
        rf"(?:<{_NAME}>|[\"'`“‘]{_NAME}[\"'`”’])",
        re.I,
    ),
    re.compile(rf"<{_NAME}>[ \t]+(?:as[ \t]+(?:the[ \t]+)?)?root\b", re.I),
    re.compile(rf"\broot[ \t]+(?:tag|element|node)[ \t]+(?:named|called)[ \t]+{_NAME}", re.I),
)
_ROOT_PARAM_RES: tuple[re.Pattern[str], ...] = (
    re.compile(
        rf"\broot(?:[ \t]+(?:tag|element|node))?[ \t]*(?:[:=][ \t]*|[ \t])[ \t]*{_NAME}", re.I
    ),
    re.compile(rf"<{_NAME}>"),
)


def _required_root(params: str, question: str) -> str:
    for text, patterns in ((params, _ROOT_RES + _ROOT_PARAM_RES), (question, _ROOT_RES)):
        for pattern in patterns:
            m = pattern.search(text) if text else None
            if m:
                return next(g for g in m.groups() if g)
    return ""


@register("general_xml_constraint")
def xml_constraint(inp: CheckInput) -> Verdict:
    required = _required_root(clean_parameters(inp.parameters), inp.question or "")

    def check(text: str, where: str) -> Verdict:
        if not text:
            return Verdict.failed(f"{where} is empty")
        try:
            root = ET.fromstring(text)
        except ET.ParseError as exc:
            line, col = getattr(exc, "position", (0, 0))
            return Verdict.failed(f"XML parse error in {where} at line {line}, column {col}: {exc}")
        name = root.tag.rsplit("}", 1)[-1]
        if required and name != required:
            return Verdict.failed(f"XML root in {where} is <{name}>, required <{required}>")
        return Verdict.passed(f"well-formed XML in {where}, root <{name}>")

    return _first_valid(inp, _XML_KEY, ("xml",), check, "<")


@register("general_csv_constraint")
def csv_constraint(inp: CheckInput) -> Verdict:
    header, source = _required_header(clean_parameters(inp.parameters), inp.question or "")
    verdict = _first_valid(inp, _CSV_KEY, ("csv",), _csv_verdict)
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
