"""The texts a structured-format answer (JSON, a dict, a list, a tuple, CSV, HTML, XML) may
be, in a reply that explains around it (issue 28: a JSON object after a sentence of
explanation is the answer).

* When the question asks for the format alone ("return only", "your entire response",
  ``ONLY_FORMAT_RE``): the whole response (or the one fenced block that is all of it).
* Otherwise the body of a fenced code block if there is one (the last block whose language
  tag fits, else the last block) and the value of a Python assignment in it
  (``answer = {...}``); else the whole response stripped and, when the question scopes the
  format to the final answer, also the final answer (last box, or after the last marker
  through the end); then blocks written inline on lines of their own outside fences. A
  format checker passes when one of these is valid.

Linear: braces and fences are scanned with ``str.find`` or line by line.
"""

from __future__ import annotations

import re

from sci_tasks.metrics.constraints.answers import FENCES, code_blocks, fence_lines, final_answer
from sci_tasks.metrics.constraints.text import Scope

# "return only ...", "your entire response", "nothing else": the reply is the format alone
ONLY_FORMAT_RE = re.compile(
    r"\bonly\b|\bentire[ \t]+(?:response|reply|answer|output)\b"
    r"|\bwhole[ \t]+(?:response|reply|output)\b|\bnothing[ \t]+(?:else|but|except)\b"
    r"|\bno[ \t]+(?:other|additional|extra)[ \t]+(?:text|explanation|prose|commentary)\b"
    r"|\bwithout[ \t]+(?:any[ \t]+)?(?:other[ \t]+|additional[ \t]+|extra[ \t]+)?"
    r"(?:text|explanation|prose|commentary)\b|\bexclusively\b",
    re.I,
)
_OPENERS = {"{": "}", "[": "]", "(": ")"}
_ASSIGNMENT_RE = re.compile(r"^[ \t]*[A-Za-z_][A-Za-z0-9_]*(?:[ \t]*:[^=\n]{1,40})?[ \t]*=[ \t]*")
MAX_INLINE = 4  # inline blocks tried per format (the last ones of the answer statement)


# What may stand before an inline block on its line (nothing, or a label ending in ":"),
# and after it (nothing, punctuation, or an explanation set off by a dash).
_BLOCK_LEAD_RE = re.compile(r"(?:^|[:：])[ \t*_`>-]*$")
_BLOCK_TAIL_RE = re.compile(r"^[ \t*_`.,;]*(?:$|[—–][^\n]*|[ \t]-[ \t][^\n]*)")


def _balanced_spans(text: str, opener: str) -> list[str]:
    """The outermost balanced ``opener`` ... closer spans of ``text`` that stand as blocks
    (``_BLOCK_LEAD_RE`` before them on their line, ``_BLOCK_TAIL_RE`` after), in order."""
    closer = _OPENERS[opener]
    spans, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == opener:
            if depth == 0:
                start = i
            depth += 1
        elif ch == closer and depth:
            depth -= 1
            if depth == 0:
                line_start = text.rfind("\n", 0, start) + 1
                line_end = text.find("\n", i)
                line_end = len(text) if line_end < 0 else line_end
                if _BLOCK_LEAD_RE.search(text[line_start:start]) and _BLOCK_TAIL_RE.match(
                    text[i + 1 : line_end]
                ):
                    spans.append(text[start : i + 1])
    return spans


def _inline_blocks(text: str, openers: str) -> list[str]:
    """Blocks of the format written inline: balanced spans opened by ``openers`` (a dict or
    JSON object, a list, a tuple) or, for markup (``<``), the run of lines from the first
    line that opens a tag to the last line that closes one."""
    found: list[str] = []
    for opener in openers:
        if opener == "<":
            lines = [ln for ln in text.splitlines() if ln.strip()]
            first = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith("<")), None)
            last = next((i for i in range(len(lines) - 1, -1, -1)
                         if lines[i].rstrip().endswith(">")), None)  # fmt: skip
            if first is not None and last is not None and last >= first:
                found.append("\n".join(lines[first : last + 1]).strip())
        else:
            found.extend(_balanced_spans(text, opener)[-MAX_INLINE:])
    return found


def _without_fences(text: str) -> str:
    """``text`` with every fenced block blanked (their bodies are candidates of their own)."""
    out, pos = [], 0
    for line_start, line_end in fence_lines(text):
        out.append(text[pos:line_start])
        pos = line_end
    out.append(text[pos:])
    kept, inside = [], False
    for piece in out:
        if not inside:
            kept.append(piece)
        inside = not inside
    return "\n".join(kept)


def structured_answers(
    response: str,
    langs: tuple[str, ...],
    scope: Scope,
    *,
    only: bool = False,
    openers: str = "",
) -> tuple[list[tuple[str, str]], int]:
    """The texts a structured-format constraint may be met by, each with words for reasons,
    and how many of them lead (the verdict of the last leading one is the reason when none
    passes). ``only`` (the question asks for the format alone): the whole response, or the
    body of the one fenced block that is the whole response. Otherwise (module docstring):
    the fenced block (the last in one of ``langs``, else the last) and the value of a Python
    assignment in it (``answer = {...}``), or without a block the whole response and the
    final answer; then blocks written inline in the answer statement (``openers``)."""
    stripped = response.strip()
    blocks = code_blocks(response)
    if only:
        found = [(stripped, "the whole response")]
        if len(blocks) == 1 and stripped.startswith(FENCES) and stripped.endswith(FENCES):
            found.insert(0, (blocks[0].body.strip(), "the fenced block (the whole response)"))
        return found, len(found)
    found = []
    if blocks:
        block = next((b for b in reversed(blocks) if b.lang in langs), blocks[-1])
        tag = f"```{block.lang}" if block.lang else "```"
        body = block.body.strip()
        found.append((body, f"the {tag} block"))
        lead = 1
        assigned = _ASSIGNMENT_RE.match(body)
        if assigned and body[assigned.end() : assigned.end() + 1] in _OPENERS:
            found.append((body[assigned.end() :].strip(), f"the value assigned in the {tag} block"))
    else:
        found.append((stripped, "the whole response"))
        if scope == "final":
            span = final_answer(response, to_end=True, tags=False)
            if span is not None and span.text.strip() != stripped:
                found.append((span.text.strip(), f"the final answer ({span.source})"))
        lead = len(found)
    if openers:
        outside = _without_fences(response) if blocks else response
        span = final_answer(outside, to_end=True, tags=False)
        region = span.text if span is not None else outside[-4000:]
        seen = {text for text, _ in found}
        for text in _inline_blocks(region, openers):
            if text not in seen:
                seen.add(text)
                found.append((text, "a block written inline"))
        if span is not None:  # the answer's block on lines of its own, a boxed remark after it
            for text in _inline_blocks(outside[-20_000:], openers):
                if text not in seen:
                    seen.add(text)
                    found.append((text, "a block written inline in the reply"))
    return found, lead
