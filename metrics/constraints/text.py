"""Parsing helpers shared by the constraint checkers.

Every function here is pure and small. Every regex is linear-time: no nested quantifiers,
and quantifiers that stand next to each other range over disjoint characters (or are
separated by a required literal), so a 1 MB response costs one pass. Where a regex could
not promise that (balanced braces, paired delimiters, fenced blocks) the helper scans with
``str.find`` or line by line instead.

Conventions the checkers rely on:

* **Final answer** (``final_answer``): the content of the last ``\\boxed{...}`` (or
  ``\\fbox{...}``) if it comes after the last answer marker, else the text after the last
  answer marker ("Final answer:", "**Final Answer**", "The answer is", "Answer:") up to the
  end of that line, or the next non-empty line when the marker ends its line.
  ``final_answer_or_last_line`` falls back to the last non-empty line.
* **Scope** (``requirement_scope``): whether a requirement applies to the whole response or
  to the final answer, read from the parameters, else from the question sentences that
  mention the requirement (see ``requirement_scope`` for the word lists).
* **Structured answer** (``structured_answers``): the body of a fenced code block if there
  is one (the last block whose language tag fits, else the last block); else the whole
  response stripped and, when the question scopes the format to the final answer, also the
  final answer (last box, or after the last marker through the end). A format checker
  passes when one of these is valid.
* **Numbers** (``find_numbers``): decimal numbers written with digits, with optional sign,
  thousands separators and a scientific exponent (``1.2e-4``, ``1.2 × 10^-4``,
  ``1.2 \\times 10^{-4}``, ``1.2*10^5``, ``1.2·10⁻⁴``). Ignored: digits glued to a letter,
  underscore or dot before them (``H2O``, ``CO2``, ``x_1``, ``v2.0``); superscripts and
  subscripts (``m^2``, ``cm^{-1}``, ``x_{12}``); list markers at a line start (``1.``,
  ``2)``, ``(3)``, ``## 4.``); integer labels after step/figure/table/equation/section/...
  (``Step 1``, ``Fig. 2``, ``Eq. (3)``); ordinals (``1st``, ``2nd``). Numbers written as
  words are not numbers here.
* **Escaping** (``read_latex``): LaTeX inside a JSON string reads as the LaTeX it encodes,
  for every reader of numbers, units and wrappers (``find_numbers``, ``last_boxed``,
  ``units.clean_unit_text``, the letter-case checks): ``\\\\times`` and ``\\\\\\\\times``
  are ``\\times``, ``\\\\boxed{...}`` is a box, ``\\\\(`` opens math; a JSON ``\\n``
  before a capital, a digit or a word that is no LaTeX command is a newline.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Literal, NamedTuple

Scope = Literal["whole", "final"]

# --------------------------------------------------------------------------- counts

_WORD_NUMBERS: dict[str, int] = {
    word: i
    for i, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split()
    )
} | {"single": 1}
NUMBER_WORD = (
    r"(?:[0-9]+|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|single)"
)


def phrases(*alternatives: str) -> str:
    """Regex alternatives written as words: ``phrases("at least", "at most")`` ->
    ``at[ \\t]+least|at[ \\t]+most`` (each space matches a run of spaces or tabs)."""
    return "|".join(a.replace(" ", r"[ \t]+") for a in alternatives)


def parse_int(token: str) -> int | None:
    """``"3"`` -> 3, ``"three"`` -> 3, ``"single"`` -> 1; anything else -> None."""
    t = token.strip().lower()
    if t.isascii() and t.isdigit():
        return int(t)
    return _WORD_NUMBERS.get(t)


def clean_parameters(parameters: object) -> str:
    """The free-text parameters as a stripped string; None, "null", "none", "n/a" -> ""."""
    if parameters is None:
        return ""
    text = str(parameters).strip()
    return "" if text.lower() in {"", "null", "none", "n/a", "na", "nan"} else text


def clip(text: str, limit: int = 40) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis, for reasons."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


# --------------------------------------------------------------------------- sentences

_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?。;；])\s+|\n")


def sentences(text: str) -> list[str]:
    """Split on sentence-ending punctuation followed by whitespace, and on newlines."""
    return [s.strip() for s in _SENTENCE_SPLIT_RE.split(text) if s.strip()]


def sentences_matching(text: str, pattern: re.Pattern[str]) -> list[str]:
    """The sentences of ``text`` in which ``pattern`` occurs."""
    return [s for s in sentences(text) if pattern.search(s)]


# --------------------------------------------------------------------------- scope

# Ranked cues, strongest first: the first rank that occurs decides. Lower-case patterns,
# searched in the lower-cased text (much faster than IGNORECASE on long text).
_STRONG_WHOLE_RE = re.compile(
    r"\b(?:entire|whole|throughout|intermediate|complete[ \t]+(?:response|output|reply))\b",
)
_EXPLICIT_FINAL_RE = re.compile(
    r"\bfinal[ \t]+(?:numerical[ \t]+|numeric[ \t]+)?(?:answer|result|value|output|conclusion)s?\b",
)
_WEAK_WHOLE_RE = re.compile(
    r"\b(?:(?:respond|reply|answer|output|return|write|provide|give|print|say|use|contain|be)"
    r"(?:[ \t]+with)?[ \t]+(?:only|just|solely)"
    r"|only[ \t]+(?:output|respond|reply|return|write|provide|give|print)"
    r"|nothing[ \t]+else"
    r"|no[ \t]+(?:other|additional|extra)[ \t]+(?:text|words?|explanation|content)"
    r"|(?:all|every|each|any)(?:[ \t]+of)?(?:[ \t]+(?:the|your))?"
    r"[ \t]+(?:numbers?|numerical|numeric|values?|quantit(?:y|ies)|results?|calculations?|"
    r"text|outputs?|responses?|content|steps?|words?|letters?|sentences?))\b",
)
_WEAK_FINAL_RE = re.compile(r"\b(?:answer|result|conclusion)s?\b")


def scope_of_sentence(text: str) -> Scope | None:
    """The scope a piece of instruction text states, or None when it states none.

    Order: "entire/whole/throughout/intermediate" -> whole; "final answer/result/value" ->
    final; "respond/answer/output with only", "only output", "nothing else", "no other
    text", "all/every number/value/text/..." -> whole; "answer/result/conclusion" -> final.
    """
    text = text.lower()
    if _STRONG_WHOLE_RE.search(text):
        return "whole"
    if _EXPLICIT_FINAL_RE.search(text):
        return "final"
    if _WEAK_WHOLE_RE.search(text):
        return "whole"
    if _WEAK_FINAL_RE.search(text):
        return "final"
    return None


def requirement_scope(
    question: str, parameters: str, keyword: re.Pattern[str], default: Scope = "whole"
) -> Scope:
    """Whole response or final answer: the parameters decide if they state a scope, else
    the question sentences that mention the requirement (``keyword``), read clause by
    clause (split at ";" and at "and / but / then" before an instruction verb: "...
    notation, and enclose ..."): only the clauses that mention it; else ``default``."""
    if parameters:
        scope = scope_of_sentence(parameters)
        if scope:
            return scope
    found = sentences_matching(question or "", keyword)
    if found:
        # the clauses that state this requirement first: in "Express the speed in scientific
        # notation, and enclose the entire response in [[ ]]", "entire" is the wrapper's
        # ("... and" / ";" separate clauses; another clause's scope words are not this one's)
        clauses = [c for s in found for c in clauses_matching(s, keyword)]
        scope = scope_of_sentence(" ".join(clauses or found))
        if scope:
            return scope
    return default


_CLAUSE_SPLIT_RE = re.compile(
    r";\s*|,?\s+(?:and|but|then)\s+(?:also\s+)?(?=(?:enclose|wrap|put|place|write|give|express|"
    r"use|provide|round|report|present|return|answer|respond|format|show|state|box|include|"
    r"keep|make|list|explain|start|begin|end|finish|mark|highlight|bold)\b)",
    re.I,
)


def clauses_matching(text: str, pattern: re.Pattern[str]) -> list[str]:
    """The clauses of ``text`` in which ``pattern`` occurs (split at ";" and at "and / but
    / then" before an instruction verb: "... notation, and enclose the entire response")."""
    return [c for c in _CLAUSE_SPLIT_RE.split(text) if pattern.search(c)]


# A component a format marks optional, which the answer may leave out (issue 19): "house
# number (if discernible)", "'cas_number' (if known)", "postal code (optional)".
OPTIONAL_MARK_RE = re.compile(
    r"[ \t]*[(\[][ \t]*(?:if[ \t]+(?:discernible|known|available|visible|legible|identifiable|"
    r"applicable|any|present|shown)|optional(?:ly)?|where[ \t]+(?:available|known|visible|"
    r"discernible|applicable))[ \t]*[)\]]"
    r"|[ \t]+(?:if[ \t]+(?:discernible|known|available|visible|applicable|any)|\(?optional\)?)$",
    re.I,
)


def optional_part(name: str) -> tuple[str, bool]:
    """``name`` without its optional mark (``OPTIONAL_MARK_RE``), and whether it had one."""
    bare = OPTIONAL_MARK_RE.sub("", name).strip()
    return bare, bare != name.strip()


# --------------------------------------------------------------------------- spans


class Span(NamedTuple):
    """A piece of a text: its content, where it is (``text[start:end]``), how it was found."""

    text: str
    start: int
    end: int
    source: str


def _line_spans(text: str) -> Iterator[Span | None]:
    """Each line of ``text``: its content stripped, with its position, or None when blank."""
    pos = 0
    for raw in text.splitlines(keepends=True):
        body = raw.strip()
        if body:
            lead = len(raw) - len(raw.lstrip())
            yield Span(body, pos + lead, pos + lead + len(body), "line")
        else:
            yield None
        pos += len(raw)


def non_empty_lines(text: str) -> list[Span]:
    """Every line with visible content, stripped, with its position in ``text``."""
    return [line for line in _line_spans(text) if line is not None]


def last_line(text: str) -> Span | None:
    """The last non-empty line of ``text``, stripped."""
    end = len(text.rstrip())
    if end == 0:
        return None
    start = text.rfind("\n", 0, end) + 1
    body = text[start:end]
    lead = len(body) - len(body.lstrip())
    return Span(body.strip(), start + lead, end, "last line")


def paragraphs(text: str) -> list[Span]:
    """Blocks of non-empty lines separated by blank lines."""
    out: list[Span] = []
    current: list[Span] = []
    for line in _line_spans(text):
        if line is not None:
            current.append(line)
        elif current:
            out.append(_join(text, current))
            current = []
    if current:
        out.append(_join(text, current))
    return out


def _join(text: str, lines: list[Span]) -> Span:
    return Span(text[lines[0].start : lines[-1].end], lines[0].start, lines[-1].end, "paragraph")


# --------------------------------------------------------------------------- escaping

# A run of backslashes before the first character of a LaTeX command or delimiter: JSON
# escaping doubled it ("\\\\times" in a JSON string is \\times; "\\\\\\\\times" when a
# model escaped twice). Before a newline or a digit they stay (LaTeX's line break); before
# a space they read as a control space, whitespace to every reader either way.
# (Matched only at a run's start: linear however long the run. Runs of exactly two, the
# common case, are replaced without a Python callback.)
_COMMAND_START = r"(?=[A-Za-z()\[\]{},;:!%$_#&^ ])"
# Each pattern starts with its literal backslash (the regex engine then skips ahead to the
# next backslash) and looks behind after it.
_DOUBLED_COMMAND_RE = re.compile(r"\\\\(?<!\\\\\\)" + _COMMAND_START)
_ESCAPED_COMMAND_RE = re.compile(r"\\(?<!\\\\)\\{2,}" + _COMMAND_START)
# \n, \t, \r: a JSON whitespace escape unless the letters after the backslash are a LaTeX
# command (\nabla, \theta, \rho, \text, \right, ...) or an accent taking braces (\r{A}).
_NTR_COMMANDS = frozenset(
    "nabla ne neq nu neg ni not notin nexists nleq ngeq nless ngtr nmid nsim ncong natural "
    "nearrow nwarrow newline nolimits nonumber noindent normalsize nparallel nsubseteq "
    "times theta tau tan tanh to top tilde tfrac tbinom tiny tt tag therefore "
    "rho rm rangle rceil rfloor rbrace rbrack rvert rtimes rlap raisebox ref".split()
)
_NTR_PREFIXES = ("text", "right", "new", "triangle", "thick", "thin")


def _whitespace_escape_re(letters: str) -> re.Pattern[str]:
    """A backslash and one of ``letters`` that starts no command of the tables above (the
    commands are excluded by a lookahead, so the substitution runs in C, no callback)."""
    parts = []
    for letter in letters:
        names = sorted((c[1:] for c in _NTR_COMMANDS if c[0] == letter), key=len, reverse=True)
        starts = [p[1:] for p in _NTR_PREFIXES if p[0] == letter]
        commands = "|".join(re.escape(n) for n in names if n)
        kept = [f"(?:{commands})(?![a-z])"] if commands else []
        kept += [re.escape(p) for p in starts] + [r"\{"]
        parts.append(f"{letter}(?!{'|'.join(kept)})")
    return re.compile(r"\\(?<!\\\\)(?:" + "|".join(parts) + ")")


_NEWLINE_ESCAPE_RE = _whitespace_escape_re("n")
_TAB_RETURN_ESCAPE_RE = _whitespace_escape_re("tr")


def read_latex(text: str, keep_length: bool = True) -> str:
    """``text`` with the LaTeX that JSON escaping hides read back: a doubled (or
    quadrupled) backslash before a command or delimiter is one backslash (``\\\\times`` ->
    ``\\times``, ``\\\\(`` -> ``\\(``, ``\\\\boxed``), and ``\\n`` / ``\\t`` / ``\\r``
    that start no LaTeX command are whitespace. ``keep_length``: the dropped backslashes
    become spaces before the one kept, so positions in ``text`` stay valid. Every reader of
    numbers, units and wrappers sees the text through this (``find_numbers``,
    ``last_boxed``, ``units.clean_unit_text``, the letter-case checks)."""
    if "\\" not in text:
        return text
    if "\\\\" in text:
        pad = (lambda n: " " * (n - 1)) if keep_length else (lambda n: "")
        text = _ESCAPED_COMMAND_RE.sub(lambda m: pad(len(m.group())) + "\\", text)
        text = _DOUBLED_COMMAND_RE.sub(" \\\\" if keep_length else "\\\\", text)
    text = _NEWLINE_ESCAPE_RE.sub(" \n", text)
    return _TAB_RETURN_ESCAPE_RE.sub("  ", text)


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
    r"|\banswer[ \t]*(?:\*+[ \t]*)?[:：]",
    re.I,
)
_LEAD_STRIP = " \t*:：#"
_TRAIL_STRIP = " \t*"


def last_answer_marker(text: str) -> re.Match[str] | None:
    """The last answer marker in ``text`` (see ``ANSWER_MARKER_RE``)."""
    last = None
    for last in ANSWER_MARKER_RE.finditer(text):  # noqa: B007 - we want the last match
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
    if opener not in _FENCES:
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


def final_answer(text: str, to_end: bool = False) -> Span | None:
    """The final answer span (module docstring), or None when there is no box and no marker.

    ``to_end``: after a marker, take everything to the end of the response (for multi-line
    structured answers) instead of one line.
    """
    box = last_boxed(text)
    marker = last_answer_marker(text)
    if box is not None and (marker is None or box.start > marker.start()):
        return box
    if marker is not None:
        return _after_marker(text, marker, to_end)
    return None


def final_answer_or_last_line(text: str) -> Span | None:
    """``final_answer`` or, without a box or marker, the last non-empty line (the body of
    the last fenced block when the response ends with one)."""
    found = final_answer(text)
    if found is not None:
        return found
    line = last_line(text)
    if line is not None and line.text.startswith(_FENCES):
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


def scoped_text(response: str, scope: Scope) -> tuple[str, str]:
    """The text a requirement applies to, and words for it in reasons."""
    if scope == "whole":
        return response, "the response"
    span = final_answer_or_last_line(response)
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


_FENCES = ("```", "~~~")
# A whole line that holds ``` or ~~~. Linear: the lazy part stops at the line's end, and
# positions inside a line fail at once on ``^``.
_FENCE_LINE_RE = re.compile(r"^[^\n]*?(?:```|~~~)[^\n]*", re.M)


def code_blocks(text: str) -> list[CodeBlock]:
    """Fenced code blocks: a line starting (after indentation) with ``` or ~~~ opens one, a
    line ending with the same fence closes it. ```` ```[1, 2]``` ```` on one line is a block
    too. An unclosed block runs to the end of the text (``closed=False``)."""
    blocks: list[CodeBlock] = []
    fence = lang = ""
    body_start = 0
    for m in _FENCE_LINE_RE.finditer(text):
        s = m.group().strip()
        if not fence:
            opener = s[:3]
            if opener not in _FENCES:
                continue
            rest = s.lstrip(opener[0])
            if rest.endswith(opener) and rest.strip(opener[0]):
                blocks.append(CodeBlock("", rest.rstrip(opener[0]).strip(), True))
                continue
            fence, lang, body_start = opener, (rest.split() or [""])[0].lower(), m.end() + 1
        elif s.endswith(fence):
            body = text[body_start : m.start()] + s.rstrip(fence[0])
            blocks.append(CodeBlock(lang, body.strip("\n"), True))
            fence = ""
    if fence:
        blocks.append(CodeBlock(lang, text[body_start:].strip("\n"), False))
    return blocks


def structured_answers(
    response: str, langs: tuple[str, ...], scope: Scope
) -> list[tuple[str, str]]:
    """The texts a structured-format constraint may be met by, each with words for reasons
    (module docstring): the fenced block alone if there is one; else the whole response
    stripped, then, when scoped to the final answer, the final answer through the end."""
    blocks = code_blocks(response)
    if blocks:
        block = next((b for b in reversed(blocks) if b.lang in langs), blocks[-1])
        tag = f"```{block.lang}" if block.lang else "```"
        return [(block.body.strip(), f"the {tag} block")]
    candidates = [(response.strip(), "the whole response")]
    if scope == "final":
        span = final_answer(response, to_end=True)
        if span is not None and span.text.strip() != candidates[0][0]:
            candidates.append((span.text.strip(), f"the final answer ({span.source})"))
    return candidates


# --------------------------------------------------------------------------- numbers

_SUPERSCRIPT_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_POWER = (
    r"(?:[ \t]*\^[ \t]*(?:\{[ \t]*(?:[-+−][ \t]*)?[0-9]+[ \t]*\}|(?:[-+−][ \t]*)?[0-9]+)"
    r"|\*\*[ \t]*(?:\([ \t]*)?[-+−]?[0-9]+(?:[ \t]*\))?"
    rf"|[⁺⁻]?[{_SUPERSCRIPT_DIGITS}]+)"
)
_EXPONENT = (
    r"(?:[eE][-+−]?[0-9]+"
    r"|[ \t]*(?:×|\\times|\\cdot|·|⋅|\*|x|X)[ \t]*10" + _POWER + ")"
)
# The one number grammar of the project (``units.numbers`` reads quantities with it too):
# sign, mantissa (thousands separators allowed) and an optional power-of-ten exponent.
NUMBER_RE = re.compile(
    r"(?<![\w.])(?P<sign>[-+−]?)"
    r"(?P<mant>[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?|\.[0-9]+)"
    r"(?P<exp>" + _EXPONENT + r")?"
)
_BARE_POWER_RE = re.compile(_POWER)
_LABEL_WORDS = frozenset(
    "step steps stage part case fig figure figs figures table tables eq eqs equation "
    "equations section chapter option question problem example item method scenario row "
    "column phase round trial experiment".split()
)
_ORDINALS = frozenset(("st", "nd", "rd", "th"))
_LINE_START_PREFIX = " \t#>*+-("


class Number(NamedTuple):
    """One number found in a text."""

    text: str  # as written (sign, mantissa and exponent)
    mantissa: str  # digits of the mantissa, separators removed ("1234.5")
    decimals: int  # digits after the decimal point of the mantissa
    scientific: bool  # written with a power-of-ten exponent
    start: int
    end: int

    @property
    def normalized(self) -> bool:
        """Scientific and the mantissa is 0 or 1 <= |m| < 10."""
        value = float(self.mantissa)
        return self.scientific and (value == 0 or 1 <= value < 10)


# LaTeX spacing and grouping around a times sign, each replaced by as many spaces (or the
# same command without braces) so that positions in the text stay valid.
_LATEX_SPACING_RE = re.compile(r"\\[,;:! ]|~|\{(?=\\(?:times|cdot)\})|(?<=\\times)\}|(?<=\\cdot)\}")


def _blank_latex_spacing(text: str) -> str:
    if "\\" not in text and "~" not in text:
        return text
    return _LATEX_SPACING_RE.sub(lambda m: " " * len(m.group()), text)


def find_numbers(text: str) -> list[Number]:
    """Numbers written with digits, minus the ones the module docstring lists as ignored.
    LaTeX spacing (``\\,`` ``\\;`` ``\\ `` ``~``) and ``{\\times}`` read as plain spaces and
    ``\\times``, so ``4.5\\,\\times\\,10^{4}`` is one number in scientific notation; LaTeX
    escaped inside a JSON string (``read_latex``) reads as the LaTeX it encodes."""
    shown = read_latex(text).replace("$", " ")  # same length: positions stay valid
    text = _blank_latex_spacing(shown)
    out: list[Number] = []
    for m in NUMBER_RE.finditer(text):
        mant, exp = m.group(2, 3)
        start, end = m.span()
        if "," in mant:
            mant = mant.replace(",", "")
        scientific = exp is not None
        if not scientific and mant == "10":
            power = _BARE_POWER_RE.match(text, end)
            if power:  # a bare power of ten, 10^-4: scientific with mantissa 1
                scientific, mant, end = True, "1", power.end()
        if start and text[start - 1] in _BEFORE_INDEX and _is_exponent_or_index(text, start):
            continue
        point = mant.find(".")
        if point < 0 and not scientific and _is_label(text, start, end):
            continue
        decimals = 0 if point < 0 else len(mant) - point - 1
        out.append(Number(shown[start:end], mant, decimals, scientific, start, end))
    return out


_BEFORE_INDEX = " \t{(^_*"


def _is_exponent_or_index(text: str, start: int) -> bool:
    """``m^2``, ``cm^{-1}``, ``x_{12}``, ``10**3``: a superscript or subscript."""
    j, steps = start, 0
    while j > 0 and steps < 4 and text[j - 1] in " \t{(":
        j -= 1
        steps += 1
    if j > 0 and text[j - 1] in "^_":
        return True
    return j > 2 and text[j - 2 : j] == "**" and text[j - 3].isdigit()


def _is_label(text: str, start: int, end: int) -> bool:
    """A list marker at a line start, an integer label (Step 1, Fig. 2), an ordinal."""
    nxt = text[end : end + 1]
    if nxt.isalpha():
        return text[end : end + 2].lower() in _ORDINALS and not text[end + 2 : end + 3].isalpha()
    if nxt in (".", ")") and text[end + 1 : end + 2] in (" ", "\t"):
        j = start
        while j > 0 and start - j < 12 and text[j - 1] in _LINE_START_PREFIX:
            j -= 1
        if (j == 0 or text[j - 1] == "\n") and text[end + 2 : end + 40].split("\n", 1)[0].strip():
            return True  # "1. text": a marker followed by content on its line
    return _label_word_before(text, start)


def _label_word_before(text: str, start: int) -> bool:
    """``Step 1``, ``Fig. 2``, ``Eq. (3)``, ``Table #4``: a label word right before."""
    j = start
    while j > 0 and start - j < 4 and text[j - 1] in " \t(#":
        j -= 1
    if j == start:
        return False
    if j > 0 and text[j - 1] == ".":
        j -= 1
    i = j
    while i > 0 and j - i < 12 and text[i - 1].isalpha():
        i -= 1
    return (i == 0 or not text[i - 1].isalnum()) and text[i:j].lower() in _LABEL_WORDS


# --------------------------------------------------------------------------- requirements

_DECIMALS_RE = re.compile(
    rf"\b({NUMBER_WORD})[ \t]*(?:-[ \t]*)?(?:decimal|d\.p\.|dp\b)"
    rf"|\bdecimal(?:[ _]?(?:places?|digits?|points?)|s)?[ \t]*(?:[:=]|of)[ \t]*({NUMBER_WORD})\b",
    re.I,
)
_DECIMAL_WORDS_RE = re.compile(
    r"\b(?:nearest|to[ \t]+the)[ \t]+(tenth|hundredth|thousandth|ten[ \t-]thousandth)s?\b"
    r"|\b(?:nearest[ \t]+(?:integer|whole[ \t]+number)|no[ \t]+decimal|without[ \t]+decimal|"
    r"zero[ \t]+decimal)"
    r"|\bprecision[ \t]+(?:of[ \t]+)?0\.(0*1)\b",
    re.I,
)
_PLACE_WORDS = {"tenth": 1, "hundredth": 2, "thousandth": 3}


def parse_decimal_places(text: str) -> set[int]:
    """Every decimal-place count ``text`` states: "2 decimal places", "one decimal place",
    "two-decimal", "decimal places: 2", "to the nearest tenth/hundredth/thousandth",
    "nearest integer" / "no decimal places" (0), "precision of 0.01" (2); a parameter that
    is only a count ("2", "two") states that count."""
    found: set[int] = set()
    for m in _DECIMALS_RE.finditer(text):
        n = parse_int(m.group(1) or m.group(2))
        if n is not None:
            found.add(n)
    for m in _DECIMAL_WORDS_RE.finditer(text):
        if m.group(1):
            word = m.group(1).lower()
            found.add(4 if word.startswith("ten") and word != "tenth" else _PLACE_WORDS[word])
        elif m.group(2):
            found.add(len(m.group(2)))
        else:
            found.add(0)
    if not found:
        n = parse_int(text)
        if n is not None:
            found.add(n)
    return found


# --------------------------------------------------------------------------- copying

COPY_MIN_WORDS = 6


def strip_copied(response: str, question: str, min_words: int = COPY_MIN_WORDS) -> tuple[str, int]:
    """``response`` without the text it copies from ``question``, and how many characters
    were removed.

    Copied text is any run of ``min_words`` or more consecutive words (whitespace-separated
    tokens, compared exactly) that also stands, word for word, in the question: a restated
    question, an echoed prompt, a copied instruction. Each run is replaced by a newline, so
    the words around it do not join. Copying the question is not compliance: the names,
    units and wrappers a constraint asks for stand in the question itself. Short overlaps
    (a method's name, a unit, an option, an entity) are kept. Linear: one pass over the
    response with a set of the question's ``min_words``-word windows.
    """
    windows, starts = _question_windows(question or "", min_words)
    if not windows or not response:
        return response, 0
    words = response.split()  # same tokens as \S+; positions only when a run is found
    runs: list[list[int]] = []  # [first word, last word] of each copied run
    for i in range(len(words) - min_words + 1):
        if words[i] in starts and tuple(words[i : i + min_words]) in windows:
            last = i + min_words - 1
            if runs and i <= runs[-1][1] + 1:
                runs[-1][1] = last
            else:
                runs.append([i, last])
    if not runs:
        return response, 0
    spans = [(m.start(), m.end()) for m in re.finditer(r"\S+", response)]
    if len(spans) != len(words):  # both split on str.isspace(); never trust it blindly
        return response, 0
    parts, pos, removed = [], 0, 0
    for first, last in runs:
        a, b = spans[first][0], spans[last][1]
        parts.append(response[pos:a])
        parts.append("\n")
        removed += b - a
        pos = b
    parts.append(response[pos:])
    return "".join(parts), removed


@lru_cache(maxsize=64)
def _question_windows(
    question: str, min_words: int
) -> tuple[frozenset[tuple[str, ...]], frozenset[str]]:
    """The question's ``min_words``-word windows and their first words (a question is
    scored against many responses: built once)."""
    q = question.split()
    windows = frozenset(tuple(q[i : i + min_words]) for i in range(len(q) - min_words + 1))
    return windows, frozenset(w[0] for w in windows)


# --------------------------------------------------------------------------- reasons and answers


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def show_items(items: list[str], limit: int = 3) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


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


def strip_decoration(text: str) -> str:
    return text.strip().strip("*`_").strip()


# A mention the response turns down ("basalt, not granite", "rather than conservation of
# energy", "we do not need X"): the words just before it reject it, so it names no choice.
_REJECTION_CUE = (
    r"(?:\b(?:not|neither|nor|never|cannot|dont|doesnt|didnt|without|unlike)|n['’]t"
    r"|\brather[ \t]+than|\binstead[ \t]+of|\bno[ \t]+need[ \t]+(?:for|of|to))[ \t]+"
    r"(?:(?:the|a|an|to|use|using|apply|applying|need|needed|invoke|invoking|any|even|be)[ \t]+)*"
)
_REJECTION_RE = re.compile(_REJECTION_CUE + "$", re.I)
# What a cue turns down runs to the end of its phrase (punctuation or a new clause's word).
_REJECTED_PHRASE_RE = re.compile(
    _REJECTION_CUE + r"[^,;:.!?\n()]*?(?=[,;:.!?\n()]|\b(?:but|so|because|since|which)\b|$)",
    re.I,
)


def rejected_at(text: str, start: int) -> bool:
    """Whether the mention at ``start`` of ``text`` is turned down by the words just before
    it (within 40 characters of the same line)."""
    before = text[max(0, start - 40) : start].rsplit("\n", 1)[-1]
    return _REJECTION_RE.search(before) is not None


def without_rejected(text: str) -> str:
    """``text`` with each turned-down phrase blanked (same length, positions stay valid)."""
    return _REJECTED_PHRASE_RE.sub(lambda m: " " * len(m.group()), text)
