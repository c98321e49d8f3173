"""Text helpers shared by the constraint checkers: counts written as words, sentences and
clauses, the scope of a requirement, lines and paragraphs (``Span``), text copied from the
question, turned-down mentions, and the words of reasons. Where the answer is
(``answers.py``), the numbers of a text (``number_grammar.py``) and LaTeX escaped in JSON
(``escaping.py``) have their own modules.

Every function here is pure and small. Every regex is linear-time: no nested quantifiers,
and quantifiers that stand next to each other range over disjoint characters (or are
separated by a required literal), so a 1 MB response costs one pass. Where a regex could
not promise that (balanced braces, paired delimiters, fenced blocks) the helper scans with
``str.find`` or line by line instead (the same holds in the sibling modules).

**Scope** (``requirement_scope``): whether a requirement applies to the whole response or
to the final answer, read from the parameters, else from the question sentences that
mention the requirement (see ``requirement_scope`` for the word lists).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache, lru_cache
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


def words_re(*alternatives: str) -> re.Pattern[str]:
    """A case-blind regex for any of ``alternatives`` (as in ``phrases``) as whole words:
    ``words_re("at least", "fold")`` matches ``\\b(?:at[ \\t]+least|fold)\\b``."""
    return re.compile(rf"\b(?:{phrases(*alternatives)})\b", re.I)


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

# Whitespace after sentence-ending punctuation, or a newline. It begins with the whitespace
# character itself (the punctuation is checked behind it), so the regex engine skips ahead
# to whitespace instead of trying every position.
_SENTENCE_SPLIT_RE = re.compile(r"\s(?:(?<=[.!?。;；]\s)\s*|(?<=\n))")


def sentences(text: str) -> list[str]:
    """Split on sentence-ending punctuation followed by whitespace, and on newlines."""
    return list(_sentences(text))


@lru_cache(maxsize=4)  # the constraints of one sample read the same question
def _sentences(text: str) -> tuple[str, ...]:
    return tuple(s.strip() for s in _SENTENCE_SPLIT_RE.split(text) if s.strip())


def sentences_matching(text: str, pattern: re.Pattern[str]) -> list[str]:
    """The sentences of ``text`` in which ``pattern`` occurs."""
    if _whole_text_decides(pattern) and not pattern.search(text):
        return []  # most questions never mention the requirement: no split needed
    return [s for s in sentences(text) if pattern.search(s)]


# Without anchors or negative lookarounds, a match inside a sentence is a match in the whole
# text (a sentence is the text between whitespace): no match in the text, no sentence.
_EDGE_SENSITIVE = ("^", "$", "\\A", "\\Z", "\\B", "(?<!", "(?!")


@cache
def _whole_text_decides(pattern: re.Pattern[str]) -> bool:
    return not any(token in pattern.pattern for token in _EDGE_SENSITIVE)


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
    r"|(?:all|every|any|each(?![ \t]+(?:value|result|quantit)))(?:[ \t]+of)?(?:[ \t]+(?:the|your))?"
    r"(?:[ \t]+(?:reported|computed|calculated|stated|intermediate|numerical))?"
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
    # "..., and the final answer should be placed in \boxed{}": a clause with its own subject
    r",\s*(?:and|but)\s+(?=(?:the|your)\s+(?:[a-z]+\s+){1,2}(?:should|must|is|are|will|needs?)\b)|"
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


# --------------------------------------------------------------------------- copying

COPY_MIN_WORDS = 6


_CHOICE_LINE_RE = re.compile(r"^[ \t]*>[^\n]*$", re.M)


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
    # the options of a CHOICE LIST ("> 5 Avenue Anatole France, 75007 Paris, ...") are
    # what a reply is asked to copy: choosing one is an answer, not a copied question
    question = _CHOICE_LINE_RE.sub("", question or "")
    windows, starts = _question_windows(question, min_words)
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


# markup, not prose: a LaTeX command name (\times, \BOXED), an XML declaration or DOCTYPE
LATEX_COMMAND_RE = re.compile(r"\\[A-Za-z]+")
XML_PROLOG_RE = re.compile(r"<\?[^<>\n]{0,200}\?>|<![A-Za-z][^<>\n]{0,200}>")
