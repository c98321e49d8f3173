"""Checkers of the rule-scored general constraints of the SciMIF catalogue.

``general_number_response`` is judge-scored and has no rule checker here (without an LLM
judge the registry reports it unscored). Every other ``general_*`` constraint has one
checker below. Each reads the
requirement from ``parameters`` first, then from the question; when it cannot be read from
either, the verdict is unscored with the reason, never a guess. Shared parsing (final
answer, scope, numbers, code fences) lives in ``text.py``, whose docstring defines those
terms.

Scope: a requirement applies to the whole response unless the parameters, or the question
sentences that mention it, restrict it to the final answer (``text.requirement_scope``).
``general_choose_from`` defaults to the final answer instead (a selection is an answer).

Decision rules, one per constraint:

* decimal_annotation: required places from "N decimal places" / "one decimal place" /
  "nearest tenth" / "nearest integer" (0) / a bare count; two different counts stated ->
  unscored. Pass iff every number in scope (``text.find_numbers``) has exactly N digits
  after the decimal point (mantissa digits for scientific notation); no number -> fail.
* scientific_annotation: pass iff every number in scope is written as mantissa times a
  power of ten (``1.23e-4``, ``1.23 × 10^-4``, ``1.23 \\times 10^{-4}``, ``1.23*10^5``,
  ``10^{-4}``) with 1 <= |mantissa| < 10 (or 0); no number -> fail.
* all_uppercase / all_lowercase: LaTeX command names (``\\times``) are dropped, then every
  cased letter in scope must have the required case; digits and punctuation are ignored;
  no cased letter -> fail.
* wrap_up: the wrapper named by the parameters, else by the question sentences about
  wrapping (``\\boxed{}``, ``[[ ]]``, ``{{ }}``, ``<< >>``, ``【 】``, ``<tag></tag>``, code
  fence, ``** **``, backticks, ``$ $``, quotes, ``[ ]``, ``( )``, ``{ }``, ``< >``, or a
  bare symbol pair in the parameters such as ``|| ||``); none named -> unscored. ``\\boxed``:
  the last ``\\boxed{...}`` must be closed and non-empty. Distinctive wrappers (``[[ ]]``,
  ``{{ }}``, ``<< >>``, ``【 】``, tags, code fences) may appear anywhere. Common ones
  (bold, quotes, brackets, ``$``...) must enclose non-empty text that is not just an
  answer label ("**Final Answer:**") on the final-answer line(s) (``text.answer_region``).
* json / list / tuple / dictionary / html / xml / csv: checked on the candidates of
  ``text.structured_answers`` (the fenced block if any; else the whole response stripped,
  plus the final answer when the question scopes the format to it); one valid candidate
  passes, else the reason is the last candidate's failure. Lenient about what surrounds
  the answer, strict about its validity.
* json_constraint: ``json.loads`` (NaN/Infinity rejected) gives an object (an array fails).
* list / tuple / dictionary: the text starts and ends with a bracket and
  ``ast.literal_eval`` gives a list / a parenthesised tuple / a dict holding every
  required key ("keys: a, b", quoted names in a sentence about keys, or the keys of a
  ``{...}`` template in the question; none named -> any dict).
* html_constraint: a linear tag scanner (``_html_problem``) sees at least one element,
  every tag well-formed, every non-void element closed in order (``<br>``, ``<img>`` and
  the other void elements need no end tag; ``<x/>`` closes itself), no text outside the
  elements (comments, ``<!DOCTYPE>`` and ``<?...?>`` allowed).
* xml_constraint: ``ElementTree`` parses it and the root is the required tag when one is
  named ("root tag <answer>", "<answer> as the root", "root element named answer").
* csv_constraint: ``csv`` (strict quoting, comma delimiter) reads at least two non-blank
  rows, all with the same number of fields, and that number is > 1.
* markdown_constraint: the response (from the last answer marker's line when scoped to
  the final answer) has a heading, a list item, bold or italic, a table separator row,
  code (fence or inline) or a link, or a blockquote.
* choose_from: the options come from the parameters, else the question: a labelled run
  "(a) x (b) y" / "A. x" (labels consecutive from a / A / 1), else the items after
  "choose from / one of / options:" split on commas, "or", "/". None -> unscored. Pass
  iff exactly one distinct option is named in scope (default: the final answer or last
  line): by its text (whole words, case-insensitive, a shorter option inside a longer one
  does not count) or by its label (a bare capital letter other than A and I; otherwise
  "(a)", "a.", "a)", "option a", a label followed by ",", "or", "and" or the end, or the
  answer being just the label, so the article in "A brief look" is not option A).
* judge: pass iff the text in scope (default: whole response) stripped is "yes" or "no",
  any case, with at most one trailing period.
* response_structure: position from the parameters (beginning/start/first, middle,
  end/last) or the question ("at the end of", "begin your response with"); none or
  conflicting -> unscored. Answer occurrences are the answer markers and ``\\boxed``.
  Units are the non-empty lines (the sentences when the response is one line).
  beginning: an occurrence in the first unit (a leading title line, a heading, a line that
  is all bold or that ends with ":", is skipped). end: an occurrence in the last unit, or
  a marker alone on the next-to-last line whose answer is the last line. middle: with at
  least three paragraphs (else three units), an occurrence in neither the first nor the
  last one. No occurrence -> fail.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import re
import warnings
import xml.etree.ElementTree as ET
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass

from rdkit import Chem

from sci_tasks.metrics.constraints.base import CheckInput, register
from sci_tasks.metrics.constraints.molecules import parse_smiles, smiles_shaped
from sci_tasks.metrics.constraints.text import (
    ANSWER_MARKER_RE,
    Scope,
    Span,
    answer_region,
    clean_parameters,
    clip,
    code_blocks,
    enclosed,
    final_answer,
    final_answer_or_last_line,
    find_numbers,
    last_answer_marker,
    last_boxed,
    non_empty_lines,
    paragraphs,
    parse_decimal_places,
    requirement_scope,
    scoped_text,
    sentences_matching,
    structured_answers,
)
from sci_tasks.metrics.verdict import Verdict


def _show(items: list[str], limit: int = 3) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _scope(inp: CheckInput, keyword: re.Pattern[str], default: Scope = "whole") -> Scope:
    return requirement_scope(inp.question or "", clean_parameters(inp.parameters), keyword, default)


# --------------------------------------------------------------------------- precision

_DECIMAL_KEY = re.compile(
    r"decimal|\bd\.p\.|tenth|hundredth|thousandth|nearest[ \t]+integer|whole[ \t]+number|"
    r"precision",
    re.I,
)
_SCIENTIFIC_KEY = re.compile(
    r"scientific|exponential|e-notation|standard[ \t]+form|powers?[ \t]+of[ \t]+(?:ten|10)", re.I
)


@register("general_decimal_annotation")
def decimal_annotation(inp: CheckInput) -> Verdict:
    params = clean_parameters(inp.parameters)
    places, source = parse_decimal_places(params) if params else set(), "parameters"
    if not places:
        places, source = parse_decimal_places(inp.question or ""), "question"
    if not places:
        return Verdict.unscored("number of decimal places not stated in parameters or question")
    if len(places) > 1:
        return Verdict.unscored(f"conflicting decimal places in the {source}: {sorted(places)}")
    n = places.pop()
    text, where = scoped_text(inp.response, _scope(inp, _DECIMAL_KEY))
    numbers = find_numbers(text)
    if not numbers:
        return Verdict.failed(f"no number found in {where} ({n} decimals required)")
    bad = [x.text for x in numbers if x.decimals != n]
    if bad:
        return Verdict.failed(
            f"{len(bad)} of {_plural(len(numbers), 'number')} in {where} lack exactly "
            f"{_plural(n, 'decimal')}: {_show(bad)}"
        )
    return Verdict.passed(
        f"{_plural(len(numbers), 'number')} in {where}, all with {_plural(n, 'decimal')}"
    )


@register("general_scientific_annotation")
def scientific_annotation(inp: CheckInput) -> Verdict:
    text, where = scoped_text(inp.response, _scope(inp, _SCIENTIFIC_KEY))
    numbers = find_numbers(text)
    if not numbers:
        return Verdict.failed(f"no number found in {where}")
    plain = [x.text for x in numbers if not x.scientific]
    if plain:
        return Verdict.failed(
            f"{len(plain)} of {_plural(len(numbers), 'number')} in {where} not in scientific "
            f"notation: {_show(plain)}"
        )
    off = [x.text for x in numbers if not x.normalized]
    if off:
        return Verdict.failed(f"mantissa outside [1, 10) in {where}: {_show(off)}")
    return Verdict.passed(
        f"{_plural(len(numbers), 'number')} in {where}, all in scientific notation"
    )


# --------------------------------------------------------------------------- letter case

_UPPER_KEY = re.compile(r"upper[ \t-]*case|capital|\bcaps\b|block[ \t]+letters", re.I)
_LOWER_KEY = re.compile(r"lower[ \t-]*case|small[ \t]+letters|no[ \t]+capital", re.I)
_LATEX_COMMAND_RE = re.compile(r"\\[A-Za-z]+")
_FENCE_INFO_RE = re.compile(r"^[ \t]*(?:```|~~~)[^\n]*", re.M)
_OBJECT_KEY_RE = re.compile(r"\"[^\"\n]{0,80}\"[ \t]*:|'[^'\n]{0,80}'[ \t]*:")


def _letter_case(inp: CheckInput, upper: bool) -> Verdict:
    scope = _scope(inp, _UPPER_KEY if upper else _LOWER_KEY)
    text, where = scoped_text(inp.response, scope)
    text = _LATEX_COMMAND_RE.sub(" ", text)
    if "{" in text:  # JSON / dict keys are structure, not prose: only the values are text
        text = _OBJECT_KEY_RE.sub(" ", text)
    if "```" in text or "~~~" in text:  # so is a code fence's language tag
        text = _FENCE_INFO_RE.sub(" ", text)
    wanted = "uppercase" if upper else "lowercase"
    wrong_case = str.islower if upper else str.isupper
    # counted with map() in C: a Python loop over every character is the slow part
    wrong = sum(map(wrong_case, text))
    total = wrong + sum(map(str.isupper if upper else str.islower, text))
    if total == 0:
        return Verdict.failed(f"no letters in {where}")
    if wrong:
        first = next(i for i, ch in enumerate(text) if wrong_case(ch))
        word = _word_at(text, first)
        return Verdict.failed(f"{wrong} of {total} letters in {where} not {wanted}, e.g. {word!r}")
    return Verdict.passed(f"all {total} letters in {where} are {wanted}")


def _word_at(text: str, i: int, reach: int = 20) -> str:
    a, b = i, i + 1
    while a > 0 and i - a < reach and text[a - 1].isalnum():
        a -= 1
    while b < len(text) and b - i < reach and text[b].isalnum():
        b += 1
    return text[a:b]


@register("general_all_uppercase")
def all_uppercase(inp: CheckInput) -> Verdict:
    return _letter_case(inp, upper=True)


@register("general_all_lowercase")
def all_lowercase(inp: CheckInput) -> Verdict:
    return _letter_case(inp, upper=False)


# --------------------------------------------------------------------------- wrap up


@dataclass(frozen=True)
class _Wrapper:
    label: str
    pairs: tuple[tuple[str, str], ...] = ()
    anywhere: bool = False  # distinctive: may wrap the answer anywhere in the response
    kind: str = "pair"  # "pair", "boxed", "fence", "tag" (pairs are lower case)


_BOXED = _Wrapper("\\boxed{}", anywhere=True, kind="boxed")
# "a box", "a clearly demarcated text box": \boxed{} / \fbox{} or a frame drawn around it.
_BOX = _Wrapper("a box (\\boxed{} or a drawn frame)", anywhere=True, kind="box")
_WRAPPER_CUES: tuple[tuple[re.Pattern[str], _Wrapper], ...] = (
    (re.compile(r"\\boxed|\\fbox|\bboxed\b|\bbox[ \t]+(?:it|the|your)\b", re.I), _BOXED),
    (re.compile(r"\b(?:text[ \t]+)?box(?:es)?\b", re.I), _BOX),
    (
        re.compile(r"\[\[|\]\]|double[ \t]+square[ \t]+brackets", re.I),
        _Wrapper("[[ ]]", (("[[", "]]"),), anywhere=True),
    ),
    (
        re.compile(r"\{\{|\}\}|double[ \t]+(?:curly[ \t]+)?braces", re.I),
        _Wrapper("{{ }}", (("{{", "}}"),), anywhere=True),
    ),
    (
        re.compile(r"<<|>>|«|»|double[ \t]+angle[ \t]+brackets", re.I),
        _Wrapper("<< >>", (("<<", ">>"), ("«", "»")), anywhere=True),
    ),
    (re.compile(r"【|】"), _Wrapper("【 】", (("【", "】"),), anywhere=True)),
    (
        re.compile(r"```|triple[ \t]+backticks?|code[ \t]+block", re.I),
        _Wrapper("``` ```", anywhere=True, kind="fence"),
    ),
    (re.compile(r"\*\*|\bbold", re.I), _Wrapper("** **", (("**", "**"), ("__", "__")))),
    (re.compile(r"\bitalics?\b|\bitalici[sz]", re.I), _Wrapper("* *", (("*", "*"), ("_", "_")))),
    (re.compile(r"`|\bbacktick", re.I), _Wrapper("` `", (("`", "`"),))),
    (re.compile(r"\$|\bdollar[ \t]+signs?|\bmath[ \t]+mode", re.I), _Wrapper("$ $", (("$", "$"),))),
    (re.compile(r"\bsingle[ \t]+quot|'[ \t]?'", re.I), _Wrapper("' '", (("'", "'"), ("‘", "’")))),
    (
        re.compile(r"\bdouble[ \t]+quot|\bquotation[ \t]+marks|\bquotes\b|\"[ \t]?\"", re.I),
        _Wrapper('" "', (('"', '"'), ("“", "”"))),
    ),
    (
        re.compile(r"\bsquare[ \t]+brackets|\bbrackets\b|\[[ \t]?\]", re.I),
        _Wrapper("[ ]", (("[", "]"),)),
    ),
    (
        re.compile(r"\bparenthes[ie]s|\bround[ \t]+brackets|\([ \t]?\)", re.I),
        _Wrapper("( )", (("(", ")"),)),
    ),
    (
        re.compile(r"\bcurly[ \t]+braces|\bbraces\b|\{[ \t]?\}", re.I),
        _Wrapper("{ }", (("{", "}"),)),
    ),
    (re.compile(r"\bangle[ \t]+brackets|<[ \t]?>", re.I), _Wrapper("< >", (("<", ">"),))),
)
_TAG_CUE_RE = re.compile(r"<[ \t]*/?[ \t]*([A-Za-z][\w:-]*)[ \t]*>")
_BOXED_PARAM_RE = re.compile(r"\\?(?:boxed|box|fbox)(?:[ \t]*\{[ \t]*\})?", re.I)
_GENERIC_PAIR_RE = re.compile(r"([^\w\s]{1,4})[ \t]*(?:(?:\.\.\.|…|answer|x)[ \t]*)?([^\w\s]{1,4})")
_WRAP_CONTEXT_RE = re.compile(
    r"\b(?:wrap\w*|enclos\w*|surround\w*|box\w*|inside|within|between|delimit\w*|mark\w*|"
    r"put|place|placed|highlight\w*|bold\w*|quot\w*|bracket\w*|parenthes\w*|braces?|tags?)\b"
    r"|\\boxed|\[\[|【|<<",
    re.I,
)
_LABEL_ONLY_RE = re.compile(
    r"(?:the[ \t]+)?(?:final[ \t]+)?(?:numerical[ \t]+)?(?:answer|result|solution|conclusion)"
    r"(?:[ \t]+is)?[ \t]*[:：]?",
    re.I,
)


def _wrapper_in(text: str) -> _Wrapper | None:
    for cue, wrapper in _WRAPPER_CUES:
        if wrapper.label == "``` ```":  # tags rank between 【 】 and code fences
            tag = _TAG_CUE_RE.search(text)
            if tag:
                name = tag.group(1).lower()
                return _Wrapper(f"<{name}></{name}>", ((f"<{name}>", f"</{name}>"),), True, "tag")
        if cue.search(text):
            return wrapper
    return None


_ALTERNATIVES_RE = re.compile(r"[ \t]*(?:,|;|\bor\b|\beither\b)[ \t]*", re.I)


def _wrapper_of(text: str) -> _Wrapper | None:
    """The wrapper one stated alternative names (words, a symbol pair, ``\\boxed``)."""
    text = text.strip()
    if _BOXED_PARAM_RE.fullmatch(text):
        return _BOXED
    found = _wrapper_in(text)
    if found:
        return found
    pair = _GENERIC_PAIR_RE.fullmatch(text)
    if pair:
        opener, closer = pair.groups()
        return _Wrapper(f"{opener} {closer}", ((opener, closer),), len(opener) > 1)
    return None


def _requested_wrappers(params: str, question: str) -> tuple[list[_Wrapper], str]:
    """The accepted wrappers: the parameters' alternatives ("a code block or a clearly
    demarcated text box" -> two), else the wrapper the question's sentences name."""
    if params:
        whole = _wrapper_of(params)
        parts = [p for p in _ALTERNATIVES_RE.split(params) if p and p.strip()]
        named = [w for w in (_wrapper_of(p) for p in parts) if w is not None]
        if len(named) > 1:
            return list({w.label: w for w in named}.values()), "parameters"
        if whole is not None:
            return [whole], "parameters"
        if named:
            return named, "parameters"
    context = " ".join(sentences_matching(question, _WRAP_CONTEXT_RE))
    found = _wrapper_in(context) if context else None
    return ([found] if found else []), "question"


def _is_answer(inner: str) -> bool:
    body = inner.strip(" \t*:：")
    return bool(body) and not _LABEL_ONLY_RE.fullmatch(body)


# A frame drawn around the answer: a top edge, one or more side lines, a bottom edge.
_FRAME_TOP_RE = re.compile(r"[ \t]*[┌╔+][─═━-]{2,}[┐╗+][ \t]*")
_FRAME_SIDE_RE = re.compile(r"[ \t]*[│║┃|](.*)[│║┃|][ \t]*")
_FRAME_BOTTOM_RE = re.compile(r"[ \t]*[└╚+][─═━-]{2,}[┘╝+][ \t]*")
# With no wrapper named anywhere, any of these counts (the authors' newest rule: any
# recognised wrapper); the common pairs must enclose the whole final answer.
_ANY_PAIRS = (("[", "]"), ("(", ")"), ("{", "}"), ("**", "**"), ("`", "`"), ('"', '"'))


def _framed(response: str) -> str | None:
    """The text inside the last frame drawn with box characters (or ``+---+``), if any."""
    lines = response.splitlines()
    found: str | None = None
    inside: list[str] | None = None
    for line in lines:
        if inside is None:
            if _FRAME_TOP_RE.fullmatch(line):
                inside = []
            continue
        side = _FRAME_SIDE_RE.fullmatch(line)
        if side:
            inside.append(side.group(1).strip())
        elif _FRAME_BOTTOM_RE.fullmatch(line) and any(inside):
            found, inside = " ".join(t for t in inside if t), None
        else:
            inside = [] if _FRAME_TOP_RE.fullmatch(line) else None
    return found


def _any_wrapper(response: str) -> Verdict:
    for wrapper in (_BOX, *(w for _, w in _WRAPPER_CUES if w.anywhere and w.kind != "box")):
        verdict = _wrapped(wrapper, response)
        if verdict.score == 1.0:
            return Verdict.passed(f"no wrapper named, any accepted: {verdict.reason}")
    tag = re.search(r"<([A-Za-z][\w:-]*)>[^<]*\S[^<]*</\1>", response)
    if tag:
        return Verdict.passed(f"no wrapper named, any accepted: <{tag.group(1)}> tags")
    answer = final_answer_or_last_line(response)
    body = _LABEL_ONLY_RE.sub("", answer.text, count=1).strip(" \t.") if answer else ""
    for opener, closer in _ANY_PAIRS:
        inner = body[len(opener) : -len(closer)] if len(body) > len(opener + closer) else ""
        if body.startswith(opener) and body.endswith(closer) and inner.strip():
            return Verdict.passed(
                f"no wrapper named, any accepted: {opener} {closer} encloses the final answer"
            )
    return Verdict.failed(
        "no wrapper named, and the final answer is in none (\\boxed{}, frame, code fence, "
        "[[ ]], tags, brackets, bold, quotes)"
    )


@register("general_wrap_up")
def wrap_up(inp: CheckInput) -> Verdict:
    wrappers, _ = _requested_wrappers(clean_parameters(inp.parameters), inp.question or "")
    if not wrappers:
        return _any_wrapper(inp.response)
    verdicts = [_wrapped(wrapper, inp.response) for wrapper in wrappers]
    passed = next((v for v in verdicts if v.score == 1.0), None)
    if passed is not None or len(verdicts) == 1:
        return passed or verdicts[0]
    labels = " or ".join(w.label for w in wrappers)
    return Verdict.failed(f"none of {labels}: " + "; ".join(v.reason for v in verdicts))


def _wrapped(wrapper: _Wrapper, response: str) -> Verdict:
    if wrapper.kind == "box":
        frame = _framed(response)
        if frame:
            return Verdict.passed(f"final answer in a drawn frame: {clip(frame)!r}")
        box = last_boxed(response)
        if box is not None and box.text.strip():
            return Verdict.passed(f"final answer in \\boxed{{{clip(box.text)}}}")
        return Verdict.failed("no box: no non-empty \\boxed{...} and no frame drawn around it")
    if wrapper.kind == "boxed":
        box = last_boxed(response)
        if box is None:
            return Verdict.failed("no closed \\boxed{...} found")
        if not box.text.strip():
            return Verdict.failed("the last \\boxed{} is empty")
        return Verdict.passed(f"final answer in \\boxed{{{clip(box.text)}}}")
    if wrapper.kind == "fence":
        blocks = [b for b in code_blocks(response) if b.closed and b.body.strip()]
        if blocks:
            return Verdict.passed(f"answer in a code fence: {clip(blocks[-1].body)}")
        return Verdict.failed("no non-empty closed ``` code fence found")
    if wrapper.anywhere:
        region = Span(response, 0, len(response), "the response")
    else:
        region = answer_region(response) or Span("", 0, 0, "answer line")
    where = "the response" if wrapper.anywhere else f"the final answer ({region.source})"
    hay = region.text.lower() if wrapper.kind == "tag" else region.text
    found = ""
    for opener, closer in wrapper.pairs:
        for span in enclosed(hay, opener, closer):
            if _is_answer(span.text):
                found = span.text
    if found:
        return Verdict.passed(f"{wrapper.label} encloses {clip(found)!r} in {where}")
    return Verdict.failed(f"no non-empty {wrapper.label} around an answer in {where}")


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
) -> Verdict:
    """Run ``check(text, where)`` on each ``structured_answers`` candidate: the first pass
    wins, else the verdict on the last candidate (the final answer, when there is one)."""
    verdict = Verdict.failed("empty response")
    for text, where in structured_answers(inp.response, langs, _scope(inp, keyword)):
        verdict = check(text, where)
        if verdict.score == 1.0:
            break
    return verdict


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not valid JSON")


_JSON_KINDS = {list: "array", str: "string", int: "number", float: "number", bool: "boolean"}


@register("general_json_constraint")
def json_constraint(inp: CheckInput) -> Verdict:
    return _first_valid(inp, _JSON_KEY, ("json",), _json_object)


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
    return Verdict.passed(f"{where} is a JSON object with {_plural(len(value), 'key')}")


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
        size = _plural(len(value), "item")  # type: ignore[arg-type]
        return Verdict.passed(f"{where} is a Python {name} of {size}")

    return _first_valid(inp, keyword, _PY_LANGS, check)


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
_ITEM_STRIP = " \t\r\n\"'`“”‘’*.,;:"
_LEADING_JOINER_RE = re.compile(r"^(?:and|or|either)[ \t]+", re.I)


def _split_items(text: str) -> list[str]:
    """``"a, b, or c"`` / ``"a or b"`` / ``"a/b/c"`` / ``"a and b"`` -> items, cleaned."""
    t = text.strip().strip("[]{}").strip()
    if re.search(r"[,;|]", t):
        parts = re.split(r"[,;|]", t)
    elif re.search(r"[ \t]or[ \t]", t, re.I):
        parts = re.split(r"[ \t]+or[ \t]+", t, flags=re.I)
    elif "/" in t:
        parts = t.split("/")
    else:
        parts = re.split(r"[ \t]+and[ \t]+", t, flags=re.I)
    items = []
    for part in parts:
        item = _LEADING_JOINER_RE.sub("", part.strip(_ITEM_STRIP)).strip(_ITEM_STRIP)
        if item.startswith("(") and item.endswith(")"):
            item = item[1:-1].strip()
        if item:
            items.append(item)
    return items


def _required_keys(params: str, question: str) -> tuple[list[str], str]:
    for source, text in (("parameters", params), ("question", question)):
        if not text:
            continue
        listed = _KEYS_LIST_RE.search(text)
        if listed:
            keys = _split_items(listed.group(1))
            if keys:
                return keys, source
        for sentence in sentences_matching(text, _KEY_SENTENCE_RE):
            quoted = [m.group(1).strip() for m in _QUOTED_RE.finditer(sentence)]
            if quoted:
                return quoted, source
        for template in enclosed(text, "{", "}"):
            keys = [m.group(1) for m in _TEMPLATE_KEY_RE.finditer(template.text)]
            if keys:
                return keys, source
    return [], ""


@register("general_dictionary_constraint")
def dictionary_constraint(inp: CheckInput) -> Verdict:
    keys, source = _required_keys(clean_parameters(inp.parameters), inp.question or "")

    def check(text: str, where: str) -> Verdict:
        value, error = _python_literal(text, where)
        if error:
            return Verdict.failed(error)
        if not isinstance(value, dict):
            return Verdict.failed(f"{where} is a Python {type(value).__name__}, not a dict")
        missing = [k for k in keys if k not in value]
        if missing:
            return Verdict.failed(f"dict in {where} lacks required key(s) {_show(missing)}")
        found = f", required keys {_show(keys)} (from the {source}) present" if keys else ""
        return Verdict.passed(f"{where} is a Python dict of {_plural(len(value), 'key')}{found}")

    return _first_valid(inp, _DICT_KEY, _PY_LANGS, check)


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
    if _scope(inp, _MARKDOWN_KEY) == "final":
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
    return Verdict.passed(f"Markdown in {where}: {', '.join(found)}")


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
    pos = 0
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
            stack.pop()
            continue
        elements.append(name)
        if self_closing or name in _VOID_ELEMENTS:
            continue
        if name in _RAW_TEXT_END:
            end_tag = _RAW_TEXT_END[name].search(text, pos)
            if end_tag is None:
                return f"<{name}> never closed", elements
            pos = end_tag.end()
            continue
        stack.append(name)
    if stack:
        return f"<{stack[-1]}> never closed", elements
    if not elements:
        return "no HTML elements", elements
    return "", elements


@register("general_html_constraint")
def html_constraint(inp: CheckInput) -> Verdict:
    return _first_valid(inp, _HTML_KEY, ("html", "htm"), _html_verdict)


def _html_verdict(text: str, where: str) -> Verdict:
    if "<" not in text:
        return Verdict.failed(f"no HTML tags in {where}")
    problem, elements = _html_problem(text)
    if problem:
        return Verdict.failed(f"malformed HTML in {where}: {problem}")
    return Verdict.passed(
        f"well-formed HTML in {where}: {_plural(len(elements), 'element')}, first <{elements[0]}>"
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

    return _first_valid(inp, _XML_KEY, ("xml",), check)


@register("general_csv_constraint")
def csv_constraint(inp: CheckInput) -> Verdict:
    return _first_valid(inp, _CSV_KEY, ("csv",), _csv_verdict)


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
        return Verdict.failed(f"{where} has {_plural(len(rows), 'CSV row')}; at least 2 needed")
    width = len(rows[0])
    if width < 2:
        return Verdict.failed(f"{where} has 1 column only (no commas in the first row)")
    for i, row in enumerate(rows[1:], start=2):
        if len(row) != width:
            return Verdict.failed(
                f"ragged CSV in {where}: row {i} has {len(row)} fields, row 1 has {width}"
            )
    return Verdict.passed(f"CSV in {where}: {len(rows)} rows x {width} columns")


# --------------------------------------------------------------------------- selection


@dataclass(frozen=True)
class _Option:
    label: str  # "A", "b", "1", or "" for an unlabelled option
    text: str  # the option's text, or "" for a bare label

    def __str__(self) -> str:
        if self.label and self.text:
            return f"({self.label}) {self.text}"
        return self.label or self.text


_OPTION_LABEL_RE = re.compile(
    r"(?:^|(?<=[\s:;,]))(?:\(([A-Za-z]|[1-9])\)|([A-Za-z]|[1-9])[.):])(?=[ \t])", re.M
)
_CHOICE_INTRO_RE = re.compile(
    r"\b(?:choose|select|pick)\b[^.\n:]{0,80}?\b(?:from|of|among|between|either)\b"
    r"(?:[ \t]+the[ \t]+following)?"
    r"(?:[ \t]+(?:options|choices|labels|categories|terms|list|set|values))?[ \t]*[:：]?"
    r"|\b(?:options|choices|candidates|labels|categories)[ \t]*(?:(?:are|include)[ \t]*)?[:：]"
    r"|\bone[ \t]+of(?:[ \t]+the[ \t]+following)?"
    r"(?:[ \t]+(?:options|choices|labels|categories|terms))?[ \t]*[:：]",
    re.I,
)
_PARAM_NAME_RE = re.compile(r"^[A-Za-z_ ]{1,40}[:=][ \t]*")
_SENTENCE_END_RE = re.compile(r"\n|[.?!](?=\s|$)")
_BULLET_RE = re.compile(r"^[ \t]*[-*•][ \t]+(\S[^\n]*)$", re.M)
_CHOICE_KEY = re.compile(r"\b(?:choose|select|pick|options?|choices?|one[ \t]+of)\b", re.I)
_OPTION_TAIL = " \t,;"


def _labelled_options(text: str) -> list[_Option]:
    """The longest run of consecutive labels (a, b, c... / A, B... / 1, 2...) in ``text``."""
    marks = [
        (m.start(), m.end(), m.group(1) or m.group(2)) for m in _OPTION_LABEL_RE.finditer(text)
    ]
    best: list[tuple[int, int, str]] = []
    for i, first in enumerate(marks):
        if first[2] not in ("a", "A", "1"):
            continue
        run = [first]
        for mark in marks[i + 1 :]:
            if ord(mark[2]) == ord(run[-1][2]) + 1:
                run.append(mark)
        if len(run) >= 2 and len(run) > len(best):
            best = run
    options = []
    for k, (_, end, label) in enumerate(best):
        if k + 1 < len(best):
            body = text[end : best[k + 1][0]]
        else:
            stop = _SENTENCE_END_RE.search(text, end)
            body = text[end : stop.start() if stop else len(text)]
        body = re.sub(r"\s+(?:or|and)$", "", body.strip().strip(_OPTION_TAIL), flags=re.I)
        options.append(_Option(label, body.strip().strip(_OPTION_TAIL + ".").strip()))
    return options


def _listed_options(rest: str) -> list[_Option]:
    """Items on the rest of the line after a "choose from" intro, or bullet lines below."""
    stop = _SENTENCE_END_RE.search(rest)
    line = rest[: stop.start() if stop else len(rest)]
    line = line.rsplit(":", 1)[-1]  # "... the type of rock: a, b, c" -> "a, b, c"
    items = _split_items(line) if line.strip() else []
    if len(items) < 2 and not line.strip():
        items = [m.group(1).strip() for m in _BULLET_RE.finditer(rest.split("\n\n", 1)[0])]
    if len(items) < 2:
        return []
    return [
        _Option(item, "") if re.fullmatch(r"[A-Za-z]|[1-9]", item) else _Option("", item)
        for item in items
    ]


_CHOICE_LIST_RE = re.compile(r"\bchoice[ \t]+list\b", re.I)
_QUOTE_LINE_RE = re.compile(r"[ \t]*>[ \t]?(.*)")


def _block_quote_options(text: str) -> list[_Option]:
    """``> option`` lines after a ``CHOICE LIST`` header (the released form; the options may
    be SMILES, names or labels): the first run of block-quote lines after the header."""
    header = _CHOICE_LIST_RE.search(text)
    if header is None:
        return []
    items: list[str] = []
    for line in text[header.end() :].splitlines()[1:]:
        quoted = _QUOTE_LINE_RE.fullmatch(line)
        if quoted and quoted.group(1).strip():
            items.append(quoted.group(1).strip())
        elif items and line.strip():
            break  # the run of options ended
    return [_Option("", item) for item in dict.fromkeys(items)]


def _options(params: str, question: str) -> tuple[list[_Option], str]:
    for source, text in (("parameters", params), ("question", question)):
        if not text:
            continue
        quoted = _block_quote_options(text)
        if quoted:
            return quoted, source
        intro = _CHOICE_INTRO_RE.search(text)
        if intro:
            rest = text[intro.end() :]
        else:  # "choose_from = [a, b]" in parameters: drop the name
            rest = _PARAM_NAME_RE.sub("", text) if source == "parameters" else ""
        if rest:
            options = _labelled_options(rest) or _listed_options(rest)
            if options:
                return options, source
        if source == "question":
            options = _labelled_options(text)
            if options:
                return options, source
    return [], ""


def _label_pattern(label: str) -> re.Pattern[str]:
    """How a bare label is recognised in an answer (see the module docstring). Every
    alternative starts with a literal, so the regex engine can skip ahead quickly."""
    esc = re.escape(label)
    if label.isupper() and label not in ("A", "I"):
        return re.compile(rf"{esc}(?<!\w{esc})(?!\w)")
    return re.compile(
        rf"\({esc}\)"
        rf"|{esc}(?<![\w.]{esc})(?:[.):](?!\w)|(?=[ \t]*(?:[,;/]|or\b|and\b|$)))"
        rf"|(?:option|choice|answer)(?<!\w.{{6}})[ \t]*[:：]?[ \t]*{esc}(?!\w)",
        re.I if label.isalpha() else 0,
    )


def _option_hits(
    option: _Option, text: str, lowered: str, limit: int = 50, case_sensitive: bool = False
) -> list[tuple[int, int]]:
    """Where ``option`` is named in ``text`` (``lowered`` is ``text.lower()``)."""
    patterns: list[tuple[re.Pattern[str], str]] = []
    if option.text:
        wanted = option.text if case_sensitive else option.text.lower()
        if (text if case_sensitive else lowered).find(wanted) < 0:
            wanted = ""  # not there at all: skip compiling a pattern for it
        if wanted:
            esc = re.escape(wanted)
            pattern = re.compile(rf"{esc}(?<!\w{esc})(?!\w)")
            patterns.append((pattern, text if case_sensitive else lowered))
    if option.label:
        if text.strip(" \t*.()[]{}\"'`:") == option.label:
            return [(0, len(text))]
        patterns.append((_label_pattern(option.label), text))
    hits: list[tuple[int, int]] = []
    for pattern, haystack in patterns:
        for k, m in enumerate(pattern.finditer(haystack)):
            if k >= limit:
                break
            hits.append(m.span())
    return hits


def _case_sensitive(options: list[_Option]) -> bool:
    """Options are matched ignoring case unless case tells them apart (``c1ccccc1`` and
    ``C1CCCCC1``) or they are all SMILES, where case is meaning (aromatic ``c``)."""
    texts = [o.text for o in options if o.text]
    if len({t.lower() for t in texts}) < len(set(texts)):
        return True
    return bool(texts) and all(smiles_shaped(t) and not t.isalpha() for t in texts)


def _named_options(options: list[_Option], text: str) -> list[_Option]:
    """Options named in ``text``; a hit inside a longer hit of another option is dropped.

    One sweep over all hits sorted by start (longest first): a hit is dominated when a hit
    of another option that starts no later reaches at least as far and is longer. Keeping
    the two farthest-reaching hits of distinct options seen so far makes it linear in the
    number of hits, not quadratic in the number of options."""
    lowered = text.lower()
    exact = _case_sensitive(options)
    hits = sorted(
        (start, -end, i)
        for i, option in enumerate(options)
        for start, end in _option_hits(option, text, lowered, case_sensitive=exact)
    )
    named: set[int] = set()
    best: list[tuple[int, int, int]] = []  # (end, start, option) of the two farthest reaches
    for start, neg_end, i in hits:
        end = -neg_end
        other = next((b for b in best if b[2] != i), None)
        if other is None or not (other[0] > end or (other[0] == end and other[1] < start)):
            named.add(i)
        best = _two_farthest([*best, (end, start, i)])
    return [options[i] for i in sorted(named)]


def _two_farthest(reaches: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """The farthest-reaching hit, and the farthest of an option other than its own."""
    reaches.sort(key=lambda r: (-r[0], r[1]))
    first = reaches[0]
    second = next((r for r in reaches[1:] if r[2] != first[2]), None)
    return [first, second] if second else [first]


def _same_molecule(options: list[_Option], text: str) -> list[_Option]:
    """SMILES options named by an equivalent SMILES (``OCC`` for ``CCO``): each token of
    ``text`` that parses is compared with the options by canonical SMILES."""
    canonical: dict[str, int] = {}
    for i, option in enumerate(options):
        mol, _ = parse_smiles(option.text) if option.text else (None, "")
        if mol is None:
            return []  # not a list of molecules
        canonical.setdefault(Chem.MolToSmiles(mol), i)
    found: dict[int, None] = {}
    for k, m in enumerate(re.finditer(r"[^\s,;]+", text)):
        if k >= 200:
            break
        token = m.group().strip("`*'\"“”.()[]{}:")
        if not smiles_shaped(token):
            continue
        mol, _ = parse_smiles(token)
        if mol is not None and (key := Chem.MolToSmiles(mol)) in canonical:
            found[canonical[key]] = None
    return [options[i] for i in found]


@register("general_choose_from")
def choose_from(inp: CheckInput) -> Verdict:
    options, source = _options(clean_parameters(inp.parameters), inp.question or "")
    if not options:
        return Verdict.unscored("options to choose from not found in parameters or question")
    text, where = scoped_text(inp.response, _scope(inp, _CHOICE_KEY, default="final"))
    named, how = _named_options(options, text), ""
    if not named:
        named, how = _same_molecule(options, text), " (the same molecule, written differently)"
    if len(named) == 1:
        return Verdict.passed(
            f"one of {len(options)} options (from the {source}) named in {where}: {named[0]}{how}"
        )
    if not named:
        listed = _show([str(o) for o in options], 4)
        return Verdict.failed(
            f"none of the {len(options)} options from the {source} ({listed}) in {where}: "
            f"{clip(text)!r}"
        )
    return Verdict.failed(
        f"{len(named)} options named in {where}: {_show([str(o) for o in named])}"
    )


_JUDGE_KEY = re.compile(r"\byes\b|\btrue[ \t]+or[ \t]+false\b|\bjudge", re.I)
_YES_NO_RE = re.compile(r"(yes|no)\.?", re.I)


@register("general_judge")
def judge(inp: CheckInput) -> Verdict:
    text, where = scoped_text(inp.response, _scope(inp, _JUDGE_KEY))
    answer = text.strip()
    if _YES_NO_RE.fullmatch(answer):
        return Verdict.passed(f"{where} is exactly {answer!r}")
    return Verdict.failed(f"{where} is not just Yes or No: {clip(answer)!r}")


# --------------------------------------------------------------------------- structure

_POSITIONS = {
    "beginning": "beginning",
    "begin": "beginning",
    "start": "beginning",
    "first": "beginning",
    "top": "beginning",
    "opening": "beginning",
    "open": "beginning",
    "middle": "middle",
    "center": "middle",
    "centre": "middle",
    "midst": "middle",
    "end": "end",
    "ending": "end",
    "last": "end",
    "bottom": "end",
    "conclude": "end",
    "finish": "end",
    "close": "end",
}
_PARAM_POSITION_RE = re.compile(
    r"\b(beginning|begin|start|first|top|opening|middle|center|centre|midst|end|ending|last|"
    r"bottom)\b",
    re.I,
)
_QUESTION_POSITION_RE = re.compile(
    r"\b(?:at|in|to|near|toward|towards)[ \t]+the[ \t]+(?:very[ \t]+)?"
    r"(beginning|start|top|middle|center|centre|end|bottom)\b"
    r"|\b(begin|start|open|end|conclude|finish|close)[ \t]+(?:your[ \t]+|the[ \t]+)?"
    r"(?:response|answer|output|reply|explanation|solution)[ \t]+with\b",
    re.I,
)
# Sentences that place the answer: "answer", "result", or what the answer is here ("State
# the label at the beginning of your response").
_ANSWER_SENTENCE_RE = re.compile(
    r"\b(?:answer|result|conclusion|label|choice|option|classification|verdict)s?\b", re.I
)
_BOXED_START_RE = re.compile(r"\\(?:boxed|fbox)\b")
_SENTENCE_BREAK_RE = re.compile(r"(?<=[.!?])\s+")
_CLOSING = " \t\r\n*`~$.}])\\"


def _required_position(params: str, question: str) -> tuple[set[str], str]:
    if params:
        found = {_POSITIONS[m.group(1).lower()] for m in _PARAM_POSITION_RE.finditer(params)}
        if found:
            return found, "parameters"
    found = set()
    for sentence in sentences_matching(question, _ANSWER_SENTENCE_RE):
        for m in _QUESTION_POSITION_RE.finditer(sentence):
            found.add(_POSITIONS[(m.group(1) or m.group(2)).lower()])
    return found, "question"


def _units(response: str) -> list[Span]:
    """Non-empty lines; the sentences when the response is a single line."""
    lines = non_empty_lines(response)
    if len(lines) != 1:
        return lines
    line = lines[0]
    out, start = [], line.start
    for m in _SENTENCE_BREAK_RE.finditer(response, line.start, line.end):
        out.append(Span(response[start : m.start()], start, m.start(), "sentence"))
        start = m.end()
    out.append(Span(response[start : line.end], start, line.end, "sentence"))
    return out


def _is_title(unit: Span) -> bool:
    s = unit.text.strip()
    return (
        s.startswith("#")
        or s.endswith(":")
        or (s.startswith("**") and s.endswith("**") and s.count("**") == 2)
    )


def _occurrences(response: str) -> list[tuple[int, int]]:
    """(start of the answer marker or box, end of the marker) for every answer occurrence."""
    found = [(m.start(), m.end()) for m in ANSWER_MARKER_RE.finditer(response)]
    found += [(m.start(), m.end()) for m in _BOXED_START_RE.finditer(response)]
    return sorted(found)


@register("general_response_structure")
def response_structure(inp: CheckInput) -> Verdict:
    positions, source = _required_position(clean_parameters(inp.parameters), inp.question or "")
    if not positions:
        return Verdict.unscored("required answer position not stated in parameters or question")
    if len(positions) > 1:
        return Verdict.unscored(
            f"conflicting answer positions in the {source}: {sorted(positions)}"
        )
    position = positions.pop()
    response = inp.response
    occurrences = _occurrences(response)
    if not occurrences:
        return Verdict.failed(
            "no final-answer marker (Final answer:/Answer:/The answer is/\\boxed)"
        )
    units = _units(response)
    if position == "middle":
        blocks = paragraphs(response)
        units = blocks if len(blocks) >= 3 else units
    kind = units[0].source if units else "line"
    starts = [u.start for u in units]
    indices = [max(0, bisect_right(starts, start) - 1) for start, _ in occurrences]
    last = len(units) - 1
    check: Callable[[int, int], bool]
    if position == "beginning":
        first = 1 if last > 0 and 0 not in indices and _is_title(units[0]) else 0

        def check(i: int, _end: int) -> bool:
            return i <= first
    elif position == "end":

        def check(i: int, end: int) -> bool:
            alone = i == last - 1 and not response[end : units[i].end].strip(" \t*:：")
            return i == last or alone
    else:
        if len(units) < 3:
            return Verdict.failed(f"response has {_plural(len(units), kind)}: no middle")

        def check(i: int, _end: int) -> bool:
            return 0 < i < last

    hits = [i for i, (_, end) in zip(indices, occurrences, strict=True) if check(i, end)]
    if not hits and position == "end":
        # A final answer of several lines (a list, a table, a fenced block) under its
        # marker is at the end when nothing but closing punctuation follows it.
        span = final_answer(response)
        if span is not None and span.text and not response[span.end :].strip(_CLOSING):
            lines = response.count("\n", span.start, span.end) + 1
            return Verdict.passed(
                f"final answer at the end: the last {_plural(lines, 'line')} of the response"
            )
    if hits:
        return Verdict.passed(
            f"final answer at the {position}: {kind} {hits[0] + 1} of {len(units)}"
        )
    seen = _show([str(i + 1) for i in sorted(set(indices))])
    return Verdict.failed(
        f"final answer not at the {position}: found on {kind}(s) {seen} of {len(units)}"
    )
