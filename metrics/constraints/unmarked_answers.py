"""Where a reply's answer stands when no answer marker shows it (``answer_position.py``
states the rule): an opening or closing block of the shape asked, an opening statement or
sentence the question asks for, a bare last line, a closing remark after the answer; and the
reply's units (lines, or sentences of a one-line reply).
"""

from __future__ import annotations

import itertools
import re

from sci_tasks.metrics.constraints.answers import (
    code_blocks,
    final_answer,
    last_answer_marker,
)
from sci_tasks.metrics.constraints.options import read_options
from sci_tasks.metrics.constraints.text import (
    Span,
    clip,
    non_empty_lines,
)

BOXED_START_RE = re.compile(r"\\(?:boxed|fbox)\b")
_SENTENCE_BREAK_RE = re.compile(r"(?<=[.!?])\s+")
CLOSING = " \t\r\n*`~$.}])\\"


def reply_units(response: str) -> list[Span]:
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


def is_title(unit: Span) -> bool:
    s = unit.text.strip()
    return (
        s.startswith("#")
        # "Answer:", "Here is my answer:" head what follows; a lead-in sentence that ends in
        # a colon ("Since ... the best choice is:") is content before the answer (rule 12)
        or (s.endswith(":") and len(s.split()) <= 6)
        or (s.startswith("**") and s.endswith("**") and s.count("**") == 2)
    )


# A bold result, not a label ("**Step 1:**", "**Given:**") or a heading's bold.
_BOLD_RE = re.compile(r"\*\*([^*\n]{2,120})\*\*")


def named_results(response: str, question: str) -> list[tuple[int, int]]:
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


def closing_structured_block(response: str) -> str:
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


def opening_structured_block(response: str) -> str:
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


def opening_statement(response: str) -> str:
    units = reply_units(response)
    if not units or not _OPENING_STATEMENT_RE.match(units[0].text):
        return ""
    return f"a statement of the answer ({clip(units[0].text.strip(), 40)!r})"


_BARE_MARKUP_RE = re.compile(r"[*_`$]|\\(?:boxed|textbf|text|mathrm)\{|[{}]")


def _bare(text: str) -> str:
    """``text`` without emphasis, boxes and closing punctuation, lower-cased."""
    return " ".join(_BARE_MARKUP_RE.sub("", text).split()).strip(" .!").lower()


def answer_first(response: str, units: list[Span]) -> str:
    """The reply's first line (or the line after a title) when it is the answer: a bare Yes or
    No, or the final answer the reply states again at its end ("**EDS**" ... "Final answer:
    \\boxed{EDS}"). "" otherwise."""
    final = final_answer(response)
    answer = _bare(final.text) if final is not None else ""
    # a bold first line is a title or the answer itself: both readings are tried
    firsts = units[:2] if len(units) > 1 and is_title(units[0]) else units[:1]
    for unit in firsts:
        first = _bare(unit.text)
        if first in ("yes", "no"):
            return f"a bare {first.capitalize()!r}"
        said = re.search(rf"(?<!\w){re.escape(answer)}(?!\w)", first) if answer else None
        if said and final is not None and final.start > unit.end:
            return f"the answer it states again at the end ({clip(answer, 40)!r})"
    return ""


# the question names the answer's shape: "give your answer ... as a Python tuple"
SHAPE_ASKED_RE = re.compile(r"\b(?:tuple|list|dict(?:ionary)?|json|array)\b", re.I)
# a line that is one literal: "('secondary ion mass spectrometry', 'sims')", "[1, 2]"
LITERAL_LINE_RE = re.compile(
    r"^[ \t]*(?:[-*][ \t]+)?(?:\([^\n]*\)|\[[^\n]*\]|\{[^\n]*\})[ \t]*[.,;]?[ \t]*$", re.M
)


def literal_lines(response: str, asked: str) -> list[str]:
    """The reply's lines that are one tuple / list / dict literal, when ``asked`` (the
    question, or its sentence stating a requirement) names that shape; else []."""
    return LITERAL_LINE_RE.findall(response) if SHAPE_ASKED_RE.search(asked) else []


def shaped_answers(response: str, question: str) -> list[tuple[int, int]]:
    """Where the reply gives its answer in the shape the question names (a line that is one
    tuple / list / dict literal, or a fenced block), when it names one."""
    if not SHAPE_ASKED_RE.search(question):
        return []
    found = [(m.start(), m.start()) for m in LITERAL_LINE_RE.finditer(response)]
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


def asked_opening_sentence(response: str, question: str) -> str:
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


def standalone_last_line(response: str) -> str:
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


def closing_remark(response: str, answer_at: int) -> str:
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
    rest = [p for p in paragraphs[k + 1 :] if p.strip(CLOSING)]
    if len(rest) != 1 or _NOT_PROSE_RE.match(rest[0]) or len(rest[0]) > 800:
        return ""
    if BOXED_START_RE.search(rest[0]) or last_answer_marker(rest[0]) is not None:
        return ""
    # a caveat or a sign-off ("Let me know if ...") closes the reply (the rule: a
    # one-line closing remark does not move the answer); working ("Step 2: d = ...") is more
    # response after it
    if "=" in rest[0] or _WORKING_RE.match(rest[0]):
        return ""
    return rest[0]


_WORKING_RE = re.compile(r"[ \t*_]*step\b", re.I)


_MORE_RESPONSE_RE = re.compile(
    r"[ \t*_]*(?:step\b|let[ \t]+me[ \t]+know|feel[ \t]+free|hope[ \t]+(?:this|that)|"
    r"if[ \t]+you[ \t]+(?:want|need|would|like)|would[ \t]+you[ \t]+like|happy[ \t]+to|"
    r"i[ \t]+can[ \t]+also)",
    re.I,
)
