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
  No occurrence -> fail. Where an answer stands without a marker: ``unmarked_answers.py``.

"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable

from sci_tasks.metrics.constraints.answers import (
    ANSWER_MARKER_RE,
    final_answer,
)
from sci_tasks.metrics.constraints.base import (
    CheckInput,
    register,
)
from sci_tasks.metrics.constraints.text import (
    Span,
    clean_parameters,
    clip,
    paragraphs,
    plural,
    sentences_matching,
    show_items,
)
from sci_tasks.metrics.constraints.unmarked_answers import (
    BOXED_START_RE,
    CLOSING,
    answer_first,
    asked_opening_sentence,
    closing_remark,
    closing_structured_block,
    is_title,
    named_results,
    opening_statement,
    opening_structured_block,
    reply_units,
    shaped_answers,
    standalone_last_line,
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
    units = reply_units(response)
    if len(units) > 1 and is_title(units[0]) and not _bold_answer(units[0]):
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
    found += [(m.start(), m.end()) for m in BOXED_START_RE.finditer(response)]
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
        occurrences = shaped_answers(response, inp.question or "")
    if not occurrences and position == "beginning":
        block = (
            opening_structured_block(response)
            or opening_statement(response)
            or answer_first(response, reply_units(response))
            or asked_opening_sentence(response, inp.question or "")
        )
        if block:
            return Verdict.passed(f"final answer at the beginning: the reply opens with {block}")
        # ... and so is an opening that names one of the question's options or bolds its
        # result ("this cyclone is a **Category 3** storm.")
        occurrences = named_results(response, inp.question or "")
    if not occurrences and position == "end":
        block = closing_structured_block(response) or standalone_last_line(response)
        if block:
            return Verdict.passed(f"final answer at the end: the reply ends with {block}")
    if not occurrences:
        return Verdict.failed(
            "no final-answer marker (Final answer:/Answer:/The answer is/\\boxed)"
            + (f" and no sentence stating the {stated}" if stated else "")
        )
    units = reply_units(response)
    if position == "middle":
        blocks = paragraphs(response)
        units = blocks if len(blocks) >= 3 else units
    kind = units[0].source if units else "line"
    starts = [u.start for u in units]
    indices = [max(0, bisect_right(starts, start) - 1) for start, _ in occurrences]
    last = len(units) - 1
    check: Callable[[int, int], bool]
    if position == "beginning":
        first = 1 if last > 0 and 0 not in indices and is_title(units[0]) else 0

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
        opening = answer_first(response, units)
        if opening:
            return Verdict.passed(f"final answer at the beginning: the reply opens with {opening}")
    if not hits and position == "end":
        # A final answer of several lines (a list, a table, a fenced block) under its
        # marker is at the end when nothing but closing punctuation follows it.
        span = final_answer(response)
        if span is not None and span.text and not response[span.end :].strip(CLOSING):
            lines = response.count("\n", span.start, span.end) + 1
            return Verdict.passed(
                f"final answer at the end: the last {plural(lines, 'line')} of the response"
            )
        # "Final answer: The cart covers 5.4 m,\nwhich is ..." : the answer statement that
        # begins at the last marker runs on to the end of the response.
        start = occurrences[-1][0]
        if not response[_statement_end(response, occurrences[-1][1]) :].strip(CLOSING):
            lines = response.count("\n", start, len(response.rstrip())) + 1
            return Verdict.passed(
                f"final answer at the end: the answer statement from the last marker runs to "
                f"the end ({plural(lines, 'line')})"
            )
        remark = closing_remark(response, occurrences[-1][0])
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
