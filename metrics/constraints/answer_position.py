"""``general_response_structure``: the final answer at the position the requirement names
(the rule-scored general constraints' common terms are in ``general.py``'s docstring).
Decision rule:

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
  last one; without a marker, a line that is one tuple / list / dict literal or a fenced
  block is the answer when the question names that shape ("give your answer in the middle
  as a Python tuple"). At the beginning, without a marker, an opening the question asks
  for ("Open with a one-sentence answer, then explain") is the first sentence of content
  (titles, headings and HTML tags aside) unless it is a preamble ("Sure!", "Let's ...").
  No occurrence -> fail.

"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_right
from collections.abc import Callable

from sci_tasks.metrics.constraints.answers import (
    ANSWER_MARKER_RE,
    code_blocks,
    final_answer,
    last_answer_marker,
)
from sci_tasks.metrics.constraints.base import (
    CheckInput,
    register,
)
from sci_tasks.metrics.constraints.options import read_options
from sci_tasks.metrics.constraints.text import (
    Span,
    clean_parameters,
    clip,
    non_empty_lines,
    paragraphs,
    plural,
    sentences_matching,
    show_items,
)
from sci_tasks.metrics.verdict import Verdict

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
    r"(?:response|answer|output|reply|explanation|solution)[ \t]+with\b"
    r"|\b(?:very[ \t]+)?(first|last)[ \t]+(?:line|sentence)[ \t]+of[ \t]+(?:your|the)[ \t]+"
    r"(?:response|answer|output|reply)\b",
    re.I,
)
# Sentences that place the answer: "answer", "result", or what the answer is here ("State
# the label at the beginning of your response").
_ANSWER_SENTENCE_RE = re.compile(
    r"\b(?:answer|result|conclusion|label|choice|option|classification|verdict)s?\b|\bchosen\b",
    re.I,
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
            found.add(_POSITIONS[(m.group(1) or m.group(2) or m.group(3)).lower()])
    return found, "question"


def opening_answer(response: str, params: str, question: str) -> str | None:
    """The reply's first line (a title before it skipped) when the requirement places the
    answer at the beginning ("State the chosen category as the very first line"); else None."""
    positions, _ = _required_position(params, question)
    if positions != {"beginning"}:
        return None
    units = _units(response)
    if len(units) > 1 and _is_title(units[0]) and not _bold_answer(units[0]):
        units = units[1:]
    return units[0].text if units else None


_GENERIC_HEADS = frozenset(
    {"answer", "final answer", "solution", "summary", "result", "results", "conclusion"}
)


def _bold_answer(unit: Span) -> bool:
    """A short all-bold first line that is no generic head ("**ROUTE B**", not "**Answer**"
    or a long bold title): the answer itself, in bold."""
    s = unit.text.strip()
    if not (s.startswith("**") and s.endswith("**")):
        return False
    bare = s.strip("* ").rstrip(":").lower()
    return bare not in _GENERIC_HEADS and len(bare.split()) <= 4


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
        # "Answer:", "Here is my answer:" head what follows; a lead-in sentence that ends in
        # a colon ("Since ... the best choice is:") is content before the answer (rule 12)
        or (s.endswith(":") and len(s.split()) <= 6)
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
    if not occurrences and position == "middle":
        # "give your answer in the middle of the response as a Python tuple": the answer is
        # the block of that shape (at the beginning or end, the opening / closing blocks
        # below decide)
        occurrences = _shaped_answers(response, inp.question or "")
    if not occurrences and position == "beginning":
        block = (
            _opening_structured_block(response)
            or _opening_statement(response)
            or _answer_first(response, _units(response))
            or _asked_opening_sentence(response, inp.question or "")
        )
        if block:
            return Verdict.passed(f"final answer at the beginning: the reply opens with {block}")
        # ... and so is an opening that names one of the question's options or bolds its
        # result ("this cyclone is a **Category 3** storm.")
        occurrences = _named_results(response, inp.question or "")
    if not occurrences and position == "end":
        block = _closing_structured_block(response) or _standalone_last_line(response)
        if block:
            return Verdict.passed(f"final answer at the end: the reply ends with {block}")
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
    if not hits and position == "beginning":
        opening = _answer_first(response, units)
        if opening:
            return Verdict.passed(f"final answer at the beginning: the reply opens with {opening}")
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
        remark = _closing_remark(response, occurrences[-1][0])
        if remark:
            return Verdict.passed(
                f"final answer at the end: only a closing remark follows ({clip(remark, 40)!r})"
            )
    if hits:
        return Verdict.passed(
            f"final answer at the {position}: {kind} {hits[0] + 1} of {len(units)}"
        )
    seen = show_items([str(i + 1) for i in sorted(set(indices))])
    return Verdict.failed(
        f"final answer not at the {position}: found on {kind}(s) {seen} of {len(units)}"
    )


# A bold result, not a label ("**Step 1:**", "**Given:**") or a heading's bold.
_BOLD_RE = re.compile(r"\*\*([^*\n]{2,120})\*\*")


def _named_results(response: str, question: str) -> list[tuple[int, int]]:
    """Where the reply names one of the question's options (its CHOICE LIST or lettered
    options) or bolds a result, outside headings and labels ending in a colon."""
    found = []
    for m in _BOLD_RE.finditer(response):
        line_start = response.rfind("\n", 0, m.start()) + 1
        line_end = response.find("\n", m.end())
        line = response[line_start : len(response) if line_end < 0 else line_end]
        if line.lstrip().startswith("#") or m.group(1).rstrip().endswith((":", "：")):
            continue
        found.append((m.start(), m.end()))
    options, _ = read_options("", question)
    for option in options:
        text = option.text or option.label
        if len(text) >= 2:
            found += [
                (m.start(), m.end())
                for m in re.finditer(rf"(?<!\w){re.escape(text)}(?!\w)", response, re.I)
            ]
    return sorted(found)


# A run of tuple lines, or a fenced block, that ends the reply: the structured answer a
# question asked to place at the end ("place the triples at the end of your response").
_TUPLE_LINES_RE = re.compile(r"(?:^[ \t]*[-*]?[ \t]*\([^\n]*\)[ \t]*[,;.]?[ \t]*$\n?){2,}\Z", re.M)


def _closing_structured_block(response: str) -> str:
    text = response.rstrip()
    if _TUPLE_LINES_RE.search(text):
        return "its lines of tuples"
    blocks = code_blocks(text)
    if blocks and blocks[-1].closed and text.endswith(("```", "~~~")):
        return "a fenced block"
    return ""


_OPENING_TUPLE_LINES_RE = re.compile(
    r"\A\s*(?:[ \t]*[-*]?[ \t]*\([^\n]*\)[ \t]*[,;.]?[ \t]*(?:\n|\Z))+"
)


def _opening_structured_block(response: str) -> str:
    """The answer in the shape asked, before anything else: lines of tuples, a fenced block
    or a JSON object / list that opens the reply ("List the pairs at the very beginning")."""
    text = response.lstrip()
    if _OPENING_TUPLE_LINES_RE.match(text):
        return "its lines of tuples"
    if text.startswith(("```", "~~~")):
        return "a fenced block"
    if text.startswith(("{", "[")):
        return "a JSON block"
    return ""


# "THIS IS BRUNAUER–EMMETT–TELLER (BET) SURFACE AREA ANALYSIS ...", "The technique is XPS":
# an opening that states what the question asked about ("Which technique is this?")
_OPENING_STATEMENT_RE = re.compile(
    r"[\W_]*(?:(?:this|it|that|these)[ \t]+(?:is|are)|it's|the[ \t]+(?:answer|technique|method|"
    r"result|category|label|classification|diagnosis|mechanism|mineral|species|structure|"
    r"compound|reagent|process|phenomenon)[ \t]+(?:is|are))\b",
    re.I,
)


def _opening_statement(response: str) -> str:
    units = _units(response)
    if not units or not _OPENING_STATEMENT_RE.match(units[0].text):
        return ""
    return f"a statement of the answer ({clip(units[0].text.strip(), 40)!r})"


_BARE_MARKUP_RE = re.compile(r"[*_`$]|\\(?:boxed|textbf|text|mathrm)\{|[{}]")


def _bare(text: str) -> str:
    """``text`` without emphasis, boxes and closing punctuation, lower-cased."""
    return " ".join(_BARE_MARKUP_RE.sub("", text).split()).strip(" .!").lower()


def _answer_first(response: str, units: list[Span]) -> str:
    """The reply's first line (or the line after a title) when it is the answer: a bare Yes or
    No, or the final answer the reply states again at its end ("**EDS**" ... "Final answer:
    \\boxed{EDS}"). "" otherwise."""
    final = final_answer(response)
    answer = _bare(final.text) if final is not None else ""
    # a bold first line is a title or the answer itself: both readings are tried
    firsts = units[:2] if len(units) > 1 and _is_title(units[0]) else units[:1]
    for unit in firsts:
        first = _bare(unit.text)
        if first in ("yes", "no"):
            return f"a bare {first.capitalize()!r}"
        said = re.search(rf"(?<!\w){re.escape(answer)}(?!\w)", first) if answer else None
        if said and final is not None and final.start > unit.end:
            return f"the answer it states again at the end ({clip(answer, 40)!r})"
    return ""


# the question names the answer's shape: "give your answer ... as a Python tuple"
_SHAPE_ASKED_RE = re.compile(r"\b(?:tuple|list|dict(?:ionary)?|json|array)\b", re.I)
# a line that is one literal: "('secondary ion mass spectrometry', 'sims')", "[1, 2]"
_LITERAL_LINE_RE = re.compile(
    r"^[ \t]*(?:[-*][ \t]+)?(?:\([^\n]*\)|\[[^\n]*\]|\{[^\n]*\})[ \t]*[.,;]?[ \t]*$", re.M
)


def _shaped_answers(response: str, question: str) -> list[tuple[int, int]]:
    """Where the reply gives its answer in the shape the question names (a line that is one
    tuple / list / dict literal, or a fenced block), when it names one."""
    if not _SHAPE_ASKED_RE.search(question):
        return []
    found = [(m.start(), m.start()) for m in _LITERAL_LINE_RE.finditer(response)]
    for block in code_blocks(response):
        start = response.find(block.body)
        if block.body.strip() and start >= 0:
            found.append((start, start))
    return sorted(found)


# "Open with a one-sentence answer to the question, and then explain": the reply's first
# sentence of content (titles, headings and HTML tags aside) is that answer, unless it is
# a preamble ("Sure!", "Let's ...", "Here is ...")
_OPENING_ASKED_RE = re.compile(
    r"\b(?:open|begin|start)\w*[ \t]+(?:your[ \t]+(?:response|answer|reply)[ \t]+)?with[ \t]+"
    r"(?:a|an|one)[ \t]+(?:(?:one|single|1)[- ]sentence|short|brief|direct|concise)[ \t]+"
    r"(?:answer|statement|summary|sentence)",
    re.I,
)
_TAGS_RE = re.compile(r"<[^<>\n]{0,200}>")
_HEADING_LINE_RE = re.compile(r"^[ \t]*(?:#{1,6}[ \t]|<h[1-6]\b|<title\b|<!|<\?)", re.I)
_PREAMBLE_RE = re.compile(
    r"^[\W_]*(?:sure|certainly|of[ \t]+course|great|good[ \t]+question|let'?s|let[ \t]+me|"
    r"to[ \t]+answer|here(?:'s|[ \t]+is|[ \t]+are)|i(?:'ll|[ \t]+will|[ \t]+would))\b",
    re.I,
)


def _asked_opening_sentence(response: str, question: str) -> str:
    if not _OPENING_ASKED_RE.search(question):
        return ""
    for line in non_empty_lines(response):
        if _HEADING_LINE_RE.match(line.text):
            continue
        text = _TAGS_RE.sub(" ", line.text).strip()
        if not text or (line.text.strip().startswith("**") and line.text.strip().endswith("**")):
            continue
        if _PREAMBLE_RE.match(text):
            return ""
        return f"the opening sentence the question asks for ({clip(text, 40)!r})"
    return ""


def _standalone_last_line(response: str) -> str:
    """A short last line in a paragraph of its own, with no marker: the bare answer a question
    asked to place alone on the last line ("[Na+].[BH4-]", "Category 3"); not a sign-off, a
    question or a heading."""
    blocks = [p.strip() for p in _PARAGRAPH_BREAK_RE.split(response.strip()) if p.strip()]
    if len(blocks) < 2 or "\n" in blocks[-1]:
        return ""
    line = blocks[-1].strip("*_ \t")
    if not line or len(line.split()) > 8 or line.endswith(("?", ":", "：")) or line[0] == "#":
        return ""
    if _MORE_RESPONSE_RE.match(line):
        return ""
    return f"a line of its own ({clip(line, 40)!r})"


_PARAGRAPH_BREAK_RE = re.compile(r"\n[ \t]*\n")
_NOT_PROSE_RE = re.compile(r"^[ \t]*(?:#|[-*+>|]|[0-9]+[.)]|```|~~~|<|\$\$|\\\[)")
_HEADING_ONLY_RE = re.compile(r"^[ \t]*(?:#{1,6}[ \t][^\n]*|[^\n]{0,60}[:：][ \t]*\**)$")


def _closing_remark(response: str, answer_at: int) -> str:
    """The one prose paragraph that follows the answer's paragraph, when it is all that
    follows (docs/labelling.md rule 12: a closing remark does not move the answer); a
    heading or label paragraph ("## Final Answer") belongs with the paragraph after it."""
    breaks = list(_PARAGRAPH_BREAK_RE.finditer(response.rstrip()))
    bounds = [0, *(m.end() for m in breaks), len(response.rstrip())]
    paragraphs = [response[a:b].strip() for a, b in itertools.pairwise(bounds)]
    starts = bounds[:-1]
    k = max(i for i, start in enumerate(starts) if start <= answer_at)
    while k + 1 < len(paragraphs) and _HEADING_ONLY_RE.match(paragraphs[k]):
        k += 1
    rest = [p for p in paragraphs[k + 1 :] if p.strip(_CLOSING)]
    if len(rest) != 1 or _NOT_PROSE_RE.match(rest[0]) or len(rest[0]) > 800:
        return ""
    if _BOXED_START_RE.search(rest[0]) or last_answer_marker(rest[0]) is not None:
        return ""
    # a caveat qualifies the answer; working ("Step 2: d = ...") or a sign-off that offers
    # more ("Let me know if ...") is more response after it
    if "=" in rest[0] or _MORE_RESPONSE_RE.match(rest[0]):
        return ""
    return rest[0]


_MORE_RESPONSE_RE = re.compile(
    r"[ \t*_]*(?:step\b|let[ \t]+me[ \t]+know|feel[ \t]+free|hope[ \t]+(?:this|that)|"
    r"if[ \t]+you[ \t]+(?:want|need|would|like)|would[ \t]+you[ \t]+like|happy[ \t]+to|"
    r"i[ \t]+can[ \t]+also)",
    re.I,
)
