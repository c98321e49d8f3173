"""Where a response's answer is: the final answer, the answer line, code blocks and the
texts a structured-format answer may be.

* **Final answer** (``final_answer``): what the last ``<answer>...</answer>`` encloses when
  no box or marker follows it; else the content of the last ``\\boxed{...}`` (or
  ``\\fbox{...}``) if it comes after the last answer marker, else the text after the last
  answer marker ("Final answer:", "**Final Answer**", "The answer is", "Answer:") up to the
  end of that line, or the next non-empty line when the marker ends its line.
  ``final_answer_or_last_line`` falls back to the last non-empty line.
* **Structured answer**: ``structured.py``.

Linear, as the helpers of ``text.py``: braces, pairs and fences are scanned with
``str.find`` or line by line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import NamedTuple

from sci_tasks.metrics.constraints.escaping import read_latex
from sci_tasks.metrics.constraints.text import Scope, Span, last_line, non_empty_lines


def balanced_braces(text: str, open_pos: int) -> int | None:
    """Index of the ``}`` that closes the ``{`` at ``open_pos``, or None if unclosed."""
    depth = 0
    for i in range(open_pos, len(text)):
        ch = text[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
    return None


_BOX_COMMANDS = ("\\boxed", "\\fbox")
# An upper-cased \BOXED{...} (a response whose case a letter-case rule forced) is a box too.
_UPPER_BOX_COMMANDS = ("\\BOXED", "\\Boxed", "\\FBOX")


def last_boxed(text: str, tries: int = 3) -> Span | None:
    """The content of the last well-formed ``\\boxed{...}`` / ``\\fbox{...}`` (nested
    braces allowed; ``\\BOXED`` too). Only the last ``tries`` commands are examined, to stay
    linear. ``\\\\boxed{...}`` in a JSON string is a box too (the command's last backslash
    is found), and its content is read through ``read_latex``: the LaTeX it encodes."""
    end = len(text)
    commands: tuple[str, ...] = _BOX_COMMANDS
    if "\\B" in text or "\\F" in text:
        commands += _UPPER_BOX_COMMANDS
    for _ in range(tries):
        pos, cmd = max((text.rfind(c, 0, end), c) for c in commands)
        if pos < 0:
            return None
        brace = pos + len(cmd)
        while brace < len(text) and text[brace] in " \t":
            brace += 1
        if brace < len(text) and text[brace] == "{":
            close = balanced_braces(text, brace)
            if close is not None:
                content = read_latex(text[brace + 1 : close])  # same length
                return Span(content, brace + 1, close, "\\boxed{}")
        end = pos
    return None


# "Final answer:", "**Final Answer**", "Final answer is", "The answer is", "Answer:".
ANSWER_MARKER_RE = re.compile(
    r"\bfinal[ \t]+(?:numerical[ \t]+)?answer[ \t]*(?:\*+[ \t]*)?"
    r"(?:is\b[ \t]*[:：]?|[:：=]|(?=\r?\n)|\Z)"
    r"|\bthe[ \t]+(?:(?:correct|final)[ \t]+)?answer[ \t]+is\b[ \t]*[:：]?"
    r"|\banswer[ \t]*(?:\*+[ \t]*)?[:：]"
    # "**Final speed:**", "Final result:": a final quantity named by its label (issue 28)
    r"|\bfinal[ \t]+(?!answer\b)[a-z][a-z-]{1,24}(?:[ \t]+[a-z][a-z-]{1,24})?"
    r"[ \t]*(?:\*+[ \t]*)?[:：]",
    re.I,
)
_LEAD_STRIP = " \t*:：#"
_TRAIL_STRIP = " \t*"


def last_answer_marker(text: str) -> re.Match[str] | None:
    """The last answer marker in ``text`` (see ``ANSWER_MARKER_RE``).

    Every marker holds the word "answer" or "final" and lies within one line, and a line's
    markers do not depend on the lines before it: only the lines holding those words are
    searched, the last first, instead of the whole response."""
    low = text.lower()
    if len(low) != len(text):  # a letter whose lower case is longer: positions would shift
        return _last_match(text, 0, len(text))
    if "ſ" in low:  # IGNORECASE matches the long s to "s"
        low = low.replace("ſ", "s")
    end = len(text)
    while (k := max(low.rfind("answer", 0, end), low.rfind("final", 0, end))) >= 0:
        line_start = text.rfind("\n", 0, k) + 1
        nl = text.find("\n", k)
        # the newline stays in view: the marker's lookahead for a line end reads it
        found = _last_match(text, line_start, len(text) if nl < 0 else nl + 1)
        if found is not None:
            return found
        end = line_start
    return None


def _last_match(text: str, start: int, end: int) -> re.Match[str] | None:
    last = None
    for last in ANSWER_MARKER_RE.finditer(text, start, end):  # noqa: B007 - the last match
        pass
    return last


def _after_marker(text: str, marker: re.Match[str], to_end: bool) -> Span:
    start = marker.end()
    if to_end:
        body = text[start:]
        lead = len(body) - len(body.lstrip(_LEAD_STRIP))
        return Span(body.strip(_LEAD_STRIP), start + lead, len(text), "after answer marker")
    same_line = True
    while start <= len(text):
        nl = text.find("\n", start)
        end = len(text) if nl < 0 else nl
        line = text[start:end]
        body = line.lstrip(_LEAD_STRIP).rstrip(_TRAIL_STRIP)
        if body or nl < 0:
            lead = len(line) - len(line.lstrip(_LEAD_STRIP))
            if same_line or not body:
                return Span(body, start + lead, start + lead + len(body), "after answer marker")
            # The marker ends its line: the answer is the block below it, a fenced block's
            # body or the paragraph (several lines: a list, a table, a multi-line answer).
            fence = _fence_at(text, start)
            if fence is not None:
                return fence
            stop = _paragraph_end(text, end)
            block = text[start + lead : stop].rstrip(_TRAIL_STRIP + "\r\n")
            return Span(block, start + lead, start + lead + len(block), "after answer marker")
        same_line = False
        start = nl + 1
    return Span("", len(text), len(text), "after answer marker")


def _paragraph_end(text: str, pos: int) -> int:
    """End of the paragraph whose line ends at ``pos``: the next blank line or the end."""
    while pos < len(text):
        nl = text.find("\n", pos + 1)
        line_end = len(text) if nl < 0 else nl
        if not text[pos + 1 : line_end].strip():
            return pos
        pos = line_end
    return len(text)


def _fence_at(text: str, line_start: int) -> Span | None:
    """The body of the fenced code block whose opening line starts at ``line_start``."""
    opener = text[line_start:].lstrip(" \t")[:3]
    if opener not in FENCES:
        return None
    first_nl = text.find("\n", line_start)
    if first_nl < 0:
        return None
    body_start = first_nl + 1
    pos = body_start
    while pos <= len(text):
        nl = text.find("\n", pos)
        line_end = len(text) if nl < 0 else nl
        if text[pos:line_end].strip().startswith(opener):
            body = text[body_start:pos].rstrip("\r\n")
            return Span(body, body_start, body_start + len(body), f"{opener} block")
        if nl < 0:
            break
        pos = nl + 1
    body = text[body_start:].rstrip("\r\n")  # unclosed: the rest of the text
    return Span(body, body_start, body_start + len(body), f"{opener} block")


@lru_cache(maxsize=4)  # every constraint of a sample asks for the same response's answer
def final_answer(text: str, to_end: bool = False, tags: bool = True) -> Span | None:
    """The final answer span (module docstring), or None when there is no box and no marker.

    ``to_end``: after a marker, take everything to the end of the response (for multi-line
    structured answers) instead of one line. ``tags=False``: ``<answer>`` tags are not read
    (in a structured answer they may be the format's own root element).
    """
    box = last_boxed(text)
    marker = last_answer_marker(text)
    tag = last_answer_tag(text) if tags else None
    later = [m.start() for m in (marker,) if m is not None] + [b.start for b in (box,) if b]
    if tag is not None and all(start < tag.end for start in later):
        return tag  # "<answer>ORF: ATG...</answer>": what the tags enclose (a marker inside too)
    if box is not None and (marker is None or box.start > marker.start()):
        return box
    if marker is not None:
        return _after_marker(text, marker, to_end)
    return None


def last_answer_tag(text: str) -> Span | None:
    """What the last ``<answer>...</answer>`` encloses (any case, blank edges stripped),
    or None."""
    low = text.lower()
    close = low.rfind("</answer>")
    open_ = low.rfind("<answer>", 0, close) if close >= 0 else -1
    if open_ < 0:
        return None
    body = text[open_ + len("<answer>") : close]
    start = open_ + len("<answer>") + (len(body) - len(body.lstrip()))
    content = body.strip()
    return Span(content, start, start + len(content), "<answer> tags") if content else None


def final_answer_or_last_line(text: str) -> Span | None:
    """``final_answer`` or, without a box or marker, the last non-empty line (the body of
    the last fenced block when the response ends with one)."""
    found = final_answer(text)
    if found is not None:
        return found
    line = last_line(text)
    if line is not None and line.text.startswith(FENCES):
        blocks = code_blocks(text)
        if blocks and blocks[-1].closed and blocks[-1].body.strip():
            body = blocks[-1].body
            start = text.rfind(body)
            return Span(body, start, start + len(body), "last ``` block")
    return line


def answer_region(text: str) -> Span | None:
    """The line(s) holding the final answer, labels included: from the start of the line
    of the last answer marker through the answer line; without a marker, the last
    non-empty line. Used where a marker wraps the answer together with its label."""
    marker = last_answer_marker(text)
    if marker is None:
        return last_line(text)
    answer = _after_marker(text, marker, to_end=False)
    start = text.rfind("\n", 0, marker.start()) + 1
    nl = text.find("\n", max(answer.end, marker.end()))
    end = len(text) if nl < 0 else nl
    return Span(text[start:end], start, end, "answer line")


def numbered_final_answer(text: str, most_remarks: int = 2) -> Span | None:
    """The final answer as a requirement on its numbers reads it: ``final_answer_or_last_line``,
    or, where that is an unmarked last line without a digit (a closing remark: "Units: τ in
    ms, voltage in V.", "Note: this assumes ..."), the same read of the response before up
    to ``most_remarks`` such lines: a remark after the answer does not move it."""
    span = final_answer_or_last_line(text)
    if span is not None and span.source != "last line" and not _has_digit(span.text):
        return _stated_after(text, span) or span  # "## Final answer\nIn m/s and s:\n```{...}```"
    for _ in range(most_remarks):
        if span is None or span.source != "last line" or _has_digit(span.text):
            return span
        text = text[: span.start].rstrip()
        span = final_answer_or_last_line(text)
    return span


def _has_digit(text: str) -> bool:
    return any("0" <= c <= "9" for c in text)  # not "²" of m/s², which isdigit() counts


def _stated_after(text: str, lead: Span) -> Span | None:
    """What a marked lead-in without numbers ("With acceleration in m/s² and time in s:")
    introduces: the next fenced block, else the next line with a digit, a few lines on."""
    rest = text[lead.end : lead.end + 2000]
    for line in rest.splitlines()[:8]:
        if line.strip().startswith(FENCES):
            blocks = code_blocks(rest)
            if blocks and blocks[0].closed and _has_digit(blocks[0].body):
                start = text.find(blocks[0].body, lead.end)
                return Span(
                    blocks[0].body, start, start + len(blocks[0].body), "the block it introduces"
                )
            return None
        if _has_digit(line):
            start = text.find(line, lead.end)
            return Span(line.strip(), start, start + len(line), "the line it introduces")
    return None


def scoped_text(response: str, scope: Scope, numbers: bool = False) -> tuple[str, str]:
    """The text a requirement applies to (``numbers``: a requirement on the answer's
    numbers, ``numbered_final_answer``), and words for it in reasons."""
    if scope == "whole":
        return response, "the response"
    span = numbered_final_answer(response) if numbers else final_answer_or_last_line(response)
    if span is None:
        return "", "the final answer"
    return span.text, f"the final answer ({span.source})"


def enclosed(text: str, opener: str, closer: str) -> Iterator[Span]:
    """Non-overlapping ``opener ... closer`` pairs, left to right (``closer`` may equal
    ``opener``: quotes, ``**``). Yields the inner text. Linear: one ``find`` per pair."""
    i = 0
    while True:
        a = text.find(opener, i)
        if a < 0:
            return
        s = a + len(opener)
        b = text.find(closer, s)
        if b < 0:
            return
        yield Span(text[s:b], s, b, f"{opener}…{closer}")
        i = b + len(closer)


# --------------------------------------------------------------------------- code blocks


class CodeBlock(NamedTuple):
    lang: str  # the info string's first word, lower case ("" if none)
    body: str
    closed: bool


FENCES = ("```", "~~~")


def fence_lines(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each whole line that holds ``` or ~~~, in order (found with ``find``,
    so the lines without a fence cost nothing)."""
    # the next ``` and the next ~~~, each searched again only once passed (linear)
    ticks, tildes = text.find("```"), text.find("~~~")
    while ticks >= 0 or tildes >= 0:
        k = min(at for at in (ticks, tildes) if at >= 0)
        start = text.rfind("\n", 0, k) + 1
        end = text.find("\n", k)
        if end < 0:
            end = len(text)
        yield start, end
        if 0 <= ticks <= end:
            ticks = text.find("```", end + 1)
        if 0 <= tildes <= end:
            tildes = text.find("~~~", end + 1)


def code_blocks(text: str) -> list[CodeBlock]:
    """Fenced code blocks: a line starting (after indentation) with ``` or ~~~ opens one, a
    line ending with the same fence closes it. ```` ```[1, 2]``` ```` on one line is a block
    too. An unclosed block runs to the end of the text (``closed=False``)."""
    blocks: list[CodeBlock] = []
    fence = lang = ""
    body_start = 0
    for line_start, line_end in fence_lines(text):
        s = text[line_start:line_end].strip()
        if not fence:
            opener = s[:3]
            if opener not in FENCES:
                continue
            rest = s.lstrip(opener[0])
            if rest.endswith(opener) and rest.strip(opener[0]):
                blocks.append(CodeBlock("", rest.rstrip(opener[0]).strip(), True))
                continue
            fence, lang, body_start = opener, (rest.split() or [""])[0].lower(), line_end + 1
        elif s.endswith(fence):
            body = text[body_start:line_start] + s.rstrip(fence[0])
            blocks.append(CodeBlock(lang, body.strip("\n"), True))
            fence = ""
    if fence:
        blocks.append(CodeBlock(lang, text[body_start:].strip("\n"), False))
    return blocks


def final_or(response: str, fallback: Callable[[str], Span | None]) -> Span | None:
    return final_answer(response) or fallback(response)


_MARKUP_TAG_RE = re.compile(r"</?[A-Za-z][^<>\n]{0,40}>")
_CONTENT_CHAR_RE = re.compile(r"[^\W_]")


def last_content_line(response: str) -> Span | None:
    """The last non-empty line with content beyond markup (closing tags, fences, braces)."""
    for line in reversed(non_empty_lines(response)):
        if _CONTENT_CHAR_RE.search(_MARKUP_TAG_RE.sub("", line.text)):
            return Span(line.text, line.start, line.end, "last line")
    return last_line(response)
