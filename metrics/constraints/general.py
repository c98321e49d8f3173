"""Checkers of the rule-scored general constraints of the SciMIF catalogue.

``general_number_response`` is judge-scored (``judged.py``; without an LLM judge the
registry reports it unscored). Every other ``general_*`` constraint except the structured
formats (``formats.py``) has one checker below. Each reads the
requirement from ``parameters`` first, then from the question; when it cannot be read from
either, the verdict is unscored with the reason, never a guess. Shared parsing (final
answer, scope, numbers, code fences) lives in ``text.py``, whose docstring defines those
terms.

Scope: a requirement applies to the whole response unless the parameters, or the question
sentences that mention it, restrict it to the final answer (``text.requirement_scope``).
``general_choose_from`` defaults to the final answer instead (a selection is an answer), and
so do the precision and notation requirements (decimal places, scientific notation: issue
19, they concern the quantity asked for, not every number of the working) unless the
parameters or the question say every / all numbers, values, results, the entire / whole
response, throughout or intermediate steps.

Decision rules, one per constraint:

* decimal_annotation: required places from "N decimal places" / "one decimal place" /
  "nearest tenth" / "nearest integer" (0) / a bare count; two different counts stated ->
  unscored. Pass iff every number in scope (``text.find_numbers``) has exactly N digits
  after the decimal point (mantissa digits for scientific notation); no number -> fail.
* scientific_annotation: pass iff every number in scope is written as mantissa times a
  power of ten (``1.23e-4``, ``1.23 × 10^-4``, ``1.23 \\times 10^{-4}``, ``1.23*10^5``,
  ``10^{-4}``) with 1 <= |mantissa| < 10 (or 0); no number -> fail.
* all_uppercase / all_lowercase: the text is read through ``text.read_latex`` (LaTeX
  escaped in JSON strings, ``\\n`` escapes); LaTeX command names (``\\times``,
  ``\\BOXED``) and environment names (``\\begin{aligned}``) are markup and dropped, the
  letters of their arguments (``\\text{Speed}``, a variable ``$V$``) count like any other;
  then every cased letter in scope must have the required case; digits and punctuation are
  ignored; no cased letter -> fail.
* wrap_up: the wrapper named by the parameters, else by the question sentences about
  wrapping (``\\boxed{}``, ``[[ ]]``, ``{{ }}``, ``<< >>``, ``【 】``, ``<tag></tag>``, code
  fence, ``** **``, backticks, ``$ $``, quotes, ``[ ]``, ``( )``, ``{ }``, ``< >``, or a
  bare symbol pair in the parameters such as ``|| ||``); none named -> unscored. ``\\boxed``:
  the last ``\\boxed{...}`` must be closed and non-empty. Distinctive wrappers (``[[ ]]``,
  ``{{ }}``, ``<< >>``, ``【 】``, tags, code fences) may appear anywhere. Common ones
  (bold, quotes, brackets, ``$``...) must enclose non-empty text that is not just an
  answer label ("**Final Answer:**") on the final-answer line(s) (``text.answer_region``).
  "Enclose the entire / whole response in X" (parameters, or the question's sentences about
  wrapping, with no "final answer" in them): the response stripped (math ``$`` aside) must
  begin with X's opener and end with its closer (one ``\\boxed{...}``, one fence, a frame
  from the first line to the last); wrapping the final answer only fails.
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
  a marker alone on the next-to-last line whose answer is the last line, or the answer
  statement that begins at the last marker running to the end of the response (its
  sentence may wrap lines: a line ending mid-sentence continues on the next one; a blank
  line, or a next line starting with a capital, a heading, a list marker, bold or a fence,
  ends it). middle: with at
  least three paragraphs (else three units), an occurrence in neither the first nor the
  last one. No occurrence -> fail.

The structured formats are in ``formats.py``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass

from sci_tasks.metrics.constraints.answers import (
    ANSWER_MARKER_RE,
    answer_region,
    code_blocks,
    enclosed,
    final_answer,
    final_answer_or_last_line,
    last_boxed,
    scoped_text,
)
from sci_tasks.metrics.constraints.base import (
    CheckInput,
    input_scope,
    register,
    register_judged,
)
from sci_tasks.metrics.constraints.escaping import read_latex
from sci_tasks.metrics.constraints.judged import NUMBER_RESPONSE
from sci_tasks.metrics.constraints.number_grammar import Number, find_numbers, parse_decimal_places
from sci_tasks.metrics.constraints.options import (
    CHOICE_KEY,
    chosen_options,
    read_options,
    same_molecule,
)
from sci_tasks.metrics.constraints.text import (
    Span,
    clauses_matching,
    clean_parameters,
    clip,
    non_empty_lines,
    paragraphs,
    plural,
    sentences_matching,
    show_items,
)
from sci_tasks.metrics.verdict import Verdict

# --------------------------------------------------------------------------- precision

_DECIMAL_KEY = re.compile(
    r"decimal|\bd\.p\.|tenth|hundredth|thousandth|nearest[ \t]+integer|whole[ \t]+number|"
    r"precision",
    re.I,
)
_SCIENTIFIC_KEY = re.compile(
    r"scientific|exponential|e-notation|standard[ \t]+form|powers?[ \t]+of[ \t]+(?:ten|10)", re.I
)


# A bracketed aside in the final answer that gives another quantity ("7.67 m/s (g = 9.8
# m/s^2)", "(using g = 9.8)") is data the answer rests on, not the answer.
_GIVEN_ASIDE_RE = re.compile(
    r"\((?:[^()\n]{0,40}?\b(?:using|with|taking|assuming|given|where)\b"
    r"|[ \t]*[A-Za-z\\][\w\\{}^]{0,12}[ \t]*=)[^()\n]{0,80}\)"
)


def _answer_numbers(text: str, scope: str) -> list[Number]:
    """The numbers of ``text`` a precision rule applies to: in the final answer, those of a
    given-quantity aside are left out when a number stays outside it."""
    numbers = find_numbers(text)
    if scope != "final" or "(" not in text:
        return numbers
    asides = [m.span() for m in _GIVEN_ASIDE_RE.finditer(text)]
    kept = [x for x in numbers if not any(a <= x.start < b for a, b in asides)]
    return kept or numbers


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
    scope = input_scope(inp, _DECIMAL_KEY, default="final")
    text, where = scoped_text(inp.response, scope)
    numbers = _answer_numbers(text, scope)
    if not numbers:
        return Verdict.failed(f"no number found in {where} ({n} decimals required)")
    bad = [x.text for x in numbers if x.decimals != n]
    if bad:
        return Verdict.failed(
            f"{len(bad)} of {plural(len(numbers), 'number')} in {where} lack exactly "
            f"{plural(n, 'decimal')}: {show_items(bad)}"
        )
    return Verdict.passed(
        f"{plural(len(numbers), 'number')} in {where}, all with {plural(n, 'decimal')}"
    )


@register("general_scientific_annotation")
def scientific_annotation(inp: CheckInput) -> Verdict:
    scope = input_scope(inp, _SCIENTIFIC_KEY, default="final")
    text, where = scoped_text(inp.response, scope)
    numbers = _answer_numbers(text, scope)
    if not numbers:
        return Verdict.failed(f"no number found in {where}")
    plain = [x.text for x in numbers if not x.scientific]
    if plain:
        return Verdict.failed(
            f"{len(plain)} of {plural(len(numbers), 'number')} in {where} not in scientific "
            f"notation: {show_items(plain)}"
        )
    off = [x.text for x in numbers if not x.normalized]
    if off:
        return Verdict.failed(f"mantissa outside [1, 10) in {where}: {show_items(off)}")
    return Verdict.passed(
        f"{plural(len(numbers), 'number')} in {where}, all in scientific notation"
    )


# --------------------------------------------------------------------------- letter case

_UPPER_KEY = re.compile(r"upper[ \t-]*case|capital|\bcaps\b|block[ \t]+letters", re.I)
_LOWER_KEY = re.compile(r"lower[ \t-]*case|small[ \t]+letters|no[ \t]+capital", re.I)
_LATEX_COMMAND_RE = re.compile(r"\\[A-Za-z]+")
_LATEX_ENVIRONMENT_RE = re.compile(r"\\(?:begin|end|BEGIN|END)[ \t]*\{[A-Za-z*]{1,20}\}")
_FENCE_INFO_RE = re.compile(r"^[ \t]*(?:```|~~~)[^\n]*", re.M)
_OBJECT_KEY_RE = re.compile(r"\"[^\"\n]{0,80}\"[ \t]*:|'[^'\n]{0,80}'[ \t]*:")


def _letter_case(inp: CheckInput, upper: bool) -> Verdict:
    scope = input_scope(inp, _UPPER_KEY if upper else _LOWER_KEY)
    text, where = scoped_text(inp.response, scope)
    # LaTeX command and environment names are markup, not prose; the letters of their
    # arguments (\text{Speed}, \BOXED{SPEED}, a variable $V$) are the response's letters
    if "\\" in text:
        text = _LATEX_COMMAND_RE.sub(" ", _LATEX_ENVIRONMENT_RE.sub(" ", read_latex(text)))
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


# "Enclose the entire response in ...": the wrapper must hold all of the response.
_ENTIRE_RE = re.compile(
    r"\b(?:entire|whole|complete|full|all[ \t]+of[ \t]+(?:the|your))[ \t]+"
    r"(?:response|output|reply|message)\b|\b(?:entire|whole)[ \t]+answer\b",
    re.I,
)


def _asks_entire(params: str, question: str) -> bool:
    """The parameters, else the question's clauses about wrapping, ask that the ENTIRE
    response be wrapped ("Enclose your entire response in [[ ]]"), not a final answer."""
    about = [c for s in sentences_matching(question, _WRAP_CONTEXT_RE)
             for c in clauses_matching(s, _WRAP_CONTEXT_RE)]  # fmt: skip
    for text in (params, " ".join(about)):
        if text and _ENTIRE_RE.search(text) and not _EXPLICIT_FINAL_RE.search(text):
            return True
    return False


_EXPLICIT_FINAL_RE = re.compile(r"\bfinal[ \t]+(?:numerical[ \t]+)?(?:answer|result|value)", re.I)


def _wraps_whole(wrapper: _Wrapper, response: str) -> Verdict:
    """The whole response (surrounding spaces and math ``$`` aside) inside ``wrapper``."""
    body = response.strip()
    inner: str | None = None
    if wrapper.kind in ("boxed", "box"):
        box = last_boxed(body.strip("$ \t\n"))
        core = body.strip("$ \t\n")
        if box is not None and core.startswith(_BOXED_PREFIXES) and box.end == len(core) - 1:
            inner = box.text
        elif wrapper.kind == "box":
            frame = _framed(body)
            lines = body.splitlines()
            if (
                frame
                and _FRAME_TOP_RE.fullmatch(lines[0])
                and _FRAME_BOTTOM_RE.fullmatch(lines[-1])
            ):
                inner = frame
    elif wrapper.kind == "fence":
        blocks = code_blocks(body)
        if len(blocks) == 1 and blocks[0].closed and body.startswith(("```", "~~~")):
            if body.endswith(("```", "~~~")):
                inner = blocks[0].body
    else:
        hay = body.lower() if wrapper.kind == "tag" else body
        for opener, closer in wrapper.pairs:
            if hay.startswith(opener) and hay.endswith(closer) and len(hay) > len(opener + closer):
                inner = body[len(opener) : len(body) - len(closer)]
                break
    if inner is not None and inner.strip():
        return Verdict.passed(f"the entire response is inside {wrapper.label}")
    part = _wrapped(wrapper, response)
    detail = " (only part of it is: " + part.reason + ")" if part.score == 1.0 else ""
    return Verdict.failed(f"the entire response is not inside {wrapper.label}{detail}")


_BOXED_PREFIXES = ("\\boxed", "\\fbox")


@register("general_wrap_up")
def wrap_up(inp: CheckInput) -> Verdict:
    params = clean_parameters(inp.parameters)
    wrappers, _ = _requested_wrappers(params, inp.question or "")
    if not wrappers:
        return _any_wrapper(inp.response)
    check = _wraps_whole if _asks_entire(params, inp.question or "") else _wrapped
    verdicts = [check(wrapper, inp.response) for wrapper in wrappers]
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


# --------------------------------------------------------------------------- selection


@register("general_choose_from")
def choose_from(inp: CheckInput) -> Verdict:
    options, source = read_options(clean_parameters(inp.parameters), inp.question or "")
    if not options:
        return Verdict.unscored("options to choose from not found in parameters or question")
    text, where = scoped_text(inp.response, input_scope(inp, CHOICE_KEY, default="final"))
    named, how = chosen_options(options, text)
    if not named:
        named, how = same_molecule(options, text), " (the same molecule, written differently)"
    if len(named) == 1:
        return Verdict.passed(
            f"one of {len(options)} options (from the {source}) named in {where}: {named[0]}{how}"
        )
    if not named:
        listed = show_items([str(o) for o in options], 4)
        return Verdict.failed(
            f"none of the {len(options)} options from the {source} ({listed}) in {where}: "
            f"{clip(text)!r}"
        )
    return Verdict.failed(
        f"{len(named)} options named in {where}: {show_items([str(o) for o in named])}"
    )


_JUDGE_KEY = re.compile(r"\byes\b|\btrue[ \t]+or[ \t]+false\b|\bjudge", re.I)
_YES_NO_RE = re.compile(r"(yes|no)\.?", re.I)
_EMPHASIS_RE = re.compile(r"[*_`{}$]|\\(?:boxed|textbf|text)(?=\{)")


@register("general_judge")
def judge(inp: CheckInput) -> Verdict:
    text, where = scoped_text(inp.response, input_scope(inp, _JUDGE_KEY))
    answer = text.strip()
    # Emphasis or a box around the word is markup, not another word: "**Yes**" is Yes.
    if _YES_NO_RE.fullmatch(_EMPHASIS_RE.sub("", answer).strip()):
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


# "Find its speed", "Calculate the final temperature", "What distance does it cover?": the
# head noun of the quantity asked for (the last word of the phrase).
_ASKED_RE = re.compile(
    r"\b(?:find|calculate|determine|compute|estimate|what[ \t]+is|what's)[ \t]+"
    r"(?:(?:its|the|their|his|her)[ \t]+)?((?:[a-z]+[ \t]+){0,2}?[a-z]{3,})"
    r"(?=[ \t]+(?:at|of|in|for|when|after|on|if|that|from|to|between|with)\b|[ \t]*[.?,;]|$)"
    r"|\bwhat[ \t]+((?:[a-z]+[ \t]+){0,1}?[a-z]{3,})[ \t]+(?:does|do|did|is|was|will)\b",
    re.I,
)


def _statements_of_asked(response: str, question: str) -> tuple[list[tuple[int, int]], str]:
    """(start, end) of each sentence stating the asked quantity's value, and its noun."""
    m = _ASKED_RE.search(question)
    if m is None:
        return [], ""
    noun = (m.group(1) or m.group(2)).split()[-1].lower()
    statement = re.compile(
        rf"\b{re.escape(noun)}s?\b[^.\n]{{0,40}}?(?:\bis\b|\bwas\b|\bequals\b|=|:|≈|"
        rf"\bcomes[ \t]+to\b)[ \t]*(?:about|approximately|roughly|~)?[ \t]*\$?[-+−]?[0-9]",
        re.I,
    )
    return [(x.start(), x.start()) for x in statement.finditer(response)], f"asked {noun}"


def _occurrences(response: str) -> list[tuple[int, int]]:
    """(start of the answer marker or box, end of the marker) for every answer occurrence."""
    found = [(m.start(), m.end()) for m in ANSWER_MARKER_RE.finditer(response)]
    found += [(m.start(), m.end()) for m in _BOXED_START_RE.finditer(response)]
    return sorted(found)


_SENTENCE_END_RE = re.compile(r"[.!?。](?=\s|$)|\n")
# A line that starts a new sentence or item, not the answer statement's continuation.
_NEW_SENTENCE_RE = re.compile(r"[ \t]*(?:[A-Z#>|]|\*\*|[-*+][ \t]|[0-9]+[.)][ \t]|```|~~~|\\\[)")


def _statement_end(response: str, pos: int) -> int:
    """Where the sentence that begins at ``pos`` ends: at ". ! ?" before a space, or at a
    line end when the next line is blank or starts a new sentence or item (a capital
    letter, a heading, a list marker, bold, a fence); a line ending mid-sentence ("5.4 m,")
    runs on into the next line."""
    started, line_start = False, pos
    for m in _SENTENCE_END_RE.finditer(response, pos):
        if m.group() != "\n":
            return m.end()
        started = started or bool(response[line_start : m.start()].strip(" \t*:："))
        line_start = m.end()
        if not started:
            continue  # the marker ends its line: the statement is on the next line
        nl = response.find("\n", m.end())
        nxt = response[m.end() : nl if nl >= 0 else len(response)]
        if not nxt.strip() or _NEW_SENTENCE_RE.match(nxt):
            return m.start()
    return len(response)


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
    stated = ""
    if not occurrences:
        # No marker: a sentence stating the quantity the question asks for ("Find its
        # speed" -> "The speed is 7.7 m/s.") is the answer statement an evaluator sees.
        occurrences, stated = _statements_of_asked(response, inp.question or "")
    if not occurrences:
        return Verdict.failed(
            "no final-answer marker (Final answer:/Answer:/The answer is/\\boxed)"
            + (f" and no sentence stating the {stated}" if stated else "")
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
            return Verdict.failed(f"response has {plural(len(units), kind)}: no middle")

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
                f"final answer at the end: the last {plural(lines, 'line')} of the response"
            )
        # "Final answer: The cart covers 5.4 m,\nwhich is ..." : the answer statement that
        # begins at the last marker runs on to the end of the response.
        start = occurrences[-1][0]
        if not response[_statement_end(response, occurrences[-1][1]) :].strip(_CLOSING):
            lines = response.count("\n", start, len(response.rstrip())) + 1
            return Verdict.passed(
                f"final answer at the end: the answer statement from the last marker runs to "
                f"the end ({plural(lines, 'line')})"
            )
    if hits:
        return Verdict.passed(
            f"final answer at the {position}: {kind} {hits[0] + 1} of {len(units)}"
        )
    seen = show_items([str(i + 1) for i in sorted(set(indices))])
    return Verdict.failed(
        f"final answer not at the {position}: found on {kind}(s) {seen} of {len(units)}"
    )


register_judged(NUMBER_RESPONSE, "general_number_response")
