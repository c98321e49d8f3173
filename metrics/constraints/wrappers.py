"""``general_wrap_up``: the answer inside the wrapper the requirement names (the rule-scored
general constraints' common terms are in ``general.py``'s docstring). Decision rule:

* wrap_up: the wrapper named by the parameters, else by the question sentences about
  wrapping (``\\boxed{}``, ``[[ ]]``, ``{{ }}``, ``<< >>``, ``【 】``, ``<tag></tag>``, code
  fence, ``** **``, backticks, ``$ $``, quotes, ``[ ]``, ``( )``, ``{ }``, ``< >``, or a
  bare symbol pair in the parameters such as ``|| ||``); none named -> unscored. ``\\boxed``:
  the last ``\\boxed{...}`` must be closed and non-empty. Distinctive wrappers (``[[ ]]``,
  ``{{ }}``, ``<< >>``, ``【 】``, tags, code fences) may appear anywhere. Common ones
  (bold, quotes, brackets, ``$``...) must enclose non-empty text that is not just an
  answer label ("**Final Answer:**") on the final-answer line(s) (``answers.answer_region``).
  "Enclose the entire / whole response in X" (parameters, or the question's sentences about
  wrapping, with no "final answer" in them): the response stripped (math ``$`` aside) must
  begin with X's opener and end with its closer (one ``\\boxed{...}``, one fence, a frame
  from the first line to the last); wrapping the final answer only fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sci_tasks.metrics.constraints.answers import (
    answer_region,
    code_blocks,
    enclosed,
    final_answer_or_last_line,
    last_boxed,
)
from sci_tasks.metrics.constraints.base import (
    CheckInput,
    register,
)
from sci_tasks.metrics.constraints.text import (
    Span,
    clauses_matching,
    clean_parameters,
    clip,
    sentences_matching,
)
from sci_tasks.metrics.verdict import Verdict

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
    if _asks_entire_in(params):
        return True
    if not _ENTIRE_WORD_RE.search(question):  # no clause of it can ask: no need to split
        return False
    about = [c for s in sentences_matching(question, _WRAP_CONTEXT_RE)
             for c in clauses_matching(s, _WRAP_CONTEXT_RE)]  # fmt: skip
    return _asks_entire_in(" ".join(about))


def _asks_entire_in(text: str) -> bool:
    return bool(text) and bool(_ENTIRE_RE.search(text)) and not _EXPLICIT_FINAL_RE.search(text)


# The first word of every ``_ENTIRE_RE`` match: a question without one has no clause that
# asks for the entire response
_ENTIRE_WORD_RE = re.compile(r"\b(?:entire|whole|complete|full|all)\b", re.I)
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
