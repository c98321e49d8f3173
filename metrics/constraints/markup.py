"""Checkers of the general markup-format constraints of the SciMIF catalogue (markdown, html,
xml). html and xml are read on the candidates of ``structured.structured_answers`` as the data
formats are (``formats.py``). Rules:

* html_constraint: a linear tag scanner (``_html_problem``) sees at least one element,
  every element an HTML element (``HTML_ELEMENTS``, the HTML Living Standard's names; a
  custom element with a hyphen; any name inside ``<svg>`` / ``<math>``): an arbitrary tag
  such as ``<answer>`` is XML, not HTML, and fails here (``general_xml_constraint`` passes
  it); every tag well-formed, every non-void element closed in order (``<br>``, ``<img>`` and
  the other void elements need no end tag; ``<x/>`` closes itself), no text outside the
  elements (comments, ``<!DOCTYPE>`` and ``<?...?>`` allowed).
* xml_constraint: ``ElementTree`` parses it and the root is the required tag when one is
  named ("root tag <answer>", "<answer> as the root", "root element named answer").
* markdown_constraint: the response (from the last answer marker's line when scoped to
  the final answer) has a heading, a list item, bold or italic, a table separator row,
  code (fence or inline) or a link, or a blockquote; when the format names an element
  ("numbered list", "bulleted list", "table", "a heading for each step") that element is
  the requirement (with "for each step", no "Step N" line left plain).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from sci_tasks.metrics.constraints.answers import (
    last_answer_marker,
)
from sci_tasks.metrics.constraints.base import (
    CheckInput,
    input_scope,
    register,
)
from sci_tasks.metrics.constraints.formats import first_valid
from sci_tasks.metrics.constraints.text import (
    clean_parameters,
    clip,
    plural,
)
from sci_tasks.metrics.verdict import Verdict

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


_MARKDOWN_KEY = re.compile(r"\bmarkdown\b", re.I)


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


_HTML_KEY = re.compile(r"\bhtml\b", re.I)


@register("general_html_constraint")
def html_constraint(inp: CheckInput) -> Verdict:
    return first_valid(inp, _HTML_KEY, ("html", "htm"), _html_verdict, "<")


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


_XML_KEY = re.compile(r"\bxml\b", re.I)


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

    return first_valid(inp, _XML_KEY, ("xml",), check, "<")
